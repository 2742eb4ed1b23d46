"""`cobe eval / generate / judge / runs` as a user runs them: one line out, one line per error, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import CliResult, assert_one_line_error, run_cobe

STORY = "Baker {i} kept the shop open late because a festival was on. Many visitors bought bread."


def write_data(path: Path, n: int = 2) -> Path:
    lines = []
    for i in range(1, n + 1):
        lines.append(
            json.dumps(
                {
                    "id": f"{i}v0",
                    "core_id": i,
                    "variation": 0,
                    "domain": "Daily life",
                    "story": STORY.format(i=i),
                    "queries": [
                        f"Rewrite the original text, based on what would have happened instead had the baker {i} closed early.",
                        f"Based on the preceding text, rewrite the scenario to reflect what would have happened if the baker {i} had closed early.",
                        f"Rewrite the above passage to illustrate what would have occurred had the baker {i} closed early.",
                    ],
                    "illustrative_answer": "Instead, the shop closed early.",
                    "preserve": ["A festival was on."],
                    "change": ["Many visitors bought bread."],
                }
            )
        )
    path.write_text("\n".join(lines) + "\n")
    return path


def cobe(*args: str, cwd: Path, env: dict | None = None) -> CliResult:
    return run_cobe(*args, cwd=cwd, env=env)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return write_data(tmp_path / "data.jsonl")


def test_eval_with_mocks_ends_with_its_table(tmp_path, data):
    r = cobe("eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith("runs/mock_echo__data: complete")  # progress goes to stderr, the table to stdout
    (row,) = [line for line in lines if line.strip().startswith("mock/echo")]
    # every response passed: no bootstrap draw can move 100%, so the interval is the exact one (issue 39, item 2)
    assert row.split()[:8] == ["mock/echo", "100.0", "±", "0.0", "[15.8,", "100.0]", "(exact)", "6"]
    assert "mock/judge-pass (paper)" in row
    run_dir = tmp_path / "runs" / "mock_echo__data"
    assert (run_dir / "results.jsonl").is_file() and (run_dir / "summary.json").is_file()
    assert (run_dir / "report.html").is_file() and "Report: runs/mock_echo__data/report.html" in r.stdout
    drawn = (run_dir / "report.html").stat().st_mtime_ns
    again = cobe("eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), cwd=tmp_path)
    assert "respondent 0 calls" in again.stdout and "judge 0 calls" in again.stdout
    assert (run_dir / "report.html").stat().st_mtime_ns == drawn  # unchanged results: the report is not redrawn
    listed = cobe("runs", cwd=tmp_path)
    assert "runs/mock_echo__data" in listed.stdout and "complete" in listed.stdout
    (entry,) = json.loads(cobe("runs", "--json", cwd=tmp_path).stdout)["runs"]
    assert entry["state"] == "complete" and entry["models"] == ["mock/echo"] and entry["responses"] == 6
    rejudged = cobe("judge", str(run_dir), "--judge", "mock/judge-fail", "--json", cwd=tmp_path)
    table = json.loads(rejudged.stdout)
    assert rejudged.returncode == 0 and table["models"][0]["accuracy"] == 0.0 and table["models"][0]["failed"] == 6
    assert table["calls"]["respondent"]["calls_made"] == 0 and table["judge"] == "mock/judge-fail"


def test_envvars_set_options(tmp_path, data):
    env = {
        "COBE_MODEL": "mock/echo",
        "COBE_JUDGE": "mock/judge-pass",
        "COBE_DATA": str(data),
        "COBE_RUN_DIR": str(tmp_path / "envrun"),
        "COBE_TEMPLATES": "A",
    }
    r = cobe("eval", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert len((tmp_path / "envrun" / "results.jsonl").read_text().splitlines()) == 2


def test_generate_then_judge(tmp_path, data):
    r = cobe("generate", "--model", "baseline/identity", "--data", str(data), "--run-dir", "g", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    j = cobe("judge", "g", "--judge", "mock/judge-pass", "--json", cwd=tmp_path)
    assert j.returncode == 0 and json.loads(j.stdout)["models"][0]["accuracy"] == 100.0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--model", "nosuch/model", "--judge", "mock/judge-pass"], "unknown provider 'nosuch'"),
        (["--model", "mock/echo", "--judge", "mock/judge-pass", "--data", "missing.jsonl"], "missing.jsonl"),
        (["--model", "mock/echo", "--judge", "mock/judge-pass", "--templates", "A,Q"], "unknown template 'Q'"),
        (["--model", "mock/echo"], "no judge given"),
        (["--model", "openai-api/nourl/m", "--judge", "mock/judge-pass"], "NOURL_BASE_URL"),
        (["--model", "mock/echo", "--judge", "mock/judge-pass", "--judge-prompts", "nosuch"], "nosuch"),
    ],
)
def test_bad_input_is_one_line(tmp_path, data, args, needle):
    if "--data" not in args:
        args = [*args, "--data", str(data)]
    assert_one_line_error(cobe("eval", *args, cwd=tmp_path), needle)


def test_judge_of_missing_run_dir_is_one_line(tmp_path):
    assert_one_line_error(cobe("judge", "nowhere", "--judge", "mock/judge-pass", cwd=tmp_path), "not a run directory")


def test_budget_stop_is_one_line_and_exit_4(tmp_path, data, openai_server):
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  m: {input: 1000, output: 1000}\n")
    env = {"FAKE_BASE_URL": openai_server.base_url}
    r = cobe(
        "eval",
        "--model",
        "openai-api/fake/m",
        "--judge",
        "openai-api/fake/m",
        "--data",
        str(data),
        "--prices",
        str(prices),
        "--max-cost",
        "0.3",
        cwd=tmp_path,
        env=env,
    )
    assert r.returncode == 4
    assert_one_line_error(r, "max-cost")


def test_dry_run_prints_counts(tmp_path, data):
    r = cobe(
        "eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--dry-run", cwd=tmp_path
    )
    assert r.returncode == 0 and "6 respondent calls" in r.stdout and "18 judge calls" in r.stdout
    assert not (tmp_path / "runs").exists()


def test_default_is_the_embedded_model_and_says_so(tmp_path, data, monkeypatch):
    from cobe.models import llamacpp, registry
    from cobe.models.mock import MockProvider

    # a dry run builds its providers; what is tested is the choice of model, not its weights
    built: list[str] = []

    def stand_in(spec: str, model: str) -> MockProvider:
        built.append(spec)
        return MockProvider(spec, model, lambda messages: "unused", counts_calls=False)

    # the real factory registered itself on import of llamacpp; the stand-in replaces it until the test ends
    assert registry._PROVIDERS["local"].factory is llamacpp._local_factory
    monkeypatch.setitem(registry._PROVIDERS, "local", registry.Registration(stand_in))
    r = cobe("eval", "--data", str(data), "--dry-run", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "local/gemma-3-270m" in r.stderr and r.stderr.count("smoke-test model") == 1  # said once, by the plan
    assert "runs/local_gemma-3-270m__data" in r.stdout
    assert set(built) == {"local/gemma-3-270m"}


def test_help_lists_envvars(tmp_path):
    r = cobe("eval", "--help", cwd=tmp_path)
    assert r.returncode == 0 and "COBE_MAX_COST" in r.stdout and "COBE_RUN_DIR" in r.stdout


def test_reasoning_effort_from_the_environment_is_recorded_and_a_provider_without_it_says_so(tmp_path, data):
    env = {"COBE_REASONING_EFFORT": "medium"}
    args = ("eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--run-dir", "r")
    r = cobe(*args, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    notes = [line for line in r.stderr.splitlines() if "reasoning-effort" in line]
    assert notes == [
        "note: mock/echo has no reasoning-effort setting: --reasoning-effort medium stays in the "
        "calls' keys and records but is not sent"
    ]
    settings = json.loads((tmp_path / "r" / "summary.json").read_text())["respondent_settings"]
    assert settings["reasoning_effort"] == "medium" and settings["max_tokens"] == 20480  # room to think and answer
    plain = cobe(*args[:-2], "--run-dir", "p", "--reasoning-effort", "default", cwd=tmp_path)
    assert plain.returncode == 0 and "reasoning-effort" not in plain.stderr
    assert json.loads((tmp_path / "p" / "summary.json").read_text())["respondent_settings"]["max_tokens"] == 512


def test_sample_draws_the_same_scenarios_for_the_same_seed(tmp_path):
    data = write_data(tmp_path / "many.jsonl", n=12)

    def drawn(seed: str, run_dir: str) -> list[str]:
        args = ("eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--templates", "A")
        r = cobe(*args, "--sample", "5", "--seed", seed, "--run-dir", run_dir, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        lines = (tmp_path / run_dir / "results.jsonl").read_text().splitlines()
        return [json.loads(line)["scenario_id"] for line in lines]

    first = drawn("7", "a")
    assert len(first) == 5 and first == drawn("7", "b") and first != drawn("8", "c")
    default_dir = cobe(
        "eval",
        "--model",
        "mock/echo",
        "--judge",
        "mock/judge-pass",
        "--data",
        str(data),
        "--sample",
        "5",
        "--seed",
        "7",
        "--dry-run",
        cwd=tmp_path,
    )
    assert "sample-5-seed-7" in default_dir.stdout


def test_a_sample_larger_than_the_data_says_so_and_names_its_run_by_what_it_took(tmp_path):
    data = write_data(tmp_path / "eight.jsonl", n=8)
    args = ("eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--templates", "A")
    done = cobe(*args, "--sample", "500", "--seed", "3", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"note: --sample 500: {data} holds only 8 scenarios, so all 8 are evaluated (recorded as --sample 8)" in (
        done.stderr.splitlines()
    )
    run_dir = tmp_path / "runs" / "mock_echo__eight__tpl-A__sample-8-seed-3"
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == [run_dir.name]
    assert len((run_dir / "results.jsonl").read_text().splitlines()) == 8
    # the same command resumes the same run; so does asking for exactly what it took
    again = cobe(*args, "--sample", "8", "--seed", "3", cwd=tmp_path)
    assert again.returncode == 0 and "--sample" not in again.stderr
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == [run_dir.name]


class _Ran(Exception):
    pass


@pytest.mark.parametrize("report", [True, False])
def test_the_report_libraries_load_before_the_run_when_it_draws_a_report(monkeypatch, report):
    """Loaded after the run, pandas and matplotlib settled above the memory its items had left: a 10,000-sample
    `cobe eval` peaked at 275 MB instead of 259 (benchmarks/bench_harness.py); a run with --no-report loads none."""
    from cobe.cli import evaluate

    order: list[str] = []
    monkeypatch.setattr(evaluate, "_load_report_libraries", lambda: order.append("libraries"))

    def action(_progress: object) -> None:
        order.append("run")
        raise _Ran

    with pytest.raises(_Ran):
        evaluate._run(action, None, evaluate.Output(quiet=True, report=report))  # type: ignore[arg-type]
    assert order == (["libraries", "run"] if report else ["run"])
