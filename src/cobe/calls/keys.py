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
_LATER_FIELDS = ("reasoning_effort", "thinking_budget")


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


def with_endpoint(request: str, endpoint: str) -> tuple[str, str]:
    """(request JSON, key) of a stored request made before keys named their endpoint, as `RequestKeys` keys
    the same call sent to `endpoint` now."""
    text = canonical(json.loads(request) | {"endpoint": endpoint})
    return text, hashlib.sha256(text.encode("utf-8")).hexdigest()


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class RequestKeys:
    """The key of every call of a command: the sha256 of the canonical JSON (`canonical`) of the request
    body {spec, model, settings (`settings_dict`), messages (role, content), attempt, sample, endpoint},
    where `attempt` (a re-ask) and `sample` (a deliberate repeat) appear only when above 0, so a first ask
    keeps the key it always had, and `endpoint` (where a hosted or OpenAI-compatible provider sends it:
    `Provider.endpoint`, a URL without credentials) only for providers that have one: the same spec at
    another server is another call.

    The JSON is put together piece by piece in sorted-key order (attempt, endpoint, messages, model, sample,
    settings, spec), byte for byte what `canonical` makes of the whole body, with each settings object
    serialised once per command.
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
        endpoint: str | None = None,
    ) -> tuple[str, str]:
        """(canonical request JSON as the store records it, its sha256 key)."""
        plain = ",".join('{"content":' + _dumps(m.content) + ',"role":' + _dumps(m.role) + "}" for m in messages)
        text = "".join(
            (
                "{",
                f'"attempt":{attempt:d},' if attempt else "",
                f'"endpoint":{_dumps(endpoint)},' if endpoint is not None else "",
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
