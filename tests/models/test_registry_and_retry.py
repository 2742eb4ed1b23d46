"""Spec parsing, registry errors, and the shared retry helpers."""

from __future__ import annotations

import json
from email.utils import formatdate

import pytest

from cobe.core.errors import InputError
from cobe.models import get_provider, known_prefixes
from cobe.models.retry import is_malformed_body, is_transport_error, parse_retry_after, retryable_status


@pytest.mark.parametrize("spec", ["gpt-4", "openai/", "/model", ""])
def test_malformed_spec_is_one_line(spec):
    with pytest.raises(InputError, match="expected provider/model") as info:
        get_provider(spec)
    assert "\n" not in str(info.value)


def test_unknown_prefix_lists_known():
    with pytest.raises(InputError, match="unknown provider 'nope'") as info:
        get_provider("nope/x")
    assert "mock" in str(info.value) and "\n" not in str(info.value)
    assert {"openai", "openai-api", "anthropic", "google", "llamacpp", "local", "vllm", "mock", "baseline"} <= set(
        known_prefixes()
    )


def test_parse_retry_after():
    assert parse_retry_after("12") == 12.0
    assert parse_retry_after(" 1.5 ") == 1.5
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    now = 1_000_000.0
    assert parse_retry_after(formatdate(now + 30, usegmt=True), now=now) == pytest.approx(30.0)
    assert parse_retry_after(formatdate(now - 30, usegmt=True), now=now) == 0.0


def test_status_and_body_classification():
    assert retryable_status(429) and retryable_status(500) and retryable_status(529)
    assert not retryable_status(400) and not retryable_status(404) and not retryable_status(None)
    try:
        try:
            json.loads("{")
        except ValueError as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        assert is_malformed_body(outer)
    assert not is_malformed_body(ValueError("x"))
    assert is_transport_error(ConnectionResetError()) and is_transport_error(TimeoutError())
    assert not is_transport_error(ValueError())
