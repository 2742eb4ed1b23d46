"""Once the disk is full, a call waiting for its turn is never sent: only the calls already out still come back."""

from __future__ import annotations

import asyncio

import pytest

from cobe.calls.caller import Caller
from cobe.calls.scheduler import Scheduler
from cobe.core.errors import DiskFull
from cobe.models.base import Message
from cobe.models.registry import get_provider
from cobe.models.settings import GenerateConfig
from cobe.store.store import Store
from support.store_reads import stored_count


async def test_a_call_queued_when_the_disk_fills_is_not_sent_and_the_one_out_is_kept(tmp_path, monkeypatch):
    store = Store(tmp_path / "cobe.sqlite")
    caller = Caller(store, Scheduler(concurrency=1))  # one call out; the other waits for its turn
    provider = get_provider("mock/echo")
    answer, gate, out = provider.generate, asyncio.Event(), asyncio.Event()
    sent: list[str] = []

    async def generate(messages, *args, **kwargs):
        sent.append(messages[-1].content)
        out.set()
        await gate.wait()
        return await answer(messages, *args, **kwargs)

    monkeypatch.setattr(provider, "generate", generate)

    def ask(text: str) -> asyncio.Task:
        messages = [Message(role="user", content=text)]
        return asyncio.create_task(caller.call(provider, messages, GenerateConfig(), role="respondent"))

    try:
        first = ask("first")
        await out.wait()
        queued = ask("queued")
        for _ in range(20):  # the queued call is past every check it meets before its turn
            await asyncio.sleep(0)
        store.out_of_space = True  # another write met a full disk meanwhile
        gate.set()
        record = await first
        with pytest.raises(DiskFull):
            await queued
        assert record.text and sent == ["first"]  # the waiting call was never sent
        assert stored_count(tmp_path) == 1  # the answer of the call that was out is kept
    finally:
        store.close()
