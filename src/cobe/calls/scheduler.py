"""One provider call with concurrency, rate limits, a per-call timeout and retries (tenacity)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from cobe.calls.limits import Limits
from cobe.core.secrets import scrub, scrub_cut
from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider
from cobe.models.refusals import Refusal, request_refusal
from cobe.models.retry import is_timeout, status_of

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario


T = TypeVar("T")

#: the longest single wait a server's Retry-After may impose before the call is given up (--max-retry-wait)
MAX_RETRY_WAIT_S = 120.0
#: the longest a lane's first call waits for its server to say how many calls it serves at once
CAPACITY_WAIT_S = 5.0


def describe(exc: BaseException) -> str:
    """An exception as one short line for the store and the summary, with every secret scrubbed out."""
    if isinstance(exc, TimeoutError):
        return "timeout"
    # scrubbed before the whitespace is tidied and the line cut: either could hide a key from the scrubber
    text = " ".join(scrub(str(exc)).split()) or type(exc).__name__
    return scrub_cut(f"{type(exc).__name__}: {text}", len(type(exc).__name__) + 302)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one call ended: its output, or the error line once retries are spent (or not worth spending)."""

    output: ModelOutput | None
    error: str | None = None
    attempts: int = 1
    refused: bool = False  # the server refused the credentials (401/403): not retried
    # the server refused the request (a 4xx neither about the key nor worth asking again): not retried. Naming
    # a setting or the model (400/404/422), every call with those settings would be refused too; naming none
    # (`Refusal.named` false) it is this call's error, unless the call was the preflight's probe
    rejected: Refusal | None = None
    closed: bool = False  # not sent: the provider's lane was closed (it refused the key) while this call waited


class QueuedTimeout(TimeoutError):
    """An attempt that ran out of time while its server answered other calls: it waited in the server's queue,
    which is no failure of the server's to wait out, so it is asked again as soon as the (cut) window allows."""


class _LaneClosed(Exception):
    """The lane closed while a call waited for its slot: the call is not sent."""


class _WaitTooLong(Exception):
    """A Retry-After beyond --max-retry-wait: the call is recorded as rate-limited instead of waiting."""

    def __init__(self, asked: float, cap: float, cause: BaseException) -> None:
        super().__init__(
            f"rate-limited: the server asked to wait {asked:.0f} s, more than --max-retry-wait {cap:g} s; "
            f"run again later to resume ({describe(cause)})"
        )


class Scheduler:
    """Runs calls against providers, one `Limits` per provider spec, retrying transient errors."""

    #: items a command works on at once at most (enough to keep every provider's lane busy)
    MAX_ITEMS_IN_FLIGHT = 2048

    def __init__(
        self,
        *,
        concurrency: int | None = None,
        rpm: float | None = None,
        tpm: float | None = None,
        timeout: float | None = None,
        max_retries: int = 6,
        backoff: float = 1.0,
        backoff_max: float = 60.0,
        max_retry_wait: float = MAX_RETRY_WAIT_S,
        on_event: Callable[[str], None] | None = None,
    ) -> None:
        self.concurrency = concurrency
        self.rpm, self.tpm = rpm, tpm
        self.timeout = timeout
        self.max_retries = max(0, int(max_retries))
        self.backoff, self.backoff_max = backoff, backoff_max
        self.max_retry_wait = max_retry_wait
        self.lanes: dict[str, Limits] = {}
        self.retries = 0  # attempts beyond the first, over all calls
        self.rate_limited = 0  # answers that were 429s
        self.timeouts = 0  # attempts that ran out of time (each cuts its lane's window, as a 429 does)
        self.waited_s = 0.0  # seconds calls slept before a retry (backoff and Retry-After together)
        self.on_event = on_event  # told of each retry, refusal and given-up call as it happens (-v)

    async def carry(self, work: Awaitable[T]) -> T:
        """Run a command's work; a scheduler that sends calls elsewhere (the Ray executor's) drives them meanwhile."""
        return await work

    def limits(self, provider: Provider) -> Limits:
        """The pacing of one provider (specs share it, so respondent and judge on one server do too)."""
        lane = self.lanes.get(provider.spec)
        if lane is None:
            lane = Limits(self.concurrency or provider.max_connections(), self.rpm, self.tpm)
            self.lanes[provider.spec] = lane
        if self.timeout:  # an SDK's own request timeout (120 s) must not cut an attempt --timeout lets run longer
            provider.attempt_timeout = self.timeout
        return lane

    async def _attempt(
        self,
        provider: Provider,
        lane: Limits,
        messages: list[Message],
        config: GenerateConfig,
        scenario: Scenario | None,
        tokens: int,
        retry: bool = False,
        may_send: Callable[[], bool] | None = None,
    ) -> ModelOutput:
        if not lane.capacity_read:  # the lane's first call: how many calls its server serves at once
            await self._size(provider, lane)
        # held for the request only, never during a backoff sleep; a retry goes before calls not yet sent
        granted = await lane.slots.acquire(first=retry)
        answered = lane.slots.answered
        try:
            await lane.admit(tokens)
            # checked once the slot is ours: calls queued before the close, or before the command's own stop (a
            # full disk), send nothing
            if lane.closed or (may_send is not None and not may_send()):
                raise _LaneClosed
            if self.timeout:
                async with asyncio.timeout(self.timeout):
                    output = await provider.generate(messages, config, scenario=scenario)
            else:
                output = await provider.generate(messages, config, scenario=scenario)
        except Exception as exc:
            if status_of(exc) == 429:  # the provider's limit, whatever --rpm says: fewer calls in flight
                lane.slots.rate_limited(granted)
                self.rate_limited += 1
            elif is_timeout(exc):  # time spent queued behind a busy server: fewer calls in flight, as for a 429
                meanwhile = lane.slots.answered - answered
                lane.slots.timed_out(granted, meanwhile)
                self.timeouts += 1
                if meanwhile:
                    raise QueuedTimeout(f"timed out queued behind {meanwhile} calls the server answered") from exc
            raise
        finally:
            lane.slots.release()
        lane.slots.succeeded()
        return output

    async def run(
        self,
        provider: Provider,
        messages: list[Message],
        config: GenerateConfig,
        scenario: Scenario | None = None,
        tokens: int = 0,
        may_send: Callable[[], bool] | None = None,
    ) -> Outcome:
        """The call's Outcome: output on success, else the error line once retries are spent; `closed` and never
        sent where its lane closed or `may_send` said no once it was the call's turn."""
        lane = self.limits(provider)
        try:  # fast path: most calls succeed first time, so tenacity is set up only after a failure
            return Outcome(await self._attempt(provider, lane, messages, config, scenario, tokens, may_send=may_send))
        except _LaneClosed:
            return Outcome(None, None, 0, closed=True)
        except Exception as exc:  # noqa: BLE001 - every provider error becomes a recorded call error
            if provider.refused(exc):
                return self._ended(provider, Outcome(None, describe(exc), 1, refused=True))
            if not self._retryable(provider, exc) or self.max_retries == 0:
                return self._ended(provider, Outcome(None, describe(exc), 1, rejected=request_refusal(exc)))
            try:
                self._note_retry_after(provider, lane, exc)
            except _WaitTooLong as too_long:
                return self._ended(provider, Outcome(None, str(too_long), 1))
            first = exc
        base_wait = wait_exponential_jitter(initial=self.backoff, max=self.backoff_max, jitter=self.backoff)

        def wait(state: RetryCallState) -> float:
            # a Retry-After is the server's own pacing: waited as asked, never sooner (the cut window
            # already backs the provider off); without one, exponential backoff with jitter
            exc = state.outcome.exception() if state.outcome else first
            asked = provider.retry_after(exc) if exc is not None else None
            seconds = asked if asked else 0.0 if isinstance(exc, QueuedTimeout) else base_wait(state)
            self._retrying(provider, state.attempt_number + 1, seconds, exc)
            return seconds

        attempts = 1
        # no backoff after a wait in a busy server's queue: the cut window, not a sleep, paces the call
        first_wait = 0.0 if isinstance(first, QueuedTimeout) else max(self.backoff, provider.retry_after(first) or 0.0)
        self._retrying(provider, 1, first_wait, first)
        await asyncio.sleep(first_wait)
        try:
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(self.max_retries),
                wait=wait,
                retry=retry_if_exception(lambda e: self._retryable_noted(provider, lane, e)),
                reraise=True,
            ):
                with attempt:
                    attempts += 1
                    self.retries += 1
                    try:
                        output = await self._attempt(
                            provider, lane, messages, config, scenario, tokens, retry=True, may_send=may_send
                        )
                    except Exception as exc:
                        if self._retryable(provider, exc):
                            self._note_retry_after(provider, lane, exc)  # raises _WaitTooLong past the cap
                        raise
            return Outcome(output, None, attempts)
        except _LaneClosed:
            self.retries -= 1  # counted as it began, but nothing was sent
            return Outcome(None, None, attempts - 1, closed=True)
        except _WaitTooLong as too_long:
            return self._ended(provider, Outcome(None, str(too_long), attempts))
        except Exception as exc:  # noqa: BLE001
            refused = provider.refused(exc)
            rejected = None if refused else request_refusal(exc)
            return self._ended(provider, Outcome(None, describe(exc), attempts, refused=refused, rejected=rejected))

    async def _size(self, provider: Provider, lane: Limits) -> None:
        """Before a lane's first call, read how many calls its server serves at once, where it says (a llama.cpp
        server's slots, a vLLM server's max_num_seqs): the window starts there, and without --concurrency never
        grows past it. A server that says nothing, or does not answer in time, keeps the provider's default."""
        if lane.sizing is None:
            lane.sizing = asyncio.Lock()
        async with lane.sizing:
            if lane.capacity_read:
                return
            try:
                async with asyncio.timeout(CAPACITY_WAIT_S):
                    capacity = await provider.server_capacity()
            except Exception:  # noqa: BLE001 - no answer is no capacity: the default window stays
                capacity = None
            finally:
                lane.capacity_read = True
            if capacity:
                lane.slots.start_at(capacity, ceiling=self.concurrency is None)
                if self.on_event is not None:
                    self.on_event(
                        f"{provider.spec}: its server serves {capacity} call(s) at once; at most "
                        f"{lane.slots.limit} in flight to start with"
                    )

    def _retrying(self, provider: Provider, retry: int, seconds: float, exc: BaseException | None) -> None:
        """Count a retry's wait and tell the observer (-v)."""
        self.waited_s += seconds
        if self.on_event is not None:
            cause = describe(exc) if exc is not None else "no answer"
            self.on_event(
                f"retry {retry} of {self.max_retries} for a call to {provider.spec} in {seconds:.1f} s ({cause})"
            )

    def _ended(self, provider: Provider, outcome: Outcome) -> Outcome:
        """Tell the observer (-v) of a call refused or given up, as it happens."""
        if self.on_event is not None:
            if outcome.refused or outcome.rejected is not None:
                self.on_event(f"{provider.spec} refused a call: {outcome.error}")
            else:
                tries = f" after {outcome.attempts} attempts" if outcome.attempts > 1 else ""
                self.on_event(f"a call to {provider.spec} failed{tries}: {outcome.error}")
        return outcome

    @staticmethod
    def _retryable(provider: Provider, exc: BaseException) -> bool:
        return isinstance(exc, TimeoutError) or provider.should_retry(exc)

    def _retryable_noted(self, provider: Provider, lane: Limits, exc: BaseException) -> bool:
        return not isinstance(exc, (_WaitTooLong, _LaneClosed)) and self._retryable(provider, exc)

    def _note_retry_after(self, provider: Provider, lane: Limits, exc: BaseException) -> None:
        # the call that got a Retry-After waits it out (a wait beyond the cap gives the call up instead:
        # it is redone on resume); the provider's other calls go on through the window the 429 cut,
        # and only once that window is down to one call does a Retry-After pause the whole provider
        asked = provider.retry_after(exc)
        if asked and asked > self.max_retry_wait:
            raise _WaitTooLong(asked, self.max_retry_wait, exc) from exc
        if asked and lane.slots.limit <= 1:
            lane.pause(asked)
