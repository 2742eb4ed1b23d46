"""`cobe eval --judge-check N`: the self-test runs first on the run's store, lands in summary.json and the
reports, and its lines end the command's output; the run's own judge counts stay its own."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import CliResult, run_cobe

JUDGE = "openai-api/localfake/fake-model"


def cobe(tmp_path: Path, server, *args: str) -> CliResult:
    return run_cobe(*args, cwd=tmp_path, env={"LOCALFAKE_BASE_URL": server.base_url, "LOCALFAKE_API_KEY": None})


def test_eval_runs_the_self_test_first_and_ends_with_it(tmp_path, openai_server, data_file):
    run_dir = tmp_path / "run"
    args = ["eval", "--model", "mock/echo", "--judge", JUDGE, "--data", str(data_file), "--run-dir", str(run_dir)]
    r = cobe(tmp_path, openai_server, *args, "--judge-check", "3")
    assert r.returncode == 0, r.stderr
    # the self-test is a stage of the run's progress too: 3 scenarios × 3 probes
    assert "progress: judge-check 0/9 done (0%)" in r.stderr and "progress: judge-check 9/9 done (100%)" in r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith(f"{run_dir}: complete")  # the run's table first
    assert "judge 36 calls" in r.stdout  # 4 scenarios × 3 templates × 3 checks
    assert lines[-1].startswith("Judge self-test verdict: this judge passes nearly everything")
    # 3 scenarios × 5 questions, counted apart from the run's; the synthetic scenarios share one preserve
    # item and the paper's preserve check sees only that and the rewrite, so two "another story's
    # rewrite" questions are word for word an illustrative one and are paid once
    assert "judge calls: 13 made, 2 from the store" in r.stdout
    summary = json.loads((run_dir / "summary.json").read_text())
    check = summary["judge_check"]
    assert check["judge"] == JUDGE and len(check["scenarios"]) == 3 and check["as_expected"] is False
    assert summary["command"]["calls"]["judge"]["calls_made"] == 36
    assert "## Judge self-test" in (run_dir / "report.md").read_text()
    html = (run_dir / "report.html").read_text()
    assert 'id="judge-check"' in html and "this judge passes nearly everything" in html
    # the second time everything comes from the store, the self-test included
    again = cobe(tmp_path, openai_server, *args, "--judge-check", "3")
    assert "judge calls: 0 made, 15 from the store" in again.stdout
    assert "respondent 0 calls" in again.stdout and "judge 0 calls" in again.stdout


def test_without_the_flag_there_is_no_self_test(tmp_path, data_file):
    run_dir = tmp_path / "run"
    args = ["eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data_file)]
    r = run_cobe(*args, "--run-dir", str(run_dir), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "self-test" not in r.stdout and "judge_check" not in json.loads((run_dir / "summary.json").read_text())


def test_data_unfit_for_the_self_test_stops_before_the_run(tmp_path, data_file):
    one = tmp_path / "one.jsonl"
    one.write_text(data_file.read_text().splitlines()[0] + "\n")
    args = ["eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(one), "--judge-check", "2"]
    r = run_cobe(*args, "--run-dir", str(tmp_path / "run"), cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("error: the judge self-test needs scenarios")
    assert not (tmp_path / "run" / "cobe.sqlite").exists()
