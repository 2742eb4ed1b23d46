"""Migrations are append-only and carry an older store forward without losing a call."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from cobe.core.sqlite import UnusableDatabase
from cobe.store import store as store_module
from cobe.store.store import MIGRATIONS, Store, _migrations, now
from support.store_rows import call_row


def test_store_made_by_the_first_migration_is_upgraded_in_place(tmp_path):
    path = tmp_path / "cobe.sqlite"
    version, name, sql = _migrations()[0]
    db = sqlite3.connect(path)
    db.executescript(sql)
    db.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)"
    )
    db.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, now()))
    db.commit()
    with pytest.raises(sqlite3.IntegrityError):  # the old schema knew only two roles
        db.execute("INSERT INTO calls (key, role, spec, request, created) VALUES ('k', 'augment', 's', '{}', 'now')")
    db.execute(
        "INSERT INTO calls (key, role, spec, request, response, created) VALUES ('old', 'judge', 's', '{}', 'T', 'now')"
    )
    db.commit()
    db.close()

    store = Store(path)
    applied = [row[0] for row in store.db.execute("SELECT version FROM schema_migrations ORDER BY version")]
    assert applied == [v for v, _, _ in _migrations()]
    assert store.get_call("old").response == "T"
    store.put_call(call_row("new", "augment"))
    assert store.get_call("new").role == "augment"
    store.close()
    assert Store(path).get_call("new") is not None  # reopening applies nothing twice


def _old_code_store(path: Path) -> None:
    """A store exactly as cobe wrote it before the shared helper: every migration recorded in schema_migrations."""
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)"
    )
    for version, name, sql in _migrations():
        with db:
            for statement in sql.split(";\n"):  # the old runner's split
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, "2025-01-01T00:00:00Z"))
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(
        "INSERT INTO runs (id, created, updated, config, state, cobe_version) VALUES ('r1', 'a', 'b', '{}', 'complete', '0')"
    )
    db.commit()
    db.close()


def test_a_store_made_by_the_old_runner_is_adopted_as_it_is(tmp_path):
    path = tmp_path / "cobe.sqlite"
    _old_code_store(path)
    store = Store(path)
    recorded = store.db.execute("SELECT version, name, applied FROM schema_migrations ORDER BY version").fetchall()
    assert [tuple(r) for r in recorded] == [(v, n, "2025-01-01T00:00:00Z") for v, n, _ in _migrations()]
    assert store.latest_run().id == "r1"
    store.put_call(call_row("k", "augment"))
    store.close()


def test_a_failing_store_migration_leaves_nothing_behind(tmp_path, monkeypatch):
    folder = tmp_path / "migrations"
    folder.mkdir()
    for source in MIGRATIONS.glob("*.sql"):
        (folder / source.name).write_text(source.read_text())
    (folder / "0099_broken.sql").write_text(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);\n"
        "CREATE INDEX notes_text ON notes (text);\n"
        "UPDATE runs SET state = 'complete';\n"
        "ALTER TABLE calls ADD COLUMN cost_usd REAL;\n"  # calls already has it: fails last
    )
    path = tmp_path / "cobe.sqlite"
    first = Store(path)
    first.create_run("r1", {}, "0")
    first.close()
    monkeypatch.setattr(store_module, "MIGRATIONS", folder)
    with pytest.raises(UnusableDatabase, match="duplicate column name: cost_usd"):
        Store(path)
    db = sqlite3.connect(path)
    assert db.execute("SELECT name FROM sqlite_master WHERE name LIKE 'notes%'").fetchall() == []
    assert [r[0] for r in db.execute("SELECT version FROM schema_migrations")] == [v for v, _, _ in _migrations()[:-1]]
    assert db.execute("SELECT state FROM runs").fetchone()[0] == "running"


def test_store_files_are_private(tmp_path):
    old = os.umask(0o022)
    try:
        store = Store(tmp_path / "run" / "cobe.sqlite")
        store.put_call(call_row("k", "judge"))
        modes = {p.name: p.stat().st_mode & 0o777 for p in (tmp_path / "run").iterdir()}
        store.close()
    finally:
        os.umask(old)
    assert modes == {"cobe.sqlite": 0o600, "cobe.sqlite-wal": 0o600, "cobe.sqlite-shm": 0o600}


def test_responses_stored_before_0004_take_their_finish_reason_from_theircall_row(tmp_path):
    path = tmp_path / "cobe.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)"
    )
    for version, name, sql in _migrations():
        if version >= 4:
            break
        db.executescript(sql)
        db.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, now()))
    db.execute(
        "INSERT INTO runs (id, created, updated, config, state, cobe_version) VALUES ('r1', 'a', 'b', '{}', 'complete', '0')"
    )
    for key, reason in (("cut", "length"), ("whole", "stop")):
        db.execute(
            "INSERT INTO calls (key, role, spec, request, response, finish_reason, created)"
            " VALUES (?, 'respondent', 's', '{}', 'x', ?, 'now')",
            (key, reason),
        )
        db.execute(
            "INSERT INTO responses (run_id, model, scenario_id, template, call_key, text, created)"
            " VALUES ('r1', 'm', ?, 'A', ?, 'x', 'now')",
            (f"{key}v1", key),
        )
    db.commit()
    db.close()
    store = Store(path)
    reasons = {key[1]: row.finish_reason for key, row in store.responses("r1").items()}
    store.close()
    assert reasons == {"cutv1": "length", "wholev1": "stop"}


def test_verdicts_stored_before_0006_become_the_first_sample_and_samples_sit_beside_them(tmp_path):
    path = tmp_path / "cobe.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)"
    )
    for version, name, sql in _migrations():
        if version >= 6:
            break
        db.executescript(sql)
        db.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, now()))
    db.execute(
        "INSERT INTO runs (id, created, updated, config, state, cobe_version, judge, judge_prompts, judge_fingerprint)"
        " VALUES ('r1', 'a', 'b', '{}', 'complete', '0', 'mock/j', 'paper', 'fp')"
    )
    db.execute(
        "INSERT INTO responses (id, run_id, model, scenario_id, template, created) VALUES (7, 'r1', 'm', 's', 'A', 'x')"
    )
    db.execute(
        "INSERT INTO verdicts (run_id, response_id, judge, prompt_set, prompt_fingerprint, check_name, verdict,"
        " judge_settings, created) VALUES ('r1', 7, 'mock/j', 'paper', 'fp', 'preserve', 'T', '{\"temperature\": 0}', 'x')"
    )
    db.commit()
    db.close()
    store = Store(path)
    old = store.verdicts("r1", "mock/j", "fp")[(7, "preserve")]
    assert (old.verdict, old.sample) == ("T", 0)
    assert store.latest_run().judge_members is None  # one judge asked once, as recorded
    row = old._asdict() | {"sample": 1, "verdict": "F"}
    del row["id"]
    store.put_verdicts([row])
    samples = store.response_verdicts(7, "mock/j", "fp")
    assert {key: r.verdict for key, r in samples.items()} == {("preserve", 0): "T", ("preserve", 1): "F"}
    assert samples[("preserve", 0)].temperature == 0
    store.close()


def test_calls_stored_before_0008_read_as_having_touched_no_prompt_cache(tmp_path):
    from cobe.calls.caller import _from_row

    path = tmp_path / "cobe.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)"
    )
    for version, name, sql in _migrations():
        if version >= 8:
            break
        db.executescript(sql)
        db.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, now()))
    db.execute(
        "INSERT INTO calls (key, role, spec, request, response, input_tokens, created) "
        "VALUES ('old', 'judge', 's', '{}', 'T', 700, 'now')"
    )
    db.commit()
    db.close()
    store = Store(path)
    old = _from_row(store.get_call("old"))
    assert (old.input_tokens, old.cached_input_tokens, old.cache_write_tokens) == (700, 0, 0)
    store.put_call(call_row("new", "judge") | {"input_tokens": 700, "cached_input_tokens": 600})
    new = _from_row(store.get_call("new"))
    assert (new.cached_input_tokens, new.cache_write_tokens) == (600, 0)
    store.close()


def test_responses_stored_before_0009_are_the_first_epoch_and_the_shown_judge_is_a_verdict_set(tmp_path):
    path = tmp_path / "cobe.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)"
    )
    for version, name, sql in _migrations():
        if version >= 9:
            break
        db.executescript(sql)
        db.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, now()))
    db.execute(
        "INSERT INTO runs (id, created, updated, config, state, cobe_version, judge, judge_prompts, judge_fingerprint)"
        " VALUES ('r1', 'a', '2025-01-02T00:00:00Z', '{}', 'complete', '0', 'mock/j', 'paper', 'fp')"
    )
    db.execute(
        "INSERT INTO responses (id, run_id, model, scenario_id, template, text, finish_reason, created)"
        " VALUES (7, 'r1', 'm', 's', 'A', 'an answer', 'stop', 'x')"
    )
    db.execute(
        "INSERT INTO verdicts (run_id, response_id, judge, prompt_set, prompt_fingerprint, check_name, verdict,"
        " judge_settings, created) VALUES ('r1', 7, 'mock/j', 'paper', 'fp', 'preserve', 'T', '{}', 'x')"
    )
    db.commit()
    db.close()
    store = Store(path)
    first = store.response("r1", "m", "s", "A")
    assert (first.id, first.epoch, first.text, first.finish_reason) == (7, 1, "an answer", "stop")
    assert store.response("r1", "m", "s", "A", epoch=2) is None
    assert store.verdicts("r1", "mock/j", "fp")[(7, "preserve")].verdict == "T"  # still points at response 7
    (shown,) = store.verdict_sets("r1")
    assert (shown.judge, shown.judge_prompts, shown.identity, shown.shown) == (
        "mock/j",
        "paper",
        "fp",
        "2025-01-02T00:00:00Z",
    )
    second = first._asdict() | {"epoch": 2, "text": "another answer"}
    del second["id"]
    assert store.put_response(second) != 7  # a second epoch sits beside the first
    assert store.response("r1", "m", "s", "A", epoch=2).text == "another answer"
    assert list(store.responses("r1")) == [("m", "s", "A")]  # the first epoch's, keyed as before
    store.close()
