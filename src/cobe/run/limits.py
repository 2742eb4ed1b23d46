"""Client-side rate limits: token buckets for requests and tokens per minute, and 429 pauses."""

from __future__ import annotations

import asyncio
import time


class TokenBucket:
    """`rate` units per minute, bursting up to one minute's worth; waiters are served in order."""

    def __init__(self, per_minute: float) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0  # units per second
        self.level = self.capacity
        self.stamp = time.monotonic()
        self.lock = asyncio.Lock()

    def _refill(self) -> None:
        t = time.monotonic()
        self.level = min(self.capacity, self.level + (t - self.stamp) * self.rate)
        self.stamp = t

    async def take(self, amount: float = 1.0) -> None:
        """Wait until `amount` units are available, then spend them."""
        amount = min(amount, self.capacity)  # a call bigger than a minute's budget still runs, alone
        async with self.lock:  # the lock keeps order: no small request starves a big one
            self._refill()
            # float rounding can leave the refilled level a hair under `amount`: a tolerance, not
            # another sleep of 1e-14 s (which never ends under a frozen test clock)
            while self.level < amount - 1e-9:
                await asyncio.sleep((amount - self.level) / self.rate)
                self._refill()
            self.level -= amount

    def refund(self, amount: float) -> None:
        """Give back units spent on an estimate that turned out too high."""
        self.level = min(self.capacity, self.level + amount)


class Limits:
    """Everything that paces one provider: concurrency, rpm, tpm and a shared 429 pause."""

    def __init__(self, concurrency: int, rpm: float | None = None, tpm: float | None = None) -> None:
        self.concurrency = max(1, int(concurrency))
        self.semaphore = asyncio.Semaphore(self.concurrency)
        self.rpm = TokenBucket(rpm) if rpm else None
        self.tpm = TokenBucket(tpm) if tpm else None
        self.paused_until = 0.0  # monotonic time before which no new request starts
        self.closed = False  # the provider refused the key: nothing more is sent to it

    def close(self) -> None:
        """Send nothing more through this lane (calls waiting for a slot give up instead of sending)."""
        self.closed = True

    def pause(self, seconds: float) -> None:
        """The server asked us to wait (Retry-After): hold every new request of this provider."""
        self.paused_until = max(self.paused_until, time.monotonic() + seconds)

    async def admit(self, tokens: int) -> None:
        """Wait for any 429 pause and the rate buckets; call while holding the semaphore."""
        if self.paused_until:
            delay = self.paused_until - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
        if self.rpm is not None:
            await self.rpm.take(1)
        if self.tpm is not None:
            await self.tpm.take(tokens)
