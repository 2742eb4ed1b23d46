"""README's tour runs as written against the contract fakes: each of its `cobe eval`, `cobe judge` and `cobe judges
check` lines, with App. D.1's defaults, sends no request the real APIs refuse; and the paper's models are asked as
the paper ran them (GPT-5.4 Pro through /v1/responses, Claude thinking as a respondent)."""

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
FIRST_RUN = "runs/openai_gpt-5.4__cobe"  # where the tour's first eval line keeps its run


def tour_commands() -> list[str]:
    """The tour's model-calling lines, as written (continuations joined, comments dropped); a line that needs a
    Ray cluster (and vLLM's GPUs) is left to tests/run/test_ray_cluster.py and docs/SCALE.md."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("## A short tour") :].split("\n\n", 2)[1]
    lines, pending = [], ""
    for raw in block.splitlines():
        text = pending + raw.strip()
        if text.endswith("\\"):
            pending = text[:-1] + " "
            continue
        pending = ""
        command = text.split("  #", 1)[0].strip()
        if command.startswith(("cobe eval ", "cobe judge ", "cobe judges check ")) and "--executor ray" not in command:
            lines.append(command)
    return lines


@pytest.fixture
def workdir(tmp_path: Path, strict_server) -> tuple[Path, dict[str, str | None]]:
    shutil.copy(PAPER_JSON, tmp_path / "cobe.json")
    env: dict[str, str | None] = dict(contract_env(strict_server))
    env |= {"VLLM_BASE_URL": strict_server.base_url, "GEMINI_API_KEY": None}
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


def test_the_tour_names_the_commands_this_test_runs():
    commands = tour_commands()
    assert commands[0] == "cobe eval --model openai/gpt-5.4 --judge anthropic/claude-opus-4-7 --data cobe.json"
    assert any("--judge openai/gpt-5.4" in c and c.startswith("cobe eval") for c in commands)
    assert any(c.startswith("cobe judge runs/<run>") for c in commands)


def test_the_readme_tour_runs_as_written_with_no_refused_request(workdir, strict_server):
    cwd, env = workdir
    said = []
    for command in tour_commands():
        args = shlex.split(command.replace("runs/<run>", FIRST_RUN))[1:]
        result = run_cobe(*args, cwd=cwd, env=env)
        assert result.returncode == 0, (command, result.stderr)
        stats = strict_server.stats()
        assert stats["refused"] == 0, (command, stats["refusals"])
        said.append(result.stderr)
    assert said[0].count("note: anthropic/claude-opus-4-7 does not take temperature 0.0: not sent") == 1
    run = cwd / FIRST_RUN
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
