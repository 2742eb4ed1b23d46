"""The adaptive concurrency window of a provider's lane: cut on a 429, grown while calls succeed."""

from __future__ import annotations

import asyncio

import pytest

from cobe.calls.limits import AdaptiveConcurrency


def test_a_429_cuts_the_window_by_a_quarter_once_per_round() -> None:
    async def main() -> None:
        gate = AdaptiveConcurrency(64)
        rounds = [await gate.acquire() for _ in range(8)]  # eight calls in flight, all granted in round 0
        gate.rate_limited(rounds[0])
        assert gate.limit == 48
        for granted in rounds[1:]:  # the same overload reported late by calls sent before the cut
            gate.rate_limited(granted)
        assert gate.limit == 48
        for _ in rounds:
            gate.release()
        later = await gate.acquire()  # a call sent after the cut reports a new overload
        gate.rate_limited(later)
        assert gate.limit == 36
        gate.release()


def test_the_cut_is_a_parameter() -> None:
    async def main() -> None:
        gate = AdaptiveConcurrency(64, backoff=0.5)
        gate.rate_limited(await gate.acquire())
        assert gate.limit == 32
        gate.release()

    asyncio.run(main())

    asyncio.run(main())


def test_the_window_never_drops_below_one_and_grows_back_to_the_ceiling() -> None:
    async def main() -> None:
        gate = AdaptiveConcurrency(8)
        for _ in range(20):
            gate.rate_limited(await gate.acquire())
            gate.release()
        assert gate.limit == 1 and gate.window == 1.0
        successes = 0
        while gate.limit < 8:
            await gate.acquire()
            gate.release()
            gate.succeeded()
            successes += 1
        # additive increase: about one more slot per window's worth of successes (1 + 2 + ... + 7 = 28)
        assert 20 <= successes <= 32
        for _ in range(100):
            gate.succeeded()
        assert gate.limit == 8 and gate.window == 8.0

    asyncio.run(main())


def test_waiters_are_served_in_order_within_the_window() -> None:
    async def main() -> None:
        gate = AdaptiveConcurrency(2)
        await gate.acquire()
        await gate.acquire()
        order: list[int] = []
        started = [asyncio.Event() for _ in range(3)]

        async def waiter(i: int) -> None:
            started[i].set()
            await gate.acquire()
            order.append(i)

        tasks = [asyncio.create_task(waiter(i)) for i in range(3)]
        for event in started:
            await event.wait()
        assert order == [] and gate.in_flight == 2
        gate.release()
        await asyncio.sleep(0)  # let the woken waiter run (no time passes)
        assert order == [0]
        gate.release()
        gate.release()
        await asyncio.gather(*tasks)
        assert order == [0, 1, 2] and gate.in_flight == 2  # 1 and 2 hold their slots

    asyncio.run(main())


def test_a_cut_holds_new_calls_until_in_flight_ones_end() -> None:
    async def main() -> None:
        gate = AdaptiveConcurrency(8)
        rounds = [await gate.acquire() for _ in range(8)]
        gate.rate_limited(rounds[0])  # window 6, eight in flight
        blocked = asyncio.create_task(gate.acquire())
        await asyncio.sleep(0)
        gate.release()
        gate.release()
        await asyncio.sleep(0)
        assert not blocked.done()  # six still in flight: the cut window is full
        gate.release()
        assert await blocked == 1 and gate.in_flight == 6
        for _ in range(6):
            gate.release()
        assert gate.in_flight == 0

    asyncio.run(main())


def test_a_cancelled_waiter_gives_its_slot_back() -> None:
    async def main() -> None:
        gate = AdaptiveConcurrency(1)
        await gate.acquire()
        waiting = asyncio.create_task(gate.acquire())
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        gate.release()
        assert gate.in_flight == 0
        assert await gate.acquire() == 0 and gate.in_flight == 1

    asyncio.run(main())
