"""Rows as a run store takes them, for tests that write one straight into a Store."""

from __future__ import annotations

from typing import Any

from cobe.store.store import now


def call_row(key: str, role: str = "judge", **fields: Any) -> dict[str, Any]:
    """One finished call of `mock/echo` as `Store.put_call` takes it; `fields` replace the defaults."""
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
    } | fields
