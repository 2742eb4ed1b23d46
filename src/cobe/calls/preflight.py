"""The preflight: before a run spends money, one minimal call per distinct (model, settings) it will send, with
exactly those settings, so a model that refuses one is found on its first request, not on thousands.

A call goes through the Caller like any other: it is kept in the store (a run that repeats its command
answers it from there and pays nothing) and priced. A refusal for a setting or the model raises
`ModelRefused` (exit 2) naming the model, the parameter and the fix, and so does a refusal naming none (a
400 whose body is an HTML page, `{"error": "..."}` or nothing: its line holds the status and the body's first
line), since the run's calls would be refused alike; at most `AT_ONCE` probes are out
together, so even then no more than that many requests are refused. A refused API key stops the run
too (`AuthenticationFailed`, exit 6): every later call would be refused the same way. A reply the command cannot
use (an empty answer, a judge's answer with no T or F: the command's `ReplyCheck` says) stops the run as well
(`UnusableReplies`, exit 2), in one line showing the reply and what to try: the run's own calls would come back
alike. `cobe models check` asks the same calls and reports every probe instead of stopping at the first refusal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cobe.calls.caller import Caller, key_refused
from cobe.calls.refused import declined_line, preflight_refused, refused_line
from cobe.core.aio import settled
from cobe.core.errors import ModelRefused, UnusableReplies
from cobe.models.base import CallRecord, GenerateConfig, Message, Provider
from cobe.models.fitting import effective_settings

#: probes out at once; a run whose settings are all refused sees no more refusals than this
AT_ONCE = 3
#: what each role's probe asks. Short, fixed texts: a probe's key depends only on the model and settings,
#: so every run with them shares one stored answer. The judge's is not worded like a judge prompt, so no
#: stand-in server takes it for one, but it asks for the judge's answer, T or F, as a statement to check: a
#: judge that cannot answer it with a letter would leave the run's checks unscored (the command's check of the
#: reply stops the run there). Stated this way a base model asked in the plain completion format answers with a
#: letter too, where "Is water wet?" drew "Yes".
PROBES: dict[str, str] = {
    "respondent": "This is a connection check. Reply with the single word: ready",
    "judge": "This is a connection check. Water is wet. Is that statement true? Reply with one letter: T or F.",
}


@dataclass(frozen=True)
class Probe:
    """One (model, settings) a command will send, as the respondent's or the judge's."""

    provider: Provider
    settings: GenerateConfig
    role: str  # respondent or judge

    @property
    def label(self) -> str:
        """How lines name it: `openai/gpt-5.4 (judge)`."""
        return f"{self.provider.spec} ({self.role})"

    def messages(self) -> list[Message]:
        """The probe's one message."""
        return [Message(role="user", content=PROBES[self.role])]


#: what a command makes of a probe's answer: None where it can use it, else what came back, in words
ReplyCheck = Callable[[Probe, CallRecord], str | None]


def unusable(probe: Probe, record: CallRecord, problem: str) -> UnusableReplies:
    """The one line of a run stopped by a probe's reply: what came back, that nothing else was sent, what to try."""
    spec = probe.provider.spec
    if probe.provider.chat_template:  # asked through chat: the server formats the turns with the model's template
        fix = (
            "if the server has no chat template for this model (a base model: llama.cpp's server then falls back "
            "to the llama-2 format), give it one (llama.cpp: --chat_format NAME, or a GGUF that carries a template), "
            f"or ask the model through the completions endpoint in the plain completion format: -M {spec}:api=completions"
        )
    else:
        fix = "the model continues a plain prompt with nothing usable; check that the server serves the model meant"
        fix += ", or give the run another judge" if probe.role == "judge" else ""
    where = ""
    if record.cached:
        where = (
            "; that reply came from the store, from an earlier command: once the server is changed, ask again "
            "with --reask-unscored, or in a new run directory"
        )
    return UnusableReplies(
        f"{probe.label}: the preflight call's reply cannot be used ({problem}), so the run's calls would come back "
        f"alike; nothing else was sent{where}. {fix[0].upper()}{fix[1:]}"
    )


@dataclass(frozen=True)
class ProbeResult:
    """How one probe ended: answered (`record`), refused (`refused`, its line), or failed for another reason."""

    probe: Probe
    record: CallRecord | None
    refused: str | None = None
    skipped: bool = False  # an in-process provider: nothing is sent that an API could refuse
    key_refused: str | None = None  # the server refused the credentials (401/403): the line naming the variable
    unusable: str | None = None  # answered, but with nothing a run can use: the line of `unusable`

    @property
    def ok(self) -> bool:
        """Whether the model took the settings and answered usably (or, in-process, needs no check)."""
        return self.skipped or (self.record is not None and self.record.error is None and self.unusable is None)

    def line(self) -> str:
        """One line for `cobe models check`: ok with the call's cost, refused with the fix, or the error."""
        if self.skipped:
            return f"skipped  {self.probe.label}: runs in this process, so no API can refuse its settings"
        if self.refused is not None:
            return f"refused  {self.refused}"
        if self.key_refused is not None:
            return f"refused  {self.probe.label}: {self.key_refused}"
        if self.unusable is not None:
            return f"unusable {self.unusable}"
        record = self.record
        assert record is not None  # a probe that was not refused has a record
        if record.error is not None:
            return f"failed   {self.probe.label}: {record.error}"
        cost = "price unknown" if record.cost_usd is None else f"${record.cost_usd:.6f}"
        # from the store: said with how to ask the model itself again (the server may have changed since)
        where = (
            "answered from the store; another --run-dir asks again"
            if record.cached
            else f"{cost}, {record.latency_s:.1f} s"
        )
        return f"ok       {self.probe.label}: {describe_settings(self.probe)} accepted ({where})"


def describe_settings(probe: Probe) -> str:
    """What a probe sent, as its model's row fits the settings: `chat, max_completion_tokens 5, temperature 0.0,
    logprobs, thinking off`, and what was left out (`not sent: seed`)."""
    sent = effective_settings(probe.provider.capabilities, probe.settings)
    api, thinking, dropped = sent.pop("api"), sent.pop("thinking"), sent.pop("not_sent", [])
    parts = [str(api)]
    for name, value in sent.items():
        if value is True:
            parts.append(name)
        elif value is not False and value is not None:
            parts.append(f"{name} {'/'.join(map(str, value)) if isinstance(value, list) else value}")
    parts.append(str(thinking) if thinking == "no thinking mode" else f"thinking {thinking}")
    if dropped:
        parts.append("not sent: " + "; ".join(map(str, dropped)))
    return ", ".join(parts)


def distinct(probes: Iterable[Probe]) -> list[Probe]:
    """Each (spec, settings) once, in order: a model that answers and judges with the same settings is asked once."""
    seen: set[tuple[str, str]] = set()
    out = []
    for probe in probes:
        name = (probe.provider.spec, probe.settings.model_dump_json())
        if name not in seen:
            seen.add(name)
            out.append(probe)
    return out


def needs_preflight(provider: Provider) -> bool:
    """Whether a provider is an API that may refuse settings and charge for calls (it has a key variable);
    in-process providers (mock, local, vllm, baseline) are not asked."""
    return provider.key_env is not None


async def preflight(
    caller: Caller,
    probes: Sequence[Probe],
    on_done: Callable[[bool], None] | None = None,
    check: ReplyCheck | None = None,
) -> list[CallRecord]:
    """Send each probe through `caller`, AT_ONCE at a time; raise ModelRefused at the first refusal of any kind,
    naming a setting or not, and UnusableReplies at the first answer `check` cannot use (the probes not yet sent
    are not sent). Returns the records, failed ones included: a call that failed for another reason (a timeout, a
    5xx after its retries) is not a verdict on the settings. `on_done(failed)` hears of each probe as it ends (a
    run's progress)."""
    gate = asyncio.Semaphore(AT_ONCE)
    stop: list[ModelRefused | UnusableReplies] = []

    async def one(probe: Probe) -> CallRecord | None:
        async with gate:
            if stop:
                return None
            try:
                record = await caller.call(probe.provider, probe.messages(), probe.settings, role=probe.role)
            except ModelRefused as exc:
                stop.append(exc)
                return None
            declined = caller.declined(record.key)
            if declined is not None:  # refused in words naming no setting: the items would be refused alike
                stop.append(preflight_refused(probe.provider.spec, probe.role, declined))
            problem = check(probe, record) if check is not None and record.error is None else None
            if problem is not None:  # an answer, but one the run could not use: its own calls would answer alike
                stop.append(unusable(probe, record, problem))
            if on_done is not None:
                on_done(record.error is not None)
            return record

    records = await settled(*(one(probe) for probe in distinct(probes)))
    if stop:
        raise stop[0]
    for probe in probes:  # a key refused now would be refused by every call of the run
        detail = caller.key_refusal(probe.provider)
        if detail is not None:
            raise key_refused(probe.provider, "on the preflight call", detail)
    return [record for record in records if record is not None]


async def run_preflight(
    caller: Caller,
    probes: Sequence[Probe],
    stats: dict[str, Any],
    on_done: Callable[[bool], None] | None = None,
    check: ReplyCheck | None = None,
) -> None:
    """A run's preflight: `preflight` through a caller of its own on `caller`'s store, scheduler, prices and
    budget (and its way of asking again), so its calls are stored and priced like any other and counted apart,
    in `stats["preflight"]` however it ends (nothing when there is nothing to probe)."""
    if not probes:
        return
    own = caller.sibling()
    try:
        await preflight(own, probes, on_done, check)
    finally:
        stats["preflight"] = own.totals().as_dict()


async def check_models(
    caller_for: Caller, probes: Sequence[Probe], check: ReplyCheck | None = None
) -> list[ProbeResult]:
    """Every probe's result, refusals and unusable answers included (`cobe models check`): each asks through a
    caller of its own on the same store, so one model's refusal does not stop the others' probes; an in-process
    provider is reported as skipped."""

    async def one(probe: Probe) -> ProbeResult:
        if not needs_preflight(probe.provider):
            return ProbeResult(probe, None, skipped=True)
        caller = caller_for.sibling()
        try:
            record = await caller.call(probe.provider, probe.messages(), probe.settings, role=probe.role)
        except ModelRefused:
            assert caller.rejection is not None  # what it raised for
            return ProbeResult(probe, None, refused_line(*caller.rejection))
        declined = caller.declined(record.key)
        if declined is not None:  # refused in words naming no setting: a run would stop here too
            return ProbeResult(probe, record, declined_line(probe.provider.spec, probe.role, declined))
        detail = caller.key_refusal(probe.provider)
        if detail is not None:  # not a verdict on the settings: the key, as a run's preflight would say it
            return ProbeResult(
                probe, record, key_refused=str(key_refused(probe.provider, "on the check's call", detail))
            )
        problem = check(probe, record) if check is not None and record.error is None else None
        if problem is not None:
            return ProbeResult(probe, record, unusable=str(unusable(probe, record, problem)))
        return ProbeResult(probe, record)

    gate = asyncio.Semaphore(AT_ONCE)

    async def bounded(probe: Probe) -> ProbeResult:
        async with gate:
            return await one(probe)

    return await settled(*(bounded(probe) for probe in distinct(probes)))
