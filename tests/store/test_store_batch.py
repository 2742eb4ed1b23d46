"""Store.batch: the writes made while it is open are one commit, each write its own savepoint."""

from __future__ import annotations

import sqlite3

import pytest

from cobe.store.store import Store, now
from support.store_reads import stored_count
from support.store_rows import call_row


def _call(key: str) -> dict:
    return call_row(key, response="T", cost_usd=None)


def _verdict() -> dict:
    fields = "run_id response_id judge prompt_set prompt_fingerprint check_name verdict raw p_true unscored_reason"
    fields += " error judge_settings call_key input_tokens output_tokens cost_usd created"
    row: dict = dict.fromkeys(fields.split())
    return (
        row
        | {"run_id": "none", "response_id": 404, "judge": "j", "prompt_set": "p", "prompt_fingerprint": "f"}
        | {"check_name": "change", "judge_settings": "{}", "input_tokens": 0, "output_tokens": 0, "created": now()}
    )


def test_a_batch_commits_its_writes_together(tmp_path):
    store = Store(tmp_path / "cobe.sqlite")
    with store.batch():
        store.put_call(_call("a"))
        with store.batch():  # nested: the outer batch commits
            store.put_call(_call("b"))
        assert stored_count(store.path.parent) == 0  # nothing committed while it is open
    assert stored_count(store.path.parent) == 2
    store.put_call(_call("c"))  # outside a batch each write commits alone, as before
    assert stored_count(store.path.parent) == 3
    store.close()


def test_a_failing_write_in_a_batch_leaves_the_others(tmp_path):
    store = Store(tmp_path / "cobe.sqlite")
    with store.batch():
        store.put_call(_call("a"))
        with pytest.raises(sqlite3.IntegrityError):
            store.put_verdicts([_verdict()])  # refused: no such run or response
        store.put_call(_call("b"))
    assert stored_count(store.path.parent) == 2
    store.close()
