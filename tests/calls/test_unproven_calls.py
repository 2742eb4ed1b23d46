"""While no answer has proven a model's settings only a few of its calls go at once; its first answer lets every
waiting call go in the same turn of the event loop, not one per turn (issue 42, item 2)."""

from __future__ import annotations

import asyncio

from cobe.calls.caller import UNPROVEN_AT_ONCE, _Unproven

PAIR = ("openai-api/fake/m", '{"temperature": 0}')
OTHER = ("openai-api/fake/m", '{"temperature": 1}')


async def test_a_pairs_first_answer_lets_every_waiting_call_go_at_once() -> None:
    gate = _Unproven()
    held = [await gate.enter(PAIR) for _ in range(UNPROVEN_AT_ONCE)]
    assert held == [True] * UNPROVEN_AT_ONCE
    waiting = [asyncio.create_task(gate.enter(PAIR)) for _ in range(20)]
    other = asyncio.create_task(gate.enter(OTHER))
    await asyncio.sleep(0)
    assert not any(task.done() for task in [*waiting, other])  # the slots are taken
    gate.prove(PAIR)
    gate.leave()
    await asyncio.sleep(0)  # one turn of the loop
    assert all(task.done() and task.result() is False for task in waiting)  # proven: they hold no slot
    assert other.done() and other.result() is True  # the freed slot goes to the other pair's call


async def test_a_cancelled_waiter_leaves_no_slot_taken() -> None:
    gate = _Unproven()
    for _ in range(UNPROVEN_AT_ONCE):
        await gate.enter(PAIR)
    first, second = asyncio.create_task(gate.enter(OTHER)), asyncio.create_task(gate.enter(OTHER))
    await asyncio.sleep(0)
    first.cancel()
    gate.leave()
    await asyncio.sleep(0)
    assert first.cancelled() and second.done() and second.result() is True
