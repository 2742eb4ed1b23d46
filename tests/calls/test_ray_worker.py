"""The Ray executor's worker, as Ray Data calls it (no cluster needed): answers leave as packets as they finish,
a burst together and a slow model's one by one, a worker sends no more calls than its window until the driver
has stored their answers, and a worker whose driver is gone sends nothing more."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from types import SimpleNamespace
from typing import Any

from cobe.calls.ray_worker import (
    DRIVER_GONE,
    CallWorker,
    DriverAnchor,
    raylet_parent,
    stored_by_worker,
    wait_for_exit,
)
from cobe.models.base import GenerateConfig, Message
from cobe.models.wire import answer_rows, columns, read_answer, request_row

ASK = [Message(role="user", content="Rewrite the story had the kettle never boiled.")]


def batch(n: int) -> dict:
    return columns([request_row(i, ASK, GenerateConfig(max_tokens=20)) for i in range(n)])


def worker(spec: str, env: dict[str, str] | None = None, driver: Any = None, **scheduler: object) -> CallWorker:
    return CallWorker(spec, scheduler, env or {}, os.getcwd(), driver=driver)


class AnchorHandle:
    """A DriverAnchor as a worker reaches it through Ray (`handle.method.remote(...)`, awaited on the worker's
    loop), without a cluster: the test plays the driver with `stored`."""

    def __init__(self) -> None:
        self.anchor = DriverAnchor()

    def __getattr__(self, name: str) -> SimpleNamespace:
        return SimpleNamespace(remote=getattr(self.anchor, name))

    def stored(self, on: CallWorker, calls: dict[str, list[int]]) -> None:
        asyncio.run_coroutine_threadsafe(self.anchor.stored(calls), on.loop).result(timeout=10)


def test_a_burst_of_answers_leaves_as_one_packet():
    packets = list(worker("mock/echo")(batch(8)))
    assert len(packets) == 1
    assert sorted(read_answer(row)[0] for row in answer_rows(packets[0])) == list(range(8))


def test_a_slow_models_answers_leave_one_by_one_as_they_finish(openai_server):
    """One call at a time, 0.1 s each: every answer is its own packet, the first yielded before the last call is
    even sent."""
    openai_server.control(delay_s=0.1)
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": "sk-test"}
    answered = []
    for packet in worker("openai-api/fake/fake-model", env, concurrency=1)(batch(3)):
        answered.append(openai_server.stats()["requests"])
        assert [read_answer(row)[2] for row in answer_rows(packet)] == [None]  # one answer, no error
    assert len(answered) == 3 and answered[0] < 3


def test_a_worker_sends_no_more_than_its_window_until_the_driver_has_stored_answers(openai_server):
    """Concurrency 2: two calls out; their answers leave, and the third call waits until the driver says those two
    are stored. Before, answers piled up in a worker while Ray Data carried a few packets and the worker went on
    sending: a driver killed then re-paid them all (86 of 240 calls, every request already answered)."""
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": "sk-test"}
    handle = AnchorHandle()
    sender = worker("openai-api/fake/fake-model", env, handle, concurrency=2)
    answers = sender(batch(5))
    got = []
    try:
        while len(got) < 2:
            packet = next(answers)
            got += [read_answer(row)[0] for row in answer_rows(packet)]
            assert stored_by_worker(packet) == {sender.key: [read_answer(row)[0] for row in answer_rows(packet)]}
        assert sorted(got) == [0, 1]
        assert openai_server.stats()["requests"] == 2  # the window is spent: nothing more was sent
        handle.stored(sender, {sender.key: [0, 1, 0], "another-worker": [2]})  # a repeat frees no second credit
        while len(got) < 4:
            got += [read_answer(row)[0] for row in answer_rows(next(answers))]
        assert sorted(got) == [0, 1, 2, 3]
        assert openai_server.stats()["requests"] == 4
        handle.stored(sender, {sender.key: [2, 3]})
        got += [read_answer(row)[0] for row in answer_rows(next(answers))]
        assert sorted(got) == [0, 1, 2, 3, 4]
        assert openai_server.stats()["requests"] == 5
    finally:
        answers.close()
        asyncio.run_coroutine_threadsafe(sender._close(), sender.loop).result(timeout=10)


def test_a_worker_whose_driver_is_gone_sends_nothing(openai_server):
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": "sk-test"}
    orphan = worker("openai-api/fake/fake-model", env)
    orphan._orphan()
    rows = [row for packet in orphan(batch(4)) for row in answer_rows(packet)]
    assert {read_answer(row)[2] for row in rows} == {DRIVER_GONE}
    assert openai_server.stats()["requests"] == 0


def test_a_batch_given_up_sends_none_of_its_remaining_calls(openai_server):
    """Ray Data closes a batch's generator when it gives the batch up: the calls not yet sent never are."""
    # the second call is held at the server until the batch is given up (a delay instead let a busy machine's
    # close come after the second answer, and a third call was rightly sent meanwhile)
    openai_server.control(hold_after=1)
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": "sk-test"}
    answers = worker("openai-api/fake/fake-model", env, concurrency=1)(batch(6))
    next(answers)
    openai_server.wait_for(lambda stats: stats.held == 1, timeout=30)  # the one already out
    answers.close()
    openai_server.control(hold_after=None)
    threading.Event().wait(0.3)  # what a queued call would have needed to go out
    assert openai_server.stats()["requests"] == 2  # the answered call and the one that was out


def test_the_raylet_watch_returns_when_its_process_ends():
    assert raylet_parent() is None  # pytest's parent is no raylet: only the driver's anchor tells this worker
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    ended = threading.Event()
    watch = threading.Thread(target=lambda: (wait_for_exit(child.pid), ended.set()), daemon=True)
    watch.start()
    assert not ended.wait(0.2)
    assert child.stdin is not None
    child.stdin.close()
    child.wait()
    assert ended.wait(10)
