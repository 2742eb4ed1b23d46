"""A store holding what cobe never wrote there: `cobe runs RUN --verdict-sets` and `cobe judge RUN --show 1` say so
in one line and exit 2 (the README's "damaged store"), and `cobe runs ROOT` still lists every other run.

Issue 30, item 11: a members field that does not parse or has another shape, a blob where a time belongs, a
dropped table or a run configuration that is not JSON gave tracebacks (exit 1), and one run's bad configuration
made `cobe runs ROOT` exit 1, hiding every other run; `cobe eval` (and its `--dry-run`) into that run dir did too.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from cobe.store.store import STORE_NAME
from support.cli import assert_one_line_error, run_cobe
from support.run_data import write_dataset

# damage → (the SQL that does it, whether a listing of verdict sets reads what it damaged)
DAMAGES = {
    "members not JSON": ("UPDATE verdict_sets SET members = '{bad'", True),
    "members a list": ("UPDATE verdict_sets SET members = '[]'", True),
    "a member without fields": ("""UPDATE verdict_sets SET members = '{"members":[{}]}'""", True),
    "samples not a number": ("UPDATE verdict_sets SET members = json_set(members, '$.samples', 'x')", True),
    "run's members not JSON": ("UPDATE runs SET judge_members = '{bad'", True),
    "shown a blob": ("UPDATE verdict_sets SET shown = X'00ff10'", True),
    # a store made before the list of verdict sets reads its sets from the verdicts: so does a listing of this one
    "verdict_sets dropped": ("DROP TABLE verdict_sets", False),
    "verdicts dropped": ("DROP TABLE verdicts", True),
    "runs dropped": ("DROP TABLE runs", True),
    "scenarios dropped": ("DROP TABLE scenarios", False),
    "config not JSON": ("UPDATE runs SET config = '{bad'", False),
}


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run judged by one judge, then by a panel: two verdict sets, each with its members recorded."""
    root = tmp_path_factory.mktemp("judged")
    run_dir = root / "run"
    data = write_dataset(root / "data.jsonl", 2)
    args = ("--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--run-dir", str(run_dir))
    assert run_cobe("eval", *args, "--no-report").returncode == 0
    panel = ("--judge", "mock/judge-pass", "--judge", "mock/judge-fail")
    # a panel of two that always disagree ties on every check: every row unscored, the run unmeasured (exit 8)
    assert run_cobe("judge", str(run_dir), *panel, "--no-report").returncode == 8
    return run_dir


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_store_is_one_line_exit_2_and_the_other_runs_are_still_listed(judged, tmp_path, damage):
    sql, listing_reads_it = DAMAGES[damage]
    root = tmp_path / "runs"
    shutil.copytree(judged, root / "damaged")
    shutil.copytree(judged, root / "healthy")
    damaged = root / "damaged"
    db = sqlite3.connect(damaged / STORE_NAME)
    db.execute(sql)
    db.commit()
    db.close()
    commands = [("judge", str(damaged), "--show", "1", "--no-report")]
    if listing_reads_it:
        commands.append(("runs", str(damaged), "--verdict-sets"))
    for args in commands:
        result = run_cobe(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert_one_line_error(result, f"{damaged / STORE_NAME}: damaged cobe store (")
    listed = run_cobe("runs", str(root), "--json")
    assert listed.returncode == 0, listed.stderr
    states = {Path(entry["run_dir"]).name: entry["state"] for entry in json.loads(listed.stdout)["runs"]}
    assert states["healthy"] == "unmeasured"  # its panel ties on every check (the fixture says why)
    if damage in ("config not JSON", "runs dropped"):  # what a listing reads of a run
        assert states["damaged"].startswith("damaged ("), states
    table = run_cobe("runs", str(root))
    assert table.returncode == 0 and str(root / "healthy") in table.stdout


def test_a_superscript_digit_names_no_verdict_set(judged, tmp_path):
    run_dir = tmp_path / "run"
    shutil.copytree(judged, run_dir)
    result = run_cobe("judge", str(run_dir), "--show", "²", "--no-report")
    assert result.returncode == 2
    assert_one_line_error(result, "--show ²: names no verdict set of")


@pytest.mark.parametrize("dry_run", [False, True], ids=["resume", "dry-run"])
@pytest.mark.parametrize("config", ["{bad", "[]", '{"data": 1}'])
def test_eval_into_a_run_dir_whose_config_is_damaged_is_one_line_exit_2(judged, tmp_path, config, dry_run):
    run_dir = tmp_path / "run"
    shutil.copytree(judged, run_dir)
    db = sqlite3.connect(run_dir / STORE_NAME)
    db.execute("UPDATE runs SET config = ?", (config,))
    db.commit()
    db.close()
    data = judged.parent / "data.jsonl"
    args = ("--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--run-dir", str(run_dir))
    result = run_cobe("eval", *args, "--no-report", *(["--dry-run"] if dry_run else []))
    assert result.returncode == 2, result.stderr
    assert_one_line_error(result, f"{run_dir / STORE_NAME}: damaged cobe store (runs.config of run ")
