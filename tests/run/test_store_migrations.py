"""Migrations are append-only and carry an older store forward without losing a call."""

from __future__ import annotations

import sqlite3

import pytest

from cobe.run.store import Store, _migrations, now


def _call(key: str, role: str) -> dict:
    return {
        "key": key,
        "role": role,
        "spec": "mock/echo",
        "request": "{}",
        "response": "x",
        "finish_reason": "stop",
        "input_tokens": 1,
        "output_tokens": 1,
        "latency_s": 0.0,
        "error": None,
        "attempts": 1,
        "first_token_logprobs": None,
        "cost_usd": 0.0,
        "created": now(),
    }


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
    assert store.get_call("old")["response"] == "T"
    store.put_call(_call("new", "augment"))
    assert store.get_call("new")["role"] == "augment"
    store.close()
    assert Store(path).get_call("new") is not None  # reopening applies nothing twice
