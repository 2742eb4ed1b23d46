"""Scripted models for tests and dry runs: `mock/echo`, `mock/fixed:TEXT`, `mock/cycle:A,B`,
`mock/file:PATH`, `mock/judge-pass`, `mock/judge-fail`."""

from __future__ import annotations

import asyncio
import itertools
import math
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from cobe.core.errors import InputError
from cobe.core.jsonfile import read_json, read_yaml
from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider
from cobe.models.registry import register
from cobe.models.retry import word_count

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

FORMS = "echo, fixed:TEXT, cycle:A,B,..., file:PATH, judge-pass, judge-fail"


def last_user_text(messages: list[Message]) -> str:
    """The content of the last user message ('' if there is none)."""
    for message in reversed(messages):
        if message.role == "user":
            return message.content
    return ""


def _latency() -> float:
    raw = os.environ.get("COBE_MOCK_LATENCY")
    if not raw:
        return 0.0
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise InputError(f"COBE_MOCK_LATENCY={raw!r}: expected a number of seconds >= 0")
    return value


def _load_script(spec: str, path: str) -> list[str] | dict[str, str]:
    file = Path(path).expanduser()
    if not file.exists():
        raise InputError(f"model spec {spec!r}: mock script {file} does not exist")
    what = "a mock script (JSON or YAML)"
    data = read_json(file, what) if file.suffix.lower() == ".json" else read_yaml(file, what)
    if isinstance(data, list) and data and all(isinstance(x, str) for x in data):
        return data
    if isinstance(data, dict) and data and all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        return data
    raise InputError(f"mock script {file}: expected a non-empty list of strings or a mapping of substring → string")


class MockProvider(Provider):
    """Answers from a script with no network; token counts are whitespace word counts."""

    def __init__(self, spec: str, model: str, respond: Callable[[list[Message]], str], *, counts_calls: bool) -> None:
        super().__init__(spec, "mock", model)
        self._respond = respond
        self._counts_calls = counts_calls
        self._latency = _latency()
        self.calls = 0

    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, scenario: Scenario | None = None
    ) -> ModelOutput:
        """Answer from the script, truncated to max_tokens words."""
        self.calls += 1
        if self._latency:
            await asyncio.sleep(self._latency)
        text = self._respond(messages)
        finish = "stop"
        words = text.split()
        if config.max_tokens is not None and len(words) > config.max_tokens:
            text, finish = " ".join(words[: config.max_tokens]), "length"
        first = text.split()[0] if text.split() else ""
        return ModelOutput(
            text=text,
            finish_reason=finish,
            input_tokens=sum(word_count(m.content) for m in messages),
            output_tokens=word_count(text),
            latency_s=self._latency,
            first_token_logprobs={first: 0.0} if config.logprobs and first else None,
        )

    def max_connections(self) -> int:
        """No server behind it, so any concurrency is fine."""
        return 64

    def cacheable(self) -> bool:
        """Cycling scripts depend on call order, so their answers must not be replayed from the store."""
        return not self._counts_calls


def _cycler(outputs: list[str]) -> Callable[[list[Message]], str]:
    it: Iterator[str] = itertools.cycle(outputs)
    return lambda messages: next(it)


def _matcher(spec: str, table: dict[str, str]) -> Callable[[list[Message]], str]:
    default = table.get("default")
    keys = [k for k in table if k != "default"]

    def respond(messages: list[Message]) -> str:
        text = last_user_text(messages)
        for key in keys:
            if key in text:
                return table[key]
        if default is None:
            raise InputError(f"model spec {spec!r}: no script key matches the prompt and there is no 'default'")
        return default

    return respond


@register("mock")
def _mock_factory(spec: str, model: str) -> Provider:
    kind, _, arg = model.partition(":")
    if kind == "echo" and not arg:
        return MockProvider(spec, model, last_user_text, counts_calls=False)
    if kind in ("judge-pass", "judge-fail") and not arg:
        verdict = "T" if kind == "judge-pass" else "F"
        return MockProvider(spec, model, lambda messages: verdict, counts_calls=False)
    if kind == "fixed":
        return MockProvider(spec, model, lambda messages: arg, counts_calls=False)
    if kind == "cycle" and arg:
        return MockProvider(spec, model, _cycler(arg.split(",")), counts_calls=True)
    if kind == "file" and arg:
        script = _load_script(spec, arg)
        if isinstance(script, list):
            return MockProvider(spec, model, _cycler(script), counts_calls=True)
        return MockProvider(spec, model, _matcher(spec, script), counts_calls=False)
    raise InputError(f"model spec {spec!r}: unknown mock form; expected mock/ followed by one of {FORMS}")
