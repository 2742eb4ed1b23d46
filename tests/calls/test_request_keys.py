"""Call keys put together piece by piece are byte for byte the canonical JSON of the whole request."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from cobe.calls.keys import RequestKeys, canonical, settings_dict
from cobe.models.base import GenerateConfig, Message

MESSAGES = [
    Message(role="system", content='Judge "strictly" — ünïcode, \\ backslashes,\nnew lines'),
    Message(role="user", content="Story: the baker closed early.\tTabs and emoji 🍞"),
]


def whole_request(spec: str, model: str, settings: GenerateConfig, messages: list[Message], attempt: int, sample: int):
    """The key's definition, the slow way: the whole body made at once, then canonical JSON and its sha256."""
    body: dict[str, Any] = {
        "spec": spec,
        "model": model,
        "settings": settings_dict(settings),
        "messages": [{"role": m.role, "content": m.content} for m in messages],
    }
    if attempt:
        body["attempt"] = attempt
    if sample:
        body["sample"] = sample
    text = canonical(body)
    return text, hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.mark.parametrize(("attempt", "sample"), [(0, 0), (1, 0), (0, 2), (1, 3)])
@pytest.mark.parametrize(
    "settings",
    [
        GenerateConfig(temperature=0.0, max_tokens=5, logprobs=True),
        GenerateConfig(temperature=0.7, max_tokens=512, stop=("END",), reasoning_effort="medium"),
        GenerateConfig(),
    ],
)
def test_pieces_equal_the_canonical_body(settings: GenerateConfig, attempt: int, sample: int) -> None:
    whole = whole_request("openai/gpt-x", "gpt-x", settings, MESSAGES, attempt, sample)
    keys = RequestKeys()
    assert keys.request("openai/gpt-x", "gpt-x", settings, MESSAGES, attempt, sample) == whole
    assert keys.request("openai/gpt-x", "gpt-x", settings, MESSAGES, attempt, sample) == whole  # from the memo


def test_a_new_settings_object_is_serialised_anew() -> None:
    keys = RequestKeys()
    first = keys.request("s/m", "m", GenerateConfig(temperature=0.0), MESSAGES)
    second = keys.request("s/m", "m", GenerateConfig(temperature=1.0), MESSAGES)
    assert first[1] != second[1]
    assert '"temperature":1.0' in second[0]
