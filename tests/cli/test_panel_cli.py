"""`cobe eval` and `cobe judge` with a judge panel (--judge repeated or a comma list) and --judge-samples."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import assert_one_line_error, run_cobe
from support.run_data import write_dataset


def summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def test_judge_repeated_and_comma_lists_name_one_panel(tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 2)
    base = ["eval", "-m", "mock/echo", "--data", str(data), "--no-report", "-q"]
    judges = ["--judge", "mock/judge-pass,mock/judge-fail", "--judge", "mock/fixed:T"]
    done = run_cobe(*base, *judges, "--run-dir", "a", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    panel = summary(tmp_path / "a")
    assert panel["judge"] == "panel(mock/judge-pass, mock/judge-fail, mock/fixed:T)"
    assert panel["models"]["mock/echo"]["accuracy"] == 100.0
    # the same three judges in another order: the same judge, nothing asked again
    reverse = ["-j", "mock/fixed:T", "-j", "mock/judge-fail", "-j", "mock/judge-pass"]
    rejudge = run_cobe("judge", "a", *reverse, "-q", "--no-report", cwd=tmp_path)
    assert rejudge.returncode == 0 and "judge 0 calls" in rejudge.stdout
    assert summary(tmp_path / "a")["judge_fingerprint"] == panel["judge_fingerprint"]


def test_judge_samples_from_the_command_line(tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 1)
    done = run_cobe(
        "eval",
        "-m",
        "mock/echo",
        "--data",
        str(data),
        "--judge",
        "mock/judge-pass",
        "--judge-samples",
        "3",
        "--run-dir",
        "s",
        "--no-report",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "judge 27 calls" in done.stdout  # 3 phrasings × 3 checks × 3 samples
    assert "note: --judge-samples 3: the judge is asked at temperature 1.0" in done.stderr
    assert summary(tmp_path / "s")["judge_samples"] == 3


def test_panel_mistakes_are_one_line_each(tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 1)
    base = ["eval", "-m", "mock/echo", "--data", str(data), "-q"]
    assert_one_line_error(run_cobe(*base, "-j", "mock/judge-pass", "-j", "mock/judge-pass"), "named twice")
    zero = run_cobe(*base, "-j", "mock/judge-pass", "--judge-samples", "2", "--judge-temperature", "0")
    assert_one_line_error(zero, "choose a temperature above 0")
