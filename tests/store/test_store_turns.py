"""Store.calls_by_turn: the calls that finish in one turn of the event loop are one commit, made at the end of
the turn or with the next other write, so none is left uncommitted across a wait (issue 42, priority 2)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator

import pytest

from cobe.store.store import Store
from support.store_reads import stored_count
from support.store_rows import call_row


@pytest.fixture
def store(tmp_path) -> Iterator[Store]:
    """A store in the test's folder; `stored_count(tmp_path)` reads it as another connection would."""
    store = Store(tmp_path / "cobe.sqlite")
    yield store
    store.close()


def _call(key: str) -> dict:
    return call_row(key, response="T", cost_usd=None)


def _commits(store: Store) -> list[str]:
    said: list[str] = []
    store.db.set_trace_callback(lambda sql: said.append(sql) if sql.strip().upper() == "COMMIT" else None)
    return said


async def test_the_calls_of_one_turn_are_one_commit_at_its_end(store, tmp_path):
    commits = _commits(store)
    with store.calls_by_turn():
        for key in ("a", "b", "c"):
            store.put_call(_call(key))
        assert store.get_call("a") is not None  # the store's own reads see them at once
        assert stored_count(tmp_path) == 0
        await asyncio.sleep(0)  # the turn ends: before the loop could wait on anything, they are committed
        assert stored_count(tmp_path) == 3 and len(commits) == 1
        store.put_call(_call("d"))
    # leaving commits what the last turn holds
    assert stored_count(tmp_path) == 4 and len(commits) == 2


async def test_another_write_commits_the_waiting_calls_with_it(store, tmp_path):
    commits = _commits(store)
    with store.calls_by_turn():
        store.put_call(_call("a"))
        store.create_run("r1", {}, "0")  # what depends on a call (its response, verdicts) commits it too
        assert stored_count(tmp_path) == 1 and len(commits) == 1
        await asyncio.sleep(0)
        assert len(commits) == 1  # nothing was left for the end of the turn


async def test_a_batch_commits_the_waiting_calls_before_it_begins(store, tmp_path):
    with store.calls_by_turn():
        store.put_call(_call("a"))
        with store.batch():
            store.put_call(_call("b"))
            assert stored_count(tmp_path) == 1
        assert stored_count(tmp_path) == 2


async def test_a_failing_call_leaves_the_others_of_its_turn(store, tmp_path):
    with store.calls_by_turn():
        store.put_call(_call("a"))
        with pytest.raises(sqlite3.Error):
            store.put_call(_call("b") | {"role": None})  # NOT NULL
        store.put_call(_call("c"))
        await asyncio.sleep(0)
        assert stored_count(tmp_path) == 2


def test_outside_a_loop_turn_each_call_commits_alone(store, tmp_path):
    store.put_call(_call("a"))
    assert stored_count(tmp_path) == 1
