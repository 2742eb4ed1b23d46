"""A run directory resumes only the run it holds: another --epochs is refused in one line, like another --limit.

Issue 30, item 7: re-running a `--epochs 3` run directory with `--epochs 2` exited 0 and rewrote the exports
with two epochs of three (the third dropped, though stored). The epochs are part of what a run is.
"""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import assert_one_line_error, run_cobe


def _eval(data: Path, run_dir: Path, *more: str) -> list[str]:
    return [
        "eval",
        *("--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--run-dir", str(run_dir)),
        *(() if "--limit" in more else ("--limit", "2")),  # a flag is given once (a repeat is refused)
        *("--temperature", "0.5", "--no-report", *more),
    ]


def _epochs(run_dir: Path) -> list[int]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return sorted({row["epoch"] for row in rows})


def test_another_epochs_is_refused_and_the_stored_epochs_stay(data_file, tmp_path):
    run_dir = tmp_path / "run"
    assert run_cobe(*_eval(data_file, run_dir, "--epochs", "3")).returncode == 0
    assert _epochs(run_dir) == [1, 2, 3]
    exported = (run_dir / "results.jsonl").read_text()
    for other in ("2", "4"):
        refused = run_cobe(*_eval(data_file, run_dir, "--epochs", other))
        assert refused.returncode == 2, refused.stderr
        assert_one_line_error(refused, str(run_dir), "holds a run with different epochs")
    assert (run_dir / "results.jsonl").read_text() == exported  # nothing rewritten, epoch 3 kept
    assert run_cobe(*_eval(data_file, run_dir, "--epochs", "3")).returncode == 0  # the same run resumes


def test_a_different_limit_is_refused_as_before(data_file, tmp_path):
    run_dir = tmp_path / "run"
    assert run_cobe(*_eval(data_file, run_dir, "--epochs", "2")).returncode == 0
    refused = run_cobe(*_eval(data_file, run_dir, "--epochs", "2", "--limit", "3"))
    assert refused.returncode == 2
    assert_one_line_error(refused, "holds a run with different limit")
