"""README's tour runs as written: every `cobe` line of it, from an empty folder, on the bundled starter set, against
the contract fakes (openai/, anthropic/, google/ and a key-less `openai-api/vllm/` server on 127.0.0.1), with App.
D.1's defaults and no request the real APIs refuse; and the paper's models are asked as the paper ran them (GPT-5.4
Pro through /v1/responses, Claude thinking as a respondent)."""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
from pathlib import Path

import pytest

from cobe.store.store import STORE_NAME
from support.cli import assert_one_line_error, run_cobe
from support.openai_server import contract_env

ROOT = Path(__file__).resolve().parents[2]
PAPER_JSON = ROOT / "tests" / "fixtures" / "datasets" / "paper.json"
STARTER = ROOT / "src" / "cobe" / "dataset" / "builtin" / "starter.jsonl"
#: the tour's lines left to their own tests: a Ray cluster (and vLLM's GPUs) to tests/run/test_ray_cluster.py
ELSEWHERE = ("--executor ray",)


def tour_commands() -> list[str]:
    """The tour's `cobe` lines, as written (continuations joined, comments dropped)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## A short tour") : readme.index("The same from Python:")]
    lines, pending = [], ""
    for raw in section.splitlines():
        if not raw.startswith("    "):  # the tour's block is indented; the prose around it is not
            continue
        text = pending + raw.strip()
        if text.endswith("\\"):
            pending = text[:-1] + " "
            continue
        pending = ""
        command = text.split("  #", 1)[0].strip()
        if command.startswith("cobe "):
            lines.append(command)
    return lines


@pytest.fixture
def workdir(tmp_path: Path, strict_server) -> tuple[Path, dict[str, str | None]]:
    shutil.copy(PAPER_JSON, tmp_path / "cobe.json")
    env: dict[str, str | None] = dict(contract_env(strict_server))
    env |= {"VLLM_BASE_URL": strict_server.base_url, "VLLM_API_KEY": None, "GEMINI_API_KEY": None}
    return tmp_path, env


def records(run_dir: Path, role: str, spec: str, column: str) -> list:
    """One column of the call records of one model in one role."""
    db = sqlite3.connect(run_dir / STORE_NAME)
    try:
        return [r[0] for r in db.execute(f"SELECT {column} FROM calls WHERE role = ? AND spec = ?", (role, spec))]
    finally:
        db.close()


def sent(run_dir: Path, role: str, spec: str) -> list[dict]:
    """What the calls of one model in one role sent, as their records in the store say."""
    return [json.loads(text) for text in records(run_dir, role, spec, "sent")]


def rate_as_raters_would(study: Path) -> None:
    """What raters do in `cobe annotate serve`: every rater answers every item assigned to them."""
    from cobe.annotate.store import StudyStore

    store = StudyStore(study)
    for person in store.principals():
        if person.role == "rater":
            for n, item in enumerate(store.assignment(person.id)):
                assert store.save_rating(person.id, item, ("Yes", "No")[(n + person.id) % 3 == 0], "")


def test_the_tour_names_only_files_and_ids_that_exist():
    commands = tour_commands()
    assert commands[0] == "cobe data sources"
    assert any(c.startswith("cobe judge runs/gpt ") for c in commands)
    starter_ids = {json.loads(line)["id"] for line in STARTER.read_text(encoding="utf-8").splitlines()}
    for command in commands:
        args = shlex.split(command)
        if "--data" in args:  # the tour runs on the bundled data; a file would have to be named and fetched
            assert args[args.index("--data") + 1].startswith("builtin:"), command
        for flag in ("--ids", "--id"):
            if flag in args:
                assert set(args[args.index(flag) + 1].split(",")) <= starter_ids, command


def test_the_readme_tour_runs_as_written_with_no_refused_request(workdir, strict_server):
    cwd, env = workdir
    (cwd / "cobe.json").unlink()  # from an empty folder
    # the starter's first 12 scenarios (those the tour's --ids name among them) stand in for all 60: the tour's
    # seven runs in seconds, not minutes; the lines that name builtin:starter read the whole of it
    subset = cwd.parent / "starter-12.jsonl"
    subset.write_text("".join(STARTER.read_text(encoding="utf-8").splitlines(keepends=True)[:12]), encoding="utf-8")
    env |= {"COBE_DATA": str(subset)}
    said = {}
    for command in tour_commands():
        if any(part in command for part in ELSEWHERE):
            continue
        if command.startswith("cobe agreement"):
            rate_as_raters_would(cwd / "runs" / "gpt" / "study")
        result = run_cobe(*shlex.split(command)[1:], cwd=cwd, env=env)
        assert result.returncode == 0, (command, result.stderr)
        assert "Traceback" not in result.stderr, command
        stats = strict_server.stats()
        assert stats["refused"] == 0, (command, stats["refusals"])
        said[command] = result.stderr
    assert len(said) == len([c for c in tour_commands() if not any(part in c for part in ELSEWHERE)])
    first = "cobe eval --model openai/gpt-5.4 --judge anthropic/claude-opus-4-7 --run-dir runs/gpt"
    assert said[first].count("note: anthropic/claude-opus-4-7 does not take temperature 0.0: not sent") == 1
    run = cwd / "runs" / "gpt"
    # the README command: GPT-5.4 thinks at medium (App. D.1) with room to answer; Claude judges without the
    # temperature it refuses, and says so once
    respondent = sent(run, "respondent", "openai/gpt-5.4")
    assert respondent and all(
        s["reasoning_effort"] == "medium" and s["max_completion_tokens"] == 20480 for s in respondent
    )
    assert set(records(run, "respondent", "openai/gpt-5.4", "reasoning_tokens")) == {256}  # the fake's medium
    assert all("temperature" not in s for s in sent(run, "judge", "anthropic/claude-opus-4-7"))
    summary = json.loads((run / "summary.json").read_text())
    assert summary["state"] == "complete"
    assert summary["settings"]["respondents"]["openai/gpt-5.4"]["thinking"] == "reasoning effort medium"
    # the tour's last judge of the run: GPT-5.4 through its batch API, not thinking, with temperature and logprobs
    assert summary["settings"]["judges"]["openai/gpt-5.4"] == {
        "api": "chat",
        "thinking": "off",
        "max_completion_tokens": 5,
        "temperature": 0.0,
        "logprobs": True,
    }
    assert "## Settings" in (run / "report.md").read_text()
    assert '<section id="settings">' in (run / "report.html").read_text()
    # the local server was asked with no key (VLLM_API_KEY unset) and answered every item
    assert json.loads((cwd / "runs" / "my-model" / "summary.json").read_text())["state"] == "complete"
    assert (cwd / "report" / "report.html").is_file() and (cwd / "starter.csv").is_file()


def test_gpt_5_4_pro_answers_and_judges_through_the_responses_api(workdir, strict_server):
    cwd, env = workdir
    args = ("eval", "--model", "openai/gpt-5.4-pro", "--judge", "openai/gpt-5.4-pro", "--data", "cobe.json")
    result = run_cobe(*args, "--run-dir", "pro", "--no-report", cwd=cwd, env=env)
    assert result.returncode == 0, result.stderr
    stats = strict_server.stats()
    assert stats["refused"] == 0, stats["refusals"]
    # 2 preflight probes (as respondent, as judge), 12 answers, 36 verdicts; never chat completions, which
    # refuse -pro models
    assert stats["endpoints"] == {"responses": 2 + 12 + 36}
    respondent = sent(cwd / "pro", "respondent", "openai/gpt-5.4-pro")
    assert {s["api"] for s in respondent} == {"responses"}
    assert all(s["reasoning"] == {"effort": "medium"} and s["max_output_tokens"] == 20480 for s in respondent)
    # and batch judging through the Batch API's /v1/responses endpoint
    batch = run_cobe(
        "judge",
        "pro",
        "--judge",
        "openai/gpt-5.4-pro",
        "--judge-prompts",
        "contextual",
        "--judge-batch",
        "--no-report",
        cwd=cwd,
        env=env,
    )
    assert batch.returncode == 0, batch.stderr
    after = strict_server.stats()
    assert after["refused"] == 0 and after["batches"] == 1 and after["batch_lines"] == 36
    assert after["endpoints"]["responses"] - stats["endpoints"]["responses"] in (36, 37)  # + the judge's probe


def test_claude_as_respondent_thinks_by_default(workdir, strict_server):
    cwd, env = workdir
    args = ("eval", "--model", "anthropic/claude-opus-4-7", "--model", "anthropic/claude-sonnet-4-5")
    result = run_cobe(
        *args,
        "--judge",
        "openai/gpt-5.4",
        "--data",
        "cobe.json",
        "--run-dir",
        "claude",
        "--no-report",
        cwd=cwd,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert strict_server.stats()["refused"] == 0, strict_server.stats()["refusals"]
    adaptive = sent(cwd / "claude", "respondent", "anthropic/claude-opus-4-7")
    assert adaptive and all(
        s["thinking"] == {"type": "adaptive"} and s["output_config"] == {"effort": "high"} for s in adaptive
    )
    budget = sent(cwd / "claude", "respondent", "anthropic/claude-sonnet-4-5")
    assert budget and all(
        s["thinking"] == {"type": "enabled", "budget_tokens": 8192} and "temperature" not in s for s in budget
    )
    off = run_cobe(
        *args,
        "--judge",
        "openai/gpt-5.4",
        "--data",
        "cobe.json",
        "--run-dir",
        "off",
        "--no-report",
        "--reasoning-effort",
        "none",
        cwd=cwd,
        env=env,
    )
    assert off.returncode == 0, off.stderr
    assert all(
        "thinking" not in s and s["max_tokens"] == 512
        for s in sent(cwd / "off", "respondent", "anthropic/claude-opus-4-7")
    )


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (("--reasoning-effort", "extreme"), ("--reasoning-effort extreme", "'none', 'minimal'")),
        (
            ("--model", "openai/gpt-5.4-pro", "--reasoning-effort", "none"),
            ("--reasoning-effort none: openai/gpt-5.4-pro cannot turn thinking off",),
        ),
        (
            (
                "--model-arg",
                "anthropic/claude-sonnet-4-5:thinking_budget=500",
                "--model",
                "anthropic/claude-sonnet-4-5",
            ),
            ("thinking_budget 500 for anthropic/claude-sonnet-4-5: expected 1024 to 64000",),
        ),
        (("--models-file", "typo.yaml"), ("typo.yaml: row 1 (openai gpt-5.4): unknown field 'reasonig'",)),
        (("--model-arg", "openai/gpt-4o:temperature=0.5"), ("--model-arg openai/gpt-4o: names no model or judge",)),
    ],
    ids=["unknown-effort", "cannot-turn-off", "budget-out-of-range", "row-file-typo", "stray-model-arg"],
)
def test_bad_model_settings_are_one_line_and_exit_2_before_any_call(workdir, strict_server, extra, needles):
    cwd, env = workdir
    (cwd / "typo.yaml").write_text("rows:\n  - {provider: openai, match: gpt-5.4, reasonig: effort}\n")
    args = ["eval", "--judge", "openai/gpt-5.4", "--data", "cobe.json", *extra]
    if "--model" not in extra:
        args += ["--model", "openai/gpt-5.4"]
    result = run_cobe(*args, cwd=cwd, env=env)
    assert result.returncode == 2
    assert_one_line_error(result, *needles)
    assert strict_server.stats()["requests"] == 0 and not (cwd / "runs").exists()
