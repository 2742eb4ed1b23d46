"""`cobe judge RUN --repeats K`: each check asked K times at the judge's own temperature, a verdict set of the run
that `cobe judges agree` and `cobe plan` read like any other, and a repeat of the command pays for nothing."""

from __future__ import annotations

import json

from support.cli import assert_one_line_error, run_cobe
from support.run_data import write_dataset


def test_repeats_are_a_verdict_set_asked_at_the_judges_own_temperature(tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 4)
    run = tmp_path / "run"
    made = run_cobe("eval", "-m", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--run-dir", str(run))
    assert made.returncode == 0, made.stderr
    r = run_cobe("judge", str(run), "--judge", "mock/judge-fail", "--repeats", "3", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["calls"]["judge"]["calls_made"] == 12 * 3 * 3  # 12 responses, 3 checks, 3 repeats
    summary = json.loads((run / "summary.json").read_text())
    assert summary["judge_samples"] == 3 and summary["settings"]["judges"]["mock/judge-fail"]["temperature"] == 0.0
    again = run_cobe("judge", str(run), "--judge", "mock/judge-fail", "--repeats", "3", "--json", cwd=tmp_path)
    assert json.loads(again.stdout)["calls"]["judge"]["calls_made"] == 0
    agree = run_cobe("judges", "agree", str(run), "--reference", "mock/judge-pass", "--json", cwd=tmp_path)
    repeated = [c for c in json.loads(agree.stdout)["sets"] if c["samples"] == 3]
    assert len(repeated) == 1 and repeated[0]["groups"][-1]["compared"] == 12
    assert repeated[0]["groups"][-1]["set_accuracy"] == 0.0
    plan = run_cobe("plan", str(run), cwd=tmp_path)
    assert plan.returncode == 0 and "pass rate 0.0%" in plan.stdout


def test_repeats_and_samples_are_one_setting(tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 1)
    run = tmp_path / "run"
    assert run_cobe("generate", "-m", "mock/echo", "--data", str(data), "--run-dir", str(run)).returncode == 0
    both = run_cobe("judge", str(run), "--judge", "mock/judge-fail", "--repeats", "3", "--judge-samples", "2")
    assert_one_line_error(both, "--repeats 3 and --judge-samples 2: both set how often each check is asked")
