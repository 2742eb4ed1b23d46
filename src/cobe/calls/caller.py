"""The reusable call path: cache lookup, budget, scheduler, and one committed row per finished call."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cobe.calls.cost import Budget, Price, PriceTable, estimate_tokens, load_prices
from cobe.calls.keys import RequestKeys, with_endpoint
from cobe.calls.refused import model_refused
from cobe.calls.scheduler import Outcome, Scheduler
from cobe.core.errors import AuthenticationFailed
from cobe.core.reserve import out_of_space
from cobe.core.secrets import scrub
from cobe.models.base import CallRecord, GenerateConfig, Message, ModelOutput, Provider, endpoint_name
from cobe.models.refusals import Refusal
from cobe.store.endpoints import note_endpoint
from cobe.store.rows import CallRow, NewCall
from cobe.store.store import Store, now

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

ROLES = ("respondent", "judge")
#: refused calls (401/403) in a row after which a provider's stage stops
AUTH_STOP_AFTER = 3
#: calls of settings no answer has proven yet, out at once in a command: the most requests a model that
#: refuses a setting can refuse before the command stops
UNPROVEN_AT_ONCE = 3
#: how far a re-ask of an unusable stored answer moves its key's `attempt` (--reask-unscored): the judge's own
#: second ask of an unparseable verdict is attempt 1, so each chain of re-asks keeps to its own numbers
REASK_STEP = 2
#: whether a stored answer of a role is one to ask again instead of answering from it (--reask-unscored)
Reask = Callable[[str, CallRecord], bool]


@dataclass
class RoleStats:
    """Counters of one role (respondent or judge) during one command."""

    calls_made: int = 0
    calls_cached: int = 0
    errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cached_input_tokens: int = 0  # of input_tokens: read from the provider's prompt cache
    cache_write_tokens: int = 0  # of input_tokens: written to it

    def as_dict(self) -> dict[str, Any]:
        """Plain dict for summary.json; the prompt-cache counts appear once a call had some."""
        counts = {
            k: getattr(self, k) for k in ("calls_made", "calls_cached", "errors", "input_tokens", "output_tokens")
        }
        cache = {k: getattr(self, k) for k in ("cached_input_tokens", "cache_write_tokens") if getattr(self, k)}
        return counts | cache | {"cost_usd": round(self.cost_usd, 6)}

    def add_output(self, output: ModelOutput, cost: float | None) -> None:
        """Count one answered call's tokens and cost."""
        self.input_tokens += output.input_tokens
        self.output_tokens += output.output_tokens
        self.cached_input_tokens += output.cached_input_tokens
        self.cache_write_tokens += output.cache_write_tokens
        self.cost_usd += cost or 0.0


class _Unproven:
    """Calls of (spec, settings) pairs no answer has yet proven: at most UNPROVEN_AT_ONCE of them are out at
    once in a whole command, so a model refusing a setting is refused no more often than that before the
    command stops; a pair's first answer lets its later calls go freely."""

    def __init__(self) -> None:
        self.proven: set[tuple[str, str]] = set()
        self._slots: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None

    def slots(self) -> asyncio.Semaphore:
        """The semaphore of the running event loop (a caller may serve several `asyncio.run`s in turn)."""
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots[0] is not loop:
            self._slots = (loop, asyncio.Semaphore(UNPROVEN_AT_ONCE))
        return self._slots[1]


@dataclass
class Caller:
    """Store + scheduler + cache: `await caller.call(provider, messages, settings, role=...)`."""

    store: Store
    scheduler: Scheduler = field(default_factory=Scheduler)
    prices: PriceTable = field(default_factory=load_prices)
    budget: Budget = field(default_factory=lambda: Budget(None))
    stats: dict[str, RoleStats] = field(default_factory=lambda: defaultdict(RoleStats))
    # --reask-unscored: a stored answer this says is unusable (empty, no verdict) is asked again under a key of its
    # own (`attempt` moved by REASK_STEP), its row kept; None: every stored answer answers
    reask: Reask | None = None
    # key → the result of an identical call in flight now, awaited instead of sending it twice
    _inflight: dict[str, asyncio.Future[CallRecord]] = field(default_factory=dict, init=False, repr=False)
    # spec → refused calls in a row, and the last refusal's line
    _refusals: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    _last_refusal: dict[str, str] = field(default_factory=dict, init=False, repr=False)
    _keys: RequestKeys = field(default_factory=RequestKeys, init=False, repr=False)
    # the pairs of spec and settings proven by an answer; the first refusal of a setting or model, which stops
    # every later call
    _unproven: _Unproven = field(default_factory=_Unproven, init=False, repr=False)
    _rejection: tuple[str, str, Refusal] | None = field(default=None, init=False, repr=False)
    # call key → the refusal naming no setting that ended it (what the preflight stops at)
    _declined: dict[str, Refusal] = field(default_factory=dict, init=False, repr=False)
    rejected: int = field(default=0, init=False)  # requests refused for their settings or model
    notices: list[str] = field(default_factory=list, init=False)  # what a command says of its calls at its end
    _endpoints: set[str] = field(default_factory=set, init=False, repr=False)  # specs whose endpoint is noted

    @classmethod
    def open(cls, store_path: str | Path, **scheduler_options: Any) -> Caller:
        """A caller on the store at `store_path` (created if missing), scheduler options as keywords."""
        return cls(Store(store_path), Scheduler(**scheduler_options))

    def sibling(self) -> Caller:
        """A caller of its own on this one's store, scheduler, prices, budget and way of asking again, for calls
        counted apart (the preflight's, the self-test's, each probe of `cobe models check`)."""
        own = Caller(self.store, self.scheduler, self.prices, self.budget, reask=self.reask)
        own.notices = self.notices  # what its calls find (a spec at another endpoint) is the command's to say
        return own

    async def call(
        self,
        provider: Provider,
        messages: list[Message],
        settings: GenerateConfig,
        *,
        role: str,
        scenario: Scenario | None = None,
        attempt: int = 0,
        sample: int = 0,
    ) -> CallRecord:
        """One call, answered from the store when an identical one finished before; never raises on provider errors.

        An identical call already in flight is awaited, not sent again. Raises BudgetExceeded before a call
        that would not fit --max-cost, AuthenticationFailed once the provider refused the key
        AUTH_STOP_AFTER times in a row, and ModelRefused once any model refused a request for its settings
        or its name (then for every later call, sending none). `sample` > 0 repeats a call on purpose
        (--judge-samples): same messages, a key of its own. With `reask`, a stored answer it calls unusable is
        asked again under the next key of its chain (`attempt` + REASK_STEP), the earlier row kept.
        """
        if provider.endpoint is not None and provider.spec not in self._endpoints:
            self.note_endpoint(provider)
        stats = self.stats[role]
        while True:
            request, key, stored = self._lookup(provider, role, messages, settings, attempt, sample)
            if stored is not None:
                stats.calls_cached += 1
                return stored
            pending = self._inflight.get(key) if provider.cacheable() else None
            if pending is None:
                break
            try:
                record = await asyncio.shield(pending)
            except asyncio.CancelledError:
                this = asyncio.current_task()
                if pending.cancelled() and not (this and this.cancelling()):  # only the first caller was: ask again
                    continue
                raise
            stats.calls_cached += 1
            return replace(record, cached=True)
        if provider.cacheable():
            # a placeholder for calls that arrive while this one runs; only its result is ever read
            future: asyncio.Future[CallRecord] = asyncio.get_running_loop().create_future()
            self._inflight[key] = future
        try:
            record = await self._send(
                self._pair(provider, settings),
                lambda: self._dispatch(provider, messages, settings, role, scenario, request, key),
            )
        except BaseException as exc:
            if provider.cacheable():
                _settle(future, exc)
            raise
        finally:
            if provider.cacheable():
                del self._inflight[key]
        if provider.cacheable():
            future.set_result(record)
        return record

    def _lookup(
        self,
        provider: Provider,
        role: str,
        messages: list[Message],
        settings: GenerateConfig,
        attempt: int,
        sample: int,
    ) -> tuple[str, str, CallRecord | None]:
        """(request, key, the stored answer that answers the call or None); with `reask`, a stored answer it calls
        unusable moves the call on to the next key of its chain (`attempt` + REASK_STEP): asked again there, or
        answered by what an earlier re-ask got."""
        while True:
            request, key = self._request(provider, messages, settings, attempt, sample)
            row = self._stored(provider, key)
            if row is None:
                return request, key, None
            stored = _from_row(row)
            if self.reask is None or stored.error is not None or not self.reask(role, stored):
                return request, key, stored
            attempt += REASK_STEP

    async def _send(self, pair: tuple[str, str] | None, dispatch: Callable[[], Awaitable[CallRecord]]) -> CallRecord:
        """Send a call (`dispatch`); while no answer has proven its model and settings (`pair`), only a few
        such calls go at once, so a refused setting is refused a few times at most, not once per item."""
        if pair is not None and pair not in self._unproven.proven:
            slots = self._unproven.slots()
            await slots.acquire()
            try:
                if pair not in self._unproven.proven:  # proven while this call waited: it goes freely
                    record = await dispatch()
                    self._unproven.proven.add(pair)  # answered, or failed for a reason of its own
                    return record
            finally:
                slots.release()
        return await dispatch()

    @property
    def rejection(self) -> tuple[str, str, Refusal] | None:
        """(spec, role, Refusal) of the first request a model refused for its settings or its name, or None."""
        return self._rejection

    def declined(self, key: str) -> Refusal | None:
        """The refusal naming no setting (an HTML page, `{"error": "..."}`, an empty body) that ended the call
        with this key in this command, or None."""
        return self._declined.get(key)

    def key_refusal(self, provider: Provider) -> str | None:
        """The last refusal of the provider's credentials (401/403) since it last answered, or None."""
        return self._last_refusal.get(provider.spec) if self._refusals.get(provider.spec) else None

    def _pair(self, provider: Provider, settings: GenerateConfig) -> tuple[str, str] | None:
        """(spec, settings JSON) of a provider behind an API (it has a key variable); None for the in-process
        providers (mock, local, vllm, baseline), which refuse no setting."""
        if provider.key_env is None:
            return None
        return provider.spec, self._keys.settings_json(settings)

    def _may_send(self) -> bool:
        """Whether a call whose turn has come may go out: not once the disk is full (its answer might find no room;
        the calls already out are what the store's reserve is for)."""
        return not self.store.out_of_space

    def _check_stops(self, provider: Provider) -> None:
        """Raise when this command may send nothing more: a refused setting, a refused key, a full disk."""
        if self._rejection is not None:
            raise model_refused(*self._rejection, self.rejected)
        stopped = self._refusals.get(provider.spec)
        if stopped is not None and stopped >= AUTH_STOP_AFTER:
            raise self._auth_failed(provider)
        if self.store.out_of_space:  # a full disk could not keep this answer: nothing more is paid for
            raise out_of_space(self.store.path.parent)

    async def _dispatch(
        self,
        provider: Provider,
        messages: list[Message],
        settings: GenerateConfig,
        role: str,
        scenario: Scenario | None,
        request: str,
        key: str,
    ) -> CallRecord:
        self._check_stops(provider)
        stats = self.stats[role]
        price = self.prices.price(provider.spec)
        est_in = sum(estimate_tokens(m.content) for m in messages)
        reserve = price.cost(est_in, settings.max_tokens or 1024) if price else 0.0
        self.budget.reserve(reserve)  # raises BudgetExceeded before anything is sent
        outcome = await self.scheduler.run(provider, messages, settings, scenario, est_in, self._may_send)
        if outcome.closed:  # never sent: the provider refused the key, or the disk filled, while this call waited
            self.budget.settle(reserve, 0.0)
            self._check_stops(provider)
            raise self._auth_failed(provider)
        stats.calls_made += 1
        output = outcome.output
        if output is None:
            self.budget.settle(reserve, 0.0)
            stats.errors += 1
            record = CallRecord(key=key, text=None, error=outcome.error, attempts=outcome.attempts)
        else:
            output = scrubbed(output)  # a key the server echoed in its reply is neither judged nor kept
            cost = call_cost(price, output)
            self.budget.settle(reserve, cost or 0.0)
            stats.add_output(output, cost)
            record = CallRecord(
                key=key,
                text=output.text,
                finish_reason=output.finish_reason,
                input_tokens=output.input_tokens,
                output_tokens=output.output_tokens,
                cached_input_tokens=output.cached_input_tokens,
                cache_write_tokens=output.cache_write_tokens,
                latency_s=output.latency_s,
                attempts=outcome.attempts,
                first_token_logprobs=output.first_token_logprobs,
                cost_usd=cost,
            )
        self.store.put_call(_call_row(key, role, provider.spec, request, record, output))
        if outcome.rejected is not None and not outcome.rejected.named:
            self._declined[key] = outcome.rejected
        self._note_refusals(provider, role, outcome)
        return record

    def _note_refusals(self, provider: Provider, role: str, outcome: Outcome) -> None:
        """Count refused keys (the lane closes after AUTH_STOP_AFTER in a row) and refused settings (the
        command stops at the first): each raises what stops the command."""
        if outcome.refused:
            self._refusals[provider.spec] = self._refusals.get(provider.spec, 0) + 1
            self._last_refusal[provider.spec] = outcome.error or "refused"
            if self._refusals[provider.spec] >= AUTH_STOP_AFTER:
                self.scheduler.limits(provider).close()
                raise self._auth_failed(provider)
        elif outcome.output is not None:
            self._refusals[provider.spec] = 0  # "in a row": an accepted call resets the count
        if outcome.rejected is not None and outcome.rejected.named:  # every later call with them would be too
            self.rejected += 1
            if self._rejection is None:
                self._rejection = (provider.spec, role, outcome.rejected)
            raise model_refused(*self._rejection, self.rejected)

    def _auth_failed(self, provider: Provider) -> AuthenticationFailed:
        last = self._last_refusal.get(provider.spec, "refused")
        return key_refused(provider, f"on {AUTH_STOP_AFTER} calls in a row", last)

    @staticmethod
    def request(
        provider: Provider, messages: list[Message], settings: GenerateConfig, attempt: int = 0, sample: int = 0
    ) -> tuple[str, str]:
        """(request JSON as the store records it, call key); the batch path keys its calls the same way."""
        return RequestKeys().request(
            provider.spec, provider.model, settings, messages, attempt, sample, provider.endpoint
        )

    def _request(
        self, provider: Provider, messages: list[Message], settings: GenerateConfig, attempt: int, sample: int
    ) -> tuple[str, str]:
        # `request` with this caller's settings JSON kept between calls
        return self._keys.request(provider.spec, provider.model, settings, messages, attempt, sample, provider.endpoint)

    def note_endpoint(self, provider: Provider) -> None:
        """Record where the provider's calls go (once per spec and command) before any is looked up: a store
        made before keys named their endpoint adopts its calls for this one; a spec that now points elsewhere
        than before is said in `notices`, and the other server's replies never answer for it."""
        if provider.endpoint is None or provider.spec in self._endpoints:
            return
        self._endpoints.add(provider.spec)
        endpoint = provider.endpoint
        before = note_endpoint(
            self.store,
            provider.spec,
            endpoint,
            lambda request: with_endpoint(request, endpoint),
            renamed=lambda name: endpoint_name(name.split()),  # a name kept before query values were hidden
        )
        if before is not None:
            self.notices.append(
                f"{provider.spec} now points at {endpoint}, no longer at {before}: no call made there answers "
                "for it here (what a run already recorded from there is kept; a new run directory asks "
                "everything again)"
            )

    def stored(
        self, provider: Provider, messages: list[Message], settings: GenerateConfig, attempt: int = 0, sample: int = 0
    ) -> CallRow | None:
        """The stored row of an identical earlier call that `call` would answer from, or None."""
        self.note_endpoint(provider)
        return self._stored(provider, self._request(provider, messages, settings, attempt, sample)[1])

    def _stored(self, provider: Provider, key: str) -> CallRow | None:
        # answers of order-dependent providers (cycling scripts) are never replayed
        return self.store.get_call(key) if provider.cacheable() else None

    def totals(self) -> RoleStats:
        """Every role's counters of this caller added up."""
        total = RoleStats()
        for stats in self.stats.values():
            for name in vars(total):
                setattr(total, name, getattr(total, name) + getattr(stats, name))
        return total

    def stats_dict(self) -> dict[str, Any]:
        """Per-role counters of this caller, for summaries."""
        roles = [*ROLES, *(role for role in self.stats if role not in ROLES)]  # e.g. "augment"
        stats = {role: self.stats[role].as_dict() for role in roles} | {"retries": self.scheduler.retries}
        pacing = {
            "rate_limited": self.scheduler.rate_limited,
            "timeouts": self.scheduler.timeouts,
            "retry_wait_s": round(self.scheduler.waited_s, 3),
        }
        return stats | {k: v for k, v in pacing.items() if v}  # only when some: earlier summaries read as before


def key_refused(provider: Provider, when: str, detail: str) -> AuthenticationFailed:
    """The one line of a stage stopped because `provider` refused its credentials, naming the variable to check."""
    check = f"check {provider.key_env}" if provider.key_env else "check the provider's API key and access"
    return AuthenticationFailed(
        f"{provider.spec}: the provider refused the credentials {when}, so the stage stopped; {check} ({detail})"
    )


def call_cost(price: Price | None, output: ModelOutput) -> float | None:
    """USD of one answered call, its cached and cache-written prompt tokens at their own rates; None unpriced."""
    if price is None:
        return None
    return price.cost(output.input_tokens, output.output_tokens, output.cached_input_tokens, output.cache_write_tokens)


def _settle(future: asyncio.Future[CallRecord], exc: BaseException) -> None:
    """End the placeholder of a call that raised: cancelled with it, or carrying its exception to the waiters."""
    if isinstance(exc, asyncio.CancelledError):
        future.cancel()
    else:
        future.set_exception(exc)
        future.exception()  # marks it retrieved: no "never retrieved" warning when nobody waited


def scrubbed(output: ModelOutput) -> ModelOutput:
    """The output with every text the provider returned scrubbed of keys: the answer, the finish reason and the
    first token's alternatives (two that scrub alike keep the likelier's logprob, listed first)."""
    update: dict[str, Any] = {"text": scrub(output.text)}
    alternatives = output.first_token_logprobs or {}
    others = "\n".join((output.finish_reason or "", *alternatives))
    if scrub(others) != others:  # one look at every other text: a key there is rare
        update["finish_reason"] = output.finish_reason and scrub(output.finish_reason)
        tokens: dict[str, float] = {}
        for token, logprob in alternatives.items():
            tokens.setdefault(scrub(token), logprob)
        update["first_token_logprobs"] = tokens or output.first_token_logprobs
    changed = {name: value for name, value in update.items() if value != getattr(output, name)}
    return output.model_copy(update=changed) if changed else output


def _from_row(row: CallRow) -> CallRecord:
    logprobs = row.first_token_logprobs
    return CallRecord(
        key=row.key,
        text=row.response,
        error=row.error,
        finish_reason=row.finish_reason,
        input_tokens=row.input_tokens,
        output_tokens=row.output_tokens,
        cached_input_tokens=row.cached_input_tokens,
        cache_write_tokens=row.cache_write_tokens,
        latency_s=row.latency_s,
        attempts=row.attempts,
        first_token_logprobs=json.loads(logprobs) if logprobs else None,
        cost_usd=row.cost_usd,
        cached=True,
    )


def _call_row(key: str, role: str, spec: str, request: str, record: CallRecord, output: ModelOutput | None) -> NewCall:
    """A finished call as the store's `calls` row."""
    logprobs = record.first_token_logprobs
    return {
        "key": key,
        "role": role,
        "spec": spec,
        "request": request,
        "response": record.text,
        "finish_reason": record.finish_reason,
        "input_tokens": record.input_tokens,
        "output_tokens": record.output_tokens,
        "cached_input_tokens": record.cached_input_tokens,
        "cache_write_tokens": record.cache_write_tokens,
        "latency_s": record.latency_s,
        "error": record.error,
        "attempts": record.attempts,
        "first_token_logprobs": json.dumps(logprobs) if logprobs else None,
        "cost_usd": record.cost_usd,
        "created": now(),
        "sent": json.dumps(output.sent) if output is not None and output.sent is not None else None,
        "reasoning_tokens": output.reasoning_tokens if output is not None else 0,
    }
