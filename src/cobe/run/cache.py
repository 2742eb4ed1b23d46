"""Call keys: identical calls share one key, so the store can answer them without a provider."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from cobe.models.base import GenerateConfig, Message


def canonical(obj: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, unicode kept, so equal inputs give equal bytes."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# fields added after calls were first stored: left out while unset, so every earlier key stays valid
_LATER_FIELDS = ("reasoning_effort",)


def settings_dict(config: GenerateConfig) -> dict[str, Any]:
    """Every sampling field, None included, so adding a default later cannot collide old keys.

    Fields added later (`_LATER_FIELDS`) appear only when set: a store written before them keeps
    answering the calls it holds, and a call that sets one gets a key of its own.
    """
    data = config.model_dump()
    if data.get("stop") is not None:
        data["stop"] = list(data["stop"])
    for name in _LATER_FIELDS:
        if data.get(name) is None:
            data.pop(name, None)
    return data


def messages_list(messages: list[Message]) -> list[dict[str, str]]:
    """Messages as plain dicts (role, content)."""
    return [{"role": m.role, "content": m.content} for m in messages]


def call_key(
    spec: str, model: str, settings: dict[str, Any], messages: list[dict[str, str]], attempt: int = 0, sample: int = 0
) -> str:
    """sha256 of the canonical request; `attempt` > 0 (a re-ask) or `sample` > 0 (a repeat) makes a distinct call."""
    return request_key(request_body(spec, model, settings, messages, attempt, sample))[1]


def request_body(
    spec: str,
    model: str,
    settings: dict[str, Any],
    messages: list[dict[str, str]],
    attempt: int = 0,
    sample: int = 0,
) -> dict[str, Any]:
    """The request as the store records it; its canonical JSON is what the key hashes.

    `attempt` and `sample` appear only when above 0, so the first ask keeps the key it always had.
    """
    body: dict[str, Any] = {"spec": spec, "model": model, "settings": settings, "messages": messages}
    if attempt:
        body["attempt"] = attempt
    if sample:
        body["sample"] = sample
    return body


def request_key(body: dict[str, Any]) -> tuple[str, str]:
    """(canonical JSON, sha256 key) of a request body, serialised once for both uses."""
    text = canonical(body)
    return text, hashlib.sha256(text.encode("utf-8")).hexdigest()
