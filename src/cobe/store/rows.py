"""The rows the store hands out: one NamedTuple per table its callers read, fields named as its columns.

A row is a plain tuple made by the cursor (`positional`: the query names its columns in the fields' order, so
nothing is looked up by name on the call path), read as attributes and checked by mypy; no caller outside
`cobe.store` sees a `sqlite3.Row` or the connection. Tables that later migrations widened (`runs`,
`verdict_sets`) are read by name (`by_name`) with a default for each later column, so a listing that reads
an older store without migrating it still gets whole rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, NamedTuple, NotRequired, TypedDict, TypeVar

from cobe.core.results import Verdict

Row = TypeVar("Row", bound=tuple[Any, ...])


class CallRow(NamedTuple):
    """One finished call (`calls`): the cache a repeated request is answered from."""

    key: str
    role: str
    spec: str
    request: str
    response: str | None
    finish_reason: str | None
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int
    cache_write_tokens: int
    latency_s: float
    error: str | None
    attempts: int
    first_token_logprobs: str | None  # JSON token → logprob
    cost_usd: float | None
    created: str
    sent: str | None
    reasoning_tokens: int


class ResponseRow(NamedTuple):
    """One respondent answer of a run (`responses`), by (model, scenario, template, epoch)."""

    id: int
    run_id: str
    model: str
    scenario_id: str
    template: str
    epoch: int
    call_key: str | None
    prompt: str | None
    text: str | None
    error: str | None
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    created: str
    finish_reason: str | None


class VerdictRow(NamedTuple):
    """One judge's verdict on one check of one response, for one sample (`verdicts`)."""

    id: int
    run_id: str
    response_id: int
    judge: str
    prompt_set: str
    prompt_fingerprint: str
    check_name: str
    sample: int
    verdict: Verdict | None  # None: unscored, or the call failed
    raw: str | None
    p_true: float | None
    unscored_reason: str | None
    error: str | None
    judge_settings: str  # JSON of the settings the judge was asked with
    call_key: str | None
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    created: str
    #: the temperature judge_settings names: read by `Store.response_verdicts` alone (None from `verdicts`)
    temperature: float | None = None


class RunRow(NamedTuple):
    """One run of a store (`runs`) and the verdict set its exports show."""

    id: str
    created: str
    updated: str
    config: str  # EvalConfig as JSON (checked where read: `damage.run_config`)
    state: str
    cobe_version: str
    judge: str | None
    judge_prompts: str | None
    judge_fingerprint: str | None
    judge_members: str | None = None  # migration 0006


class VerdictSetRow(NamedTuple):
    """A verdict set a run's exports have shown (`verdict_sets`)."""

    run_id: str
    judge: str
    judge_prompts: str
    identity: str
    members: str | None
    shown: str
    part: str | None = None  # migration 0011: the part of the run it judged, as JSON


class JudgedSet(NamedTuple):
    """A (judge, prompt set) with first-ask verdicts in a run: how many responses it judged, and when last."""

    judge: str
    prompt_set: str
    prompt_fingerprint: str
    responses: int
    last: str


class BatchRow(NamedTuple):
    """A judge batch submitted through a provider's batch API (`batches`)."""

    id: str
    spec: str
    state: str
    created: str
    updated: str
    request_count: int
    input_file_id: str  # the submission's ref (`BatchAPI.prepare`): every batch cobe records has one
    output_file_id: str | None
    error_file_id: str | None


class Usage(NamedTuple):
    """Tokens and cost added up over a group of calls (cost None where none of them was priced)."""

    input_tokens: int
    output_tokens: int
    cost_usd: float | None


class NewCall(TypedDict):
    """A finished call as `Store.put_call` records it (the prompt-cache counts 0, `sent` None where not given)."""

    key: str
    role: str
    spec: str
    request: str
    response: str | None
    finish_reason: str | None
    input_tokens: int
    output_tokens: int
    cached_input_tokens: NotRequired[int]
    cache_write_tokens: NotRequired[int]
    latency_s: float
    error: str | None
    attempts: int
    first_token_logprobs: str | None
    cost_usd: float | None
    created: str
    sent: NotRequired[str | None]
    reasoning_tokens: NotRequired[int]


class NewResponse(TypedDict):
    """A respondent answer as `Store.put_response` records it (epoch 1 where not given)."""

    run_id: str
    model: str
    scenario_id: str
    template: str
    epoch: NotRequired[int]
    call_key: str | None
    prompt: str | None
    text: str | None
    error: str | None
    finish_reason: str | None
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    created: str


class NewVerdict(TypedDict):
    """A verdict as `Store.put_verdicts` records it (sample 0 where not given)."""

    run_id: str
    response_id: int
    judge: str
    prompt_set: str
    prompt_fingerprint: str
    check_name: str
    sample: NotRequired[int]
    verdict: Verdict | None
    raw: str | None
    p_true: float | None
    unscored_reason: str | None
    error: str | None
    judge_settings: str
    call_key: str | None
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    created: str


class NewBatch(TypedDict):
    """A batch submission as `Store.put_batch` records it, before the provider names it."""

    id: str
    spec: str
    state: str
    created: str
    request_count: int
    input_file_id: str


def columns(row: type[tuple[Any, ...]], prefix: str = "") -> str:
    """The fields of a row type as a SELECT's column list, in order (`prefix`: a table alias and its dot)."""
    return ", ".join(prefix + name for name in row._fields)  # type: ignore[attr-defined]


def positional(row: Callable[..., Row]) -> Callable[[sqlite3.Cursor, tuple[Any, ...]], Row]:
    """A cursor's row factory making `row` of each result, the query's columns in the fields' order."""
    return lambda _cursor, values: row(*values)


def by_name(row: Callable[..., Row]) -> Callable[[sqlite3.Cursor, tuple[Any, ...]], Row]:
    """A cursor's row factory making `row` of each result by column name (`SELECT *` of a widened table)."""
    fields = set(row._fields)  # type: ignore[attr-defined]

    def make(cursor: sqlite3.Cursor, values: tuple[Any, ...]) -> Row:
        names = (column[0] for column in cursor.description)
        return row(**{name: value for name, value in zip(names, values) if name in fields})

    return make
