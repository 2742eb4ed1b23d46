"""Per-model arguments, in the spirit of inspect's `-M key=value`: `--model-arg SPEC:FIELD=VALUE`.

A FIELD is a generation setting (any `GenerateConfig` field: temperature, max_tokens, reasoning_effort,
thinking_budget, top_p, seed, ...) that every call to that model takes in place of the command's own, or a
capability field (api, token_param, efforts, ...: `cobe.models.capabilities`) laid over the model's row.
VALUE is read as YAML: `high`, `0.7`, `true`, `[low, high]`.

    args = ModelArgs.parse(["openai/gpt-5.4:reasoning_effort=high", "openai/gpt-5.4:api=responses"])
    args.settings("openai/gpt-5.4", base)   # base with reasoning_effort high
    args.capabilities("openai/gpt-5.4")     # the row, served through the Responses API
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cobe.core.errors import InputError
from cobe.models.base import GenerateConfig
from cobe.models.capabilities import ModelCapabilities, Row, capabilities, capability_fields, said

FLAG = "--model-arg"
#: GenerateConfig fields a model argument may set (`choices` belongs to a judge prompt set)
SETTING_FIELDS = tuple(name for name in GenerateConfig.model_fields if name != "choices")


def _value(text: str) -> Any:
    import yaml  # a dependency of cobe; only a command with model arguments reads one

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def _split(text: str) -> tuple[str, str, Any]:
    """(spec, field, value) of SPEC:FIELD=VALUE; the spec may itself hold ':' (mock/file:x.json)."""
    left, eq, raw = text.partition("=")
    spec, colon, name = left.rpartition(":")
    if not eq or not colon or "/" not in spec or not name.strip():
        raise InputError(
            f"{FLAG} {text!r}: expected SPEC:FIELD=VALUE, e.g. openai/gpt-5.4:reasoning_effort=high "
            "or anthropic/claude-opus-4-7:max_tokens=32000"
        )
    return spec.strip(), name.strip(), _value(raw.strip())


@dataclass(frozen=True)
class ModelArgs:
    """The model arguments and the models file of a command."""

    values: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # spec → field → value
    models_file: str | None = None

    @classmethod
    def parse(cls, args: Iterable[str] = (), models_file: str | Path | None = None) -> ModelArgs:
        """Read `--model-arg` values; an unknown field or a malformed one is one line (exit 2)."""
        known = (*SETTING_FIELDS, *capability_fields())
        values: dict[str, dict[str, Any]] = {}
        for text in args:
            spec, name, value = _split(text)
            if name not in known:
                raise InputError(f"{FLAG} {text!r}: unknown field {name!r}; known: {', '.join(known)}")
            values.setdefault(spec, {})[name] = value
        made = cls(values, str(models_file) if models_file else None)
        for spec in values:  # each value checked now, before a run directory, a store or a call
            made.capabilities(spec)
            made.settings(spec, GenerateConfig())
        return made

    def specs(self) -> list[str]:
        """The models that have arguments."""
        return list(self.values)

    def _fields(self, spec: str, names: Iterable[str]) -> dict[str, Any]:
        given = self.values.get(spec, {})
        return {name: given[name] for name in names if name in given}

    def capabilities(self, spec: str) -> ModelCapabilities:
        """The model's capability row, with the models file and its capability arguments laid over it."""
        args = self._fields(spec, capability_fields())
        if args:
            try:
                Row(provider="local", match=spec, **args)  # only the fields are checked here
            except ValidationError as exc:
                first = exc.errors()[0]
                name = str(first["loc"][0]) if first["loc"] else "?"
                raise InputError(f"{FLAG} {spec}:{name}={args.get(name)!r}: {said(first)}") from None
        return capabilities(spec, self.models_file, args)

    def settings(self, spec: str, base: GenerateConfig) -> GenerateConfig:
        """`base` with the model's generation arguments laid over it."""
        args = self._fields(spec, SETTING_FIELDS)
        if not args:
            return base
        if isinstance(args.get("stop"), (str, list)):
            args["stop"] = tuple([args["stop"]] if isinstance(args["stop"], str) else args["stop"])
        try:
            return GenerateConfig.model_validate(base.model_dump() | args)
        except ValidationError as exc:
            first = exc.errors()[0]
            name = str(first["loc"][0]) if first["loc"] else "?"
            raise InputError(f"{FLAG} {spec}:{name}={args.get(name)!r}: {said(first)}") from None

    def sets(self, spec: str, name: str) -> bool:
        """Whether the model's arguments give `name`."""
        return name in self.values.get(spec, {})


NO_MODEL_ARGS = ModelArgs()
