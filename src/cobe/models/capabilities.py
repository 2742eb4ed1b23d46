"""What each model accepts, as data: the capability table (`capabilities.yaml`), a user's rows laid over it
(`--models-file` / COBE_MODELS_FILE), and per-model arguments (`--model-arg SPEC:FIELD=VALUE`).

    caps = capabilities("openai/gpt-5.4")          # ModelCapabilities: api, token_param, efforts, ...
    caps.thinks(None)                              # False: gpt-5.4 thinks only when asked

A model gets every row of its provider whose `match` fits its name, least specific first, each laid over
the ones before it; then the matching rows of the user's file, the same way; then its model arguments.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from cobe.core.errors import InputError
from cobe.core.files import file_kind
from cobe.core.jsonfile import read_mapping
from cobe.models.settings import MaxTokens, ReasoningEffort, ThinkingBudget

BUNDLED_TABLE = Path(str(files("cobe.models").joinpath("capabilities.yaml")))
MODELS_FILE_ENV = "COBE_MODELS_FILE"
#: settings a row may list under `sampling` / `sampling_when_thinking`
SAMPLING = ("temperature", "top_p", "seed", "stop", "logprobs")
#: cobe's own providers (local weights, scripts, baselines) share the table's `local` rows
LOCAL = "local"
TableProvider = Literal["openai", "openai-api", "anthropic", "google", "local"]
_TABLE_PROVIDERS = frozenset(get_args(TableProvider))
#: the largest models file read: the bundled table is ~13 KB; a file far past this is a mistake, and parsing
#: YAML of tens of megabytes takes minutes and gigabytes before any row could be refused
MAX_MODELS_FILE_BYTES = 1024 * 1024

Api = Literal["chat", "responses", "completions", "messages", "generate_content", "local"]
#: what an API fixes whichever model it serves, laid over the model's rows: the Responses API takes its limit as
#: max_output_tokens of 16 or more, and has neither seed nor stop (a model switched to it keeps what it can); the
#: completions endpoint (a base model's plain prompt) takes max_tokens and no thinking setting
API_FIXED: dict[str, dict[str, Any]] = {
    "responses": {"token_param": "max_output_tokens", "min_output_tokens": 16, "without": ("seed", "stop")},
    "completions": {
        "token_param": "max_tokens",
        "min_output_tokens": 1,
        "without": (),
        "fields": {"reasoning": "none", "efforts": (), "provider_default": "none", "default_effort": None},
    },
}
TokenParam = Literal["max_tokens", "max_completion_tokens", "max_output_tokens"]
Reasoning = Literal["none", "effort", "budget", "adaptive", "level", "fixed"]
Sampling = Literal["temperature", "top_p", "seed", "stop", "logprobs"]


class Budget(BaseModel):
    """The thinking tokens a budget-taking model accepts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min: ThinkingBudget
    max: Annotated[ThinkingBudget, Field(ge=1)]

    @model_validator(mode="after")
    def _ordered(self) -> Budget:
        if self.min > self.max:
            raise ValueError(f"budget min {self.min} is more than its max {self.max}")
        return self


class Row(BaseModel):
    """One row of the table as written: a provider, a name pattern, and the fields it sets (the rest unset)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # a row no model can ever read is a mistake: a provider the table has no rows for (`opnai`), an empty match
    provider: TableProvider
    match: Annotated[str, Field(min_length=1, pattern=r"\S")]
    api: Api | None = None
    token_param: TokenParam | None = None
    min_output_tokens: MaxTokens | None = None
    sampling: tuple[Sampling, ...] | None = None
    sampling_when_thinking: tuple[Sampling, ...] | None = None
    reasoning: Reasoning | None = None
    efforts: tuple[ReasoningEffort, ...] | None = None
    provider_default: ReasoningEffort | Literal["auto"] | None = None
    default_effort: ReasoningEffort | None = None
    budget: Budget | None = None
    provider_temperature: bool | None = None
    example: str | None = None  # a model name the row is for, where `match` is a pattern

    def fields_set(self) -> dict[str, Any]:
        """The capability fields this row sets (an explicit null counts: `default_effort: null` sends nothing)."""
        return {name: getattr(self, name) for name in self.model_fields_set - {"provider", "match", "example"}}

    @property
    def specificity(self) -> int:
        """How narrowly `match` names models: its literal characters (a [...] class counts once)."""
        text, count, inside = self.match, 0, False
        for char in text:
            if char == "[":
                inside = True
            elif char == "]" and inside:
                inside, count = False, count + 1
            elif not inside and char not in "*?":
                count += 1
        return count


class ModelCapabilities(BaseModel):
    """What one model accepts, every field resolved: the rows that matched it, laid over each other."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str
    api: Api
    token_param: TokenParam
    min_output_tokens: MaxTokens
    sampling: tuple[Sampling, ...]
    sampling_when_thinking: tuple[Sampling, ...]
    reasoning: Reasoning
    efforts: tuple[ReasoningEffort, ...]
    provider_default: ReasoningEffort | Literal["auto"]
    default_effort: ReasoningEffort | None
    budget: Budget | None
    # True: a respondent is sent no temperature unless one is asked (--temperature, --model-arg), so it samples
    # at its provider's own default (Gemini 3: 1.0, where Google warns that lower values may loop or degrade)
    provider_temperature: bool = False
    rows: tuple[str, ...] = ()  # "provider:match" of every row laid over it, for `cobe` messages and docs

    @model_validator(mode="after")
    def _coherent(self) -> ModelCapabilities:
        if self.reasoning == "budget" and self.budget is None:
            raise ValueError("reasoning: budget needs budget: {min, max}")
        if self.default_effort is not None and self.reasoning in ("none", "fixed"):
            raise ValueError(f"default_effort {self.default_effort} for a model with reasoning {self.reasoning}")
        if self.default_effort is not None and self.default_effort not in self.efforts:
            raise ValueError(f"default_effort {self.default_effort} is not one of its efforts {list(self.efforts)}")
        return self

    @property
    def can_turn_off(self) -> bool:
        """Whether thinking can be off (--reasoning-effort none)."""
        return self.reasoning == "none" or "none" in self.efforts or self.provider_default == "none"

    def thinks(self, effort: str | None) -> bool:
        """Whether the model thinks when asked at `effort` (None: when no level is sent)."""
        if self.reasoning == "none":
            return False
        if self.reasoning == "fixed":
            return True
        if effort is not None:
            return effort != "none"
        return self.provider_default != "none"

    def allowed(self, thinking: bool) -> tuple[Sampling, ...]:
        """The sampling settings sent while the model thinks (or not)."""
        return self.sampling_when_thinking if thinking else self.sampling


@dataclass(frozen=True)
class Table:
    """Rows in the order they are laid: bundled first, then a user's file."""

    rows: tuple[Row, ...]

    def matching(self, provider: str, name: str) -> list[Row]:
        """The rows of `provider` that match `name`, least specific first (an exact name last), in file order on ties."""
        hits = [(i, row) for i, row in enumerate(self.rows) if row.provider == provider and _fits(row.match, name)]
        return [row for _, row in sorted(hits, key=lambda hit: (hit[1].match == name, hit[1].specificity, hit[0]))]


def _fits(pattern: str, name: str) -> bool:
    return pattern == name or fnmatchcase(name, pattern)


def read_rows(path: Path, what: str, max_bytes: int | None = None) -> tuple[Row, ...]:
    """The rows of a capability file: `rows:` a list of rows; a typo is one line naming the file, row and field."""
    data = read_mapping(path, what, max_bytes=max_bytes)
    unknown = set(data) - {"rows"}
    if unknown:
        raise InputError(f"{path}: unknown key(s) {', '.join(sorted(map(str, unknown)))}; expected rows: [...]")
    entries = data.get("rows") or []
    if not isinstance(entries, list):
        raise InputError(f"{path}: rows: expected a list of rows (provider, match, fields)")
    rows = []
    for number, entry in enumerate(entries, 1):
        try:
            rows.append(Row.model_validate(entry))
        except ValidationError as exc:
            raise InputError(f"{path}: row {number}{_row_name(entry)}: {_problem(exc)}") from None
    return tuple(rows)


def _row_name(entry: Any) -> str:
    if isinstance(entry, dict) and entry.get("provider") and entry.get("match"):
        return f" ({entry['provider']} {entry['match']})"
    return ""


def _problem(exc: ValidationError) -> str:
    """A pydantic error as `field effors: unknown field; known: ...` or `field api: Input should be ...`."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "row"
    if first["type"] == "extra_forbidden":
        known = ", ".join(name for name in Row.model_fields)
        return f"unknown field {where!r}; known fields: {known}"
    if first["type"] == "missing":
        return f"field {where!r} is required"
    return f"field {where!r}: {said(first)}"


def said(error: Any) -> str:
    """A pydantic error's message without the "Value error, " it puts before a validator's own words."""
    return str(error["msg"]).removeprefix("Value error, ")


@cache
def bundled_table() -> Table:
    """The capability table cobe ships."""
    return Table(read_rows(BUNDLED_TABLE, "the capability table (YAML)"))


@cache
def _user_rows(path: str, stamp: float, size: int) -> tuple[Row, ...]:
    return read_rows(Path(path), "a models file (YAML)", MAX_MODELS_FILE_BYTES)


def user_rows(path: str | Path | None) -> tuple[Row, ...]:
    """The rows of a --models-file (or COBE_MODELS_FILE when no path is given); none without one."""
    chosen = path or os.environ.get(MODELS_FILE_ENV)
    if not chosen:
        return ()
    target = Path(chosen).expanduser()
    try:
        info = target.stat()  # a stat never blocks, whatever the path is (a FIFO, /dev/zero)
    except FileNotFoundError:
        raise InputError(f"--models-file {chosen}: no such file") from None
    except OSError as exc:
        raise InputError(f"--models-file {chosen}: cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"--models-file {chosen}: is {file_kind(info.st_mode)}, not a regular file; expected YAML")
    if info.st_size > MAX_MODELS_FILE_BYTES:
        raise InputError(
            f"--models-file {chosen}: {info.st_size:,} bytes, more than the {MAX_MODELS_FILE_BYTES:,} a models file "
            "may hold (a few rows of capability fields)"
        )
    return _user_rows(str(target), info.st_mtime, info.st_size)


def table_provider(prefix: str) -> str:
    """The provider whose rows a spec's prefix reads: its own, or `local` for cobe's local providers."""
    return prefix if prefix in _TABLE_PROVIDERS else LOCAL


def model_name(spec: str) -> tuple[str, str]:
    """(table provider, the name rows match): `openai-api/vllm/org/m` matches on `org/m`."""
    prefix, _, model = spec.partition("/")
    if prefix == "openai-api":
        model = model.partition("/")[2] or model
    return table_provider(prefix), model


def capabilities(
    spec: str, models_file: str | Path | None = None, args: Mapping[str, Any] | None = None
) -> ModelCapabilities:
    """What `spec` accepts: the bundled rows, then those of `models_file` (or COBE_MODELS_FILE), then `args`
    (capability fields given with --model-arg); an incoherent result is one line naming the model."""
    provider, name = model_name(spec)
    table = Table(bundled_table().rows + user_rows(models_file))
    rows = table.matching(provider, name)
    fields: dict[str, Any] = {}
    for row in rows:
        fields.update(row.fields_set())
    fields.update(args or {})
    fixed = API_FIXED.get(str(fields.get("api")))
    if fixed is not None:
        fields["token_param"] = fixed["token_param"]
        fields["min_output_tokens"] = max(int(fields.get("min_output_tokens") or 1), fixed["min_output_tokens"])
        for name in ("sampling", "sampling_when_thinking"):
            fields[name] = tuple(s for s in fields.get(name) or () if s not in fixed["without"])
        fields.update(fixed.get("fields", {}))
    try:
        return ModelCapabilities(spec=spec, rows=tuple(f"{r.provider} {r.match}" for r in rows), **fields)
    except ValidationError as exc:
        raise InputError(f"model {spec}: its capability rows do not fit together: {_problem(exc)}") from None


def capability_fields() -> tuple[str, ...]:
    """The fields a --model-arg may set on a model's capabilities."""
    return tuple(name for name in Row.model_fields if name not in ("provider", "match", "example"))


def describe(rows: Iterable[Row]) -> list[str]:
    """`provider match` of rows, for listings."""
    return [f"{row.provider} {row.match}" for row in rows]
