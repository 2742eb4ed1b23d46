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


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class RequestKeys:
    """`request_key(request_body(...))` for every call of a command, with each settings object serialised once.

    The canonical JSON is put together piece by piece in sorted-key order (attempt, messages, model,
    sample, settings, spec), so it is byte for byte what `canonical` makes of the whole body, and every
    stored key stays valid; only the settings' `model_dump` and its encoding are no longer redone per call.
    """

    def __init__(self) -> None:
        # id(settings) → (settings kept alive so the id is not reused, its canonical JSON)
        self._settings: dict[int, tuple[GenerateConfig, str]] = {}

    def settings_json(self, settings: GenerateConfig) -> str:
        """The canonical JSON of `settings_dict(settings)`, computed once per settings object."""
        held = self._settings.get(id(settings))
        if held is None or held[0] is not settings:
            held = (settings, canonical(settings_dict(settings)))
            self._settings[id(settings)] = held
        return held[1]

    def request(
        self,
        spec: str,
        model: str,
        settings: GenerateConfig,
        messages: list[Message],
        attempt: int = 0,
        sample: int = 0,
    ) -> tuple[str, str]:
        """(canonical request JSON, sha256 key), equal to `request_key(request_body(...))`."""
        plain = ",".join('{"content":' + _dumps(m.content) + ',"role":' + _dumps(m.role) + "}" for m in messages)
        text = "".join(
            (
                "{",
                f'"attempt":{attempt:d},' if attempt else "",
                '"messages":[',
                plain,
                '],"model":',
                _dumps(model),
                f',"sample":{sample:d}' if sample else "",
                ',"settings":',
                self.settings_json(settings),
                ',"spec":',
                _dumps(spec),
                "}",
            )
        )
        return text, hashlib.sha256(text.encode("utf-8")).hexdigest()
