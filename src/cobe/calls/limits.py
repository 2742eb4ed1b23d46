"""Client-side rate limits: an adaptive concurrency window, token buckets for requests and tokens per
minute, and 429 pauses."""

from __future__ import annotations

import asyncio
import time
from collections import deque


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


class AdaptiveConcurrency:
    """How many calls of one provider may be in flight: AIMD between 1 and `ceiling` (--concurrency).

    Each 429 cuts the window by `backoff` (once per round: a 429 of a call sent before the last cut
    cuts nothing more, it only reports the same overload late); each success grows it by 1/window, so
    by about one call per window's worth of successes, back up to the ceiling. The cut is a quarter,
    not TCP's half: a 429 is not charged against the provider's limit, while a deep cut leaves the
    limit unused (against a 600 rpm token bucket, halving kept 83-92% of it, a quarter 95-100%).
    Waiters are served first come, first served, and a call that was rate-limited and asks again goes
    before them: it is not starved by newer ones.

    A timeout cuts the window too: a server with fewer slots than calls sent queues the rest, and a call that
    waited out its timeout in that queue says the window is too wide (`timed_out`). The server answered some
    number of calls while it waited: no more than that many can be queued and each still answered within the
    timeout (Little's law), so the window goes down to half of them, which leaves a queue half the timeout long,
    and at least by a 429's quarter. A server that says how many calls it serves at once starts the window there
    (`start_at`).
    """

    def __init__(self, ceiling: int, backoff: float = 0.75) -> None:
        self.ceiling = max(1, int(ceiling))
        self.backoff = backoff  # the factor a 429 cuts the window by
        self.window = float(self.ceiling)
        self.in_flight = 0
        self.cuts = 0  # times the window was cut; also the round a call's slot belongs to
        self.answered = 0  # calls answered so far: a timed-out call counts those answered while it waited
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def limit(self) -> int:
        """The calls that may be in flight now."""
        return max(1, int(self.window))

    async def acquire(self, first: bool = False) -> int:
        """Wait for a slot (`first`: ahead of every waiter, for a retry); returns the round it was granted
        in (pass it to `rate_limited`)."""
        if self.in_flight < self.limit and not self._waiters:
            self.in_flight += 1
            return self.cuts
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if first:
            self._waiters.appendleft(waiter)
        else:
            self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # granted as it was cancelled: hand the slot on
                self.release()
            else:
                self._waiters.remove(waiter)
            raise
        return self.cuts

    def release(self) -> None:
        """A call ended (whatever its outcome): its slot goes to the next waiter the window allows."""
        self.in_flight -= 1
        self._wake()

    def succeeded(self) -> None:
        """A call was answered: grow the window additively, up to the ceiling."""
        self.answered += 1
        if self.window < self.ceiling:
            self.window = min(float(self.ceiling), self.window + 1.0 / self.window)
            self._wake()

    def rate_limited(self, granted: int) -> None:
        """A call granted in round `granted` got a 429: cut the window, unless this round was cut already."""
        if granted == self.cuts:
            self.window = max(1.0, self.window * self.backoff)
            self.cuts += 1

    def timed_out(self, granted: int, answered_since: int) -> None:
        """A call granted in round `granted` timed out while `answered_since` others were answered: cut the window to
        half that many (at least one) or by a 429's cut, whichever is narrower, unless this round was cut already."""
        if granted == self.cuts:
            self.window = max(1.0, min(self.window * self.backoff, answered_since / 2))
            self.cuts += 1

    def start_at(self, capacity: int, ceiling: bool) -> None:
        """The server serves `capacity` calls at once: the window starts there; with `ceiling` (no --concurrency
        given) it never grows past it either."""
        capacity = max(1, int(capacity))
        if ceiling:
            self.ceiling = min(self.ceiling, capacity)
        self.window = float(min(self.ceiling, capacity))

    def _wake(self) -> None:
        while self._waiters and self.in_flight < self.limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self.in_flight += 1
                waiter.set_result(None)


class Limits:
    """Everything that paces one provider: adaptive concurrency, rpm, tpm and a shared 429 pause."""

    def __init__(self, concurrency: int, rpm: float | None = None, tpm: float | None = None) -> None:
        self.concurrency = max(1, int(concurrency))  # the ceiling; `slots.limit` is what is allowed now
        self.slots = AdaptiveConcurrency(self.concurrency)
        self.capacity_read = False  # the server's advertised capacity was asked for (once per lane)
        self.sizing: asyncio.Lock | None = None  # held while it is read, so the lane's first calls wait for it
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
