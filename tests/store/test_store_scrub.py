"""The store's one door for calls scrubs every text a provider returned, whichever path made the call: the batch
path writes its answers straight through `Store.put_call` (issue 43, item 6)."""

from __future__ import annotations

import json

from cobe.calls.caller import scrubbed
from cobe.core.secrets import REDACTED
from cobe.models.base import ModelOutput
from cobe.store.store import Store
from support.store_rows import call_row

KEY = "Qm7vT2xR9pL4wZ8nB3kY6sD1"


def test_a_key_in_any_text_of_a_call_is_scrubbed_before_it_is_stored(tmp_path, monkeypatch):
    monkeypatch.setenv("DOOR_API_KEY", KEY)
    store = Store(tmp_path / "cobe.sqlite")
    try:
        logprobs = json.dumps({"T": -0.1, f"key {KEY}": -4.0})
        fields = {"response": f"T {KEY}", "finish_reason": f"stop {KEY}", "first_token_logprobs": logprobs}
        store.put_call(call_row("k1", **fields))
        row = store.get_call("k1")._asdict()
    finally:
        store.close()
    assert not [name for name, value in row.items() if KEY in str(value)]
    assert row["finish_reason"] == f"stop {REDACTED}"
    assert json.loads(row["first_token_logprobs"]) == {"T": -0.1, f"key {REDACTED}": -4.0}
    assert KEY.encode() not in (tmp_path / "cobe.sqlite").read_bytes()


def test_a_live_reply_is_scrubbed_in_every_text_before_anyone_reads_it(monkeypatch):
    monkeypatch.setenv("DOOR_API_KEY", KEY)
    output = ModelOutput(
        text=f"T {KEY}", finish_reason=f"stop {KEY}", first_token_logprobs={KEY: -0.5, f"{KEY}!": -0.2, "F": -3.0}
    )
    clean = scrubbed(output)
    assert KEY not in clean.model_dump_json()
    assert clean.first_token_logprobs == {REDACTED: -0.5, f"{REDACTED}!": -0.2, "F": -3.0}
    plain = ModelOutput(text="T", finish_reason="stop", first_token_logprobs={"T": -0.1})
    assert scrubbed(plain) is plain  # nothing to hide: the same object, no copy
