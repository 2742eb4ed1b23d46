"""One provider call with concurrency, rate limits, a per-call timeout and retries (tenacity)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider
from cobe.run.limits import Limits

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario


def describe(exc: BaseException) -> str:
    """An exception as one short line for the store and the summary."""
    if isinstance(exc, TimeoutError):
        return "timeout"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text[:300]}"


class Scheduler:
    """Runs calls against providers, one `Limits` per provider spec, retrying transient errors."""

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
    ) -> None:
        self.concurrency = concurrency
        self.rpm, self.tpm = rpm, tpm
        self.timeout = timeout
        self.max_retries = max(0, int(max_retries))
        self.backoff, self.backoff_max = backoff, backoff_max
        self.lanes: dict[str, Limits] = {}
        self.retries = 0  # attempts beyond the first, over all calls

    def limits(self, provider: Provider) -> Limits:
        """The pacing of one provider (specs share it, so respondent and judge on one server do too)."""
        lane = self.lanes.get(provider.spec)
        if lane is None:
            lane = Limits(self.concurrency or provider.max_connections(), self.rpm, self.tpm)
            self.lanes[provider.spec] = lane
        return lane

    async def _attempt(
        self,
        provider: Provider,
        lane: Limits,
        messages: list[Message],
        config: GenerateConfig,
        scenario: Scenario | None,
        tokens: int,
    ) -> ModelOutput:
        async with lane.semaphore:  # held for the request only, never during a backoff sleep
            await lane.admit(tokens)
            if self.timeout:
                async with asyncio.timeout(self.timeout):
                    return await provider.generate(messages, config, scenario=scenario)
            return await provider.generate(messages, config, scenario=scenario)

    async def run(
        self,
        provider: Provider,
        messages: list[Message],
        config: GenerateConfig,
        scenario: Scenario | None = None,
        tokens: int = 0,
    ) -> tuple[ModelOutput | None, str | None, int]:
        """(output, None, attempts) on success, (None, error line, attempts) once retries are spent."""
        lane = self.limits(provider)
        try:  # fast path: most calls succeed first time, so tenacity is set up only after a failure
            return await self._attempt(provider, lane, messages, config, scenario, tokens), None, 1
        except Exception as exc:  # noqa: BLE001 - every provider error becomes a recorded call error
            if not self._retryable(provider, exc) or self.max_retries == 0:
                return None, describe(exc), 1
            self._note_retry_after(provider, lane, exc)
            first = exc
        base_wait = wait_exponential_jitter(initial=self.backoff, max=self.backoff_max, jitter=self.backoff)

        def wait(state: RetryCallState) -> float:
            # honour Retry-After: never sooner than the server asked, whatever the backoff says
            exc = state.outcome.exception() if state.outcome else first
            asked = provider.retry_after(exc) if exc is not None else None
            return max(base_wait(state), asked or 0.0)

        attempts = 1
        first_wait = max(self.backoff, provider.retry_after(first) or 0.0)
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
                    output = await self._attempt(provider, lane, messages, config, scenario, tokens)
            return output, None, attempts
        except Exception as exc:  # noqa: BLE001
            return None, describe(exc), attempts

    @staticmethod
    def _retryable(provider: Provider, exc: BaseException) -> bool:
        return isinstance(exc, TimeoutError) or provider.should_retry(exc)

    def _retryable_noted(self, provider: Provider, lane: Limits, exc: BaseException) -> bool:
        ok = self._retryable(provider, exc)
        if ok:
            self._note_retry_after(provider, lane, exc)
        return ok

    @staticmethod
    def _note_retry_after(provider: Provider, lane: Limits, exc: BaseException) -> None:
        # a 429 with Retry-After pauses the whole provider, not only the call that got it
        asked = provider.retry_after(exc)
        if asked:
            lane.pause(asked)
