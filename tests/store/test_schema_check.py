"""A store whose tables are not what its migrations made stops every command that opens it before any work, in one
line naming the table (exit 2); a scenarios row that holds no scenario is one line naming its table and key.

Issue 43, item 10: a dropped table or a damaged scenarios row sent `eval` (resume), `judge`, `judge --show`,
`export --to inspect` and `judges agree` into OperationalError, IntegrityError or pydantic tracebacks (exit 1).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from cobe.store.damage import DamagedStore
from cobe.store.store import STORE_NAME, ReadOnlyStore, Store
from support.cli import assert_one_line_error, run_cobe
from support.run_data import write_dataset

TABLES = ("scenarios", "sessions", "calls", "runs", "verdicts", "responses", "verdict_sets", "endpoints")


def _commands(run: Path, data: Path) -> dict[str, tuple[str, ...]]:
    model = ("--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--no-report")
    return {
        "eval": ("eval", *model, "--run-dir", str(run)),
        "judge": ("judge", str(run), "--judge", "mock/judge-fail", "--no-report"),
        "judge --show": ("judge", str(run), "--show", "1", "--no-report"),
        "export": ("export", str(run), str(run.parent / "log.eval"), "--to", "inspect"),
        "judges agree": ("judges", "agree", str(run), "--reference", "1"),
        "runs --verdict-sets": ("runs", str(run), "--verdict-sets"),
    }


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of two scenarios, judged."""
    root = tmp_path_factory.mktemp("judged")
    data = write_dataset(root / "data.jsonl", 2)
    run = root / "run"
    args = ("--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--no-report")
    assert run_cobe("eval", *args, "--run-dir", str(run)).returncode == 0
    return run


def _damaged(judged: Path, tmp_path: Path, *sql: str) -> Path:
    run = tmp_path / "run"
    shutil.copytree(judged, run)
    shutil.copy(judged.parent / "data.jsonl", tmp_path / "data.jsonl")
    db = sqlite3.connect(run / STORE_NAME)
    for statement in sql:
        db.execute(statement)
    db.commit()
    db.close()
    return run


@pytest.mark.parametrize("table", TABLES)
def test_a_dropped_table_stops_every_command_in_one_line_naming_it(judged, tmp_path, table):
    run = _damaged(judged, tmp_path, f"DROP TABLE {table}")
    before = (run / STORE_NAME).read_bytes()
    for name, args in _commands(run, tmp_path / "data.jsonl").items():
        result = run_cobe(*args)
        assert result.returncode == 2, (name, result.stderr)
        assert_one_line_error(result, f"{run / STORE_NAME}: damaged cobe store (table {table} is missing)")
    assert (run / STORE_NAME).read_bytes() == before  # refused before any work: nothing written
    listed = run_cobe("runs", str(tmp_path))
    assert listed.returncode == 0 and f"damaged (table {table} is missing)" in listed.stdout, listed.stdout


def test_a_table_made_again_without_its_not_null_is_named(judged, tmp_path):
    run = _damaged(
        judged,
        tmp_path,
        "CREATE TABLE loose (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs(id), command TEXT,"
        " started TEXT NOT NULL, finished TEXT, state TEXT, stats TEXT)",
        "INSERT INTO loose SELECT * FROM sessions",
        "DROP TABLE sessions",
        "ALTER TABLE loose RENAME TO sessions",
    )
    result = run_cobe(*_commands(run, tmp_path / "data.jsonl")["judge"])
    assert result.returncode == 2
    assert_one_line_error(result, "(table sessions: column command allows NULL; cobe made it NOT NULL)")


def test_a_dropped_column_is_named(judged, tmp_path):
    run = _damaged(judged, tmp_path, "ALTER TABLE runs DROP COLUMN judge_members")
    result = run_cobe(*_commands(run, tmp_path / "data.jsonl")["judge --show"])
    assert result.returncode == 2
    assert_one_line_error(result, "damaged cobe store (table runs: column judge_members is missing)")


@pytest.mark.parametrize(
    "data",
    ["'{bad'", "'[]'", "json_set(data, '$.core_id', 'x')", "json_set(data, '$.core_id', json('[1]'))", "X'00ff'"],
    ids=["not-json", "a-list", "core-id-a-string", "core-id-a-list", "a-blob"],
)
def test_a_scenarios_row_that_is_no_scenario_is_named_by_its_table_and_key(judged, tmp_path, data):
    run = _damaged(judged, tmp_path, f"UPDATE scenarios SET data = {data} WHERE id = '2v0'")
    commands = _commands(run, tmp_path / "data.jsonl")
    for name in ("judge", "judge --show", "export"):
        result = run_cobe(*commands[name])
        assert result.returncode == 2, (name, result.stderr)
        assert_one_line_error(result, "damaged cobe store (scenarios.data of run ", ", scenario '2v0' is ")


def test_a_store_older_than_a_table_is_read_as_it_is(tmp_path):
    """The check asks for the tables of the migrations a store records: a listing reads an old store unmigrated."""
    path = tmp_path / STORE_NAME
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE endpoints")
    db.execute("DELETE FROM schema_migrations WHERE version = 10")
    db.commit()
    db.close()
    ReadOnlyStore(path, idle=True).close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE verdict_sets")
    db.commit()
    db.close()
    with pytest.raises(DamagedStore, match="table verdict_sets is missing"):
        ReadOnlyStore(path, idle=True)


def test_a_verdicts_settings_that_are_no_json_name_the_verdict(judged, tmp_path):
    run = _damaged(judged, tmp_path, "UPDATE verdicts SET judge_settings = '{bad' WHERE id = 1")
    commands = _commands(run, tmp_path / "data.jsonl")
    for name in ("eval", "judge --show", "export"):
        result = run_cobe(*commands[name])
        assert result.returncode == 2, (name, result.stderr)
        assert_one_line_error(result, "damaged cobe store (verdicts.judge_settings of verdict 1 is '{bad': expected")


def test_a_runs_epochs_that_are_no_count_are_named(judged, tmp_path):
    run = _damaged(judged, tmp_path, "UPDATE runs SET config = json_set(config, '$.epochs', 'x')")
    commands = _commands(run, tmp_path / "data.jsonl")
    for name in ("judge", "judge --show"):
        result = run_cobe(*commands[name])
        assert result.returncode == 2, (name, result.stderr)
        assert_one_line_error(result, "damaged cobe store (runs.config of run ", "has epochs 'x': expected a count")
