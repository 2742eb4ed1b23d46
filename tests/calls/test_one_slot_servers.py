"""One-slot servers (issue 39, item 7): time spent queued behind a busy server is no failure to retry into a storm.
A timeout cuts the concurrency window as a 429 does, a server that says how many calls it serves at once starts the
window there, and every command that calls models takes --timeout and --concurrency."""

from __future__ import annotations

import asyncio

import httpx
import openai
import pytest

from cobe.calls.limits import AdaptiveConcurrency
from cobe.calls.scheduler import Scheduler
from cobe.models import GenerateConfig, Message, ModelOutput, Provider, get_provider
from cobe.models.retry import is_timeout
from cobe.models.server_capacity import capacity_from, server_root
from support.cli import run_cobe

# every behaviour here holds on both HTTP transports (support.http_transport)
pytestmark = pytest.mark.usefixtures("http_transport")


ASK = [Message(role="user", content="Rewrite the story.")]


def test_a_timeout_cuts_the_window_to_what_the_server_answered_meanwhile() -> None:
    async def main() -> None:
        gate = AdaptiveConcurrency(32)
        rounds = [await gate.acquire() for _ in range(8)]
        for _ in range(8):  # eight answered while the first call waited in the server's queue
            gate.succeeded()
        gate.timed_out(rounds[0], answered_since=8)
        assert gate.limit == 4  # half of what fits in a timeout: a queue half as long
        gate.timed_out(rounds[1], answered_since=0)  # the same overload, reported late: no second cut
        assert gate.limit == 4
        for _ in rounds:
            gate.release()
        later = await gate.acquire()
        gate.timed_out(later, answered_since=0)  # nothing answered in a whole timeout: one at a time
        assert gate.limit == 1
        busy = AdaptiveConcurrency(32)
        busy.timed_out(await busy.acquire(), answered_since=500)  # a fast server: never less than a 429's cut
        assert busy.limit == 24

    asyncio.run(main())


def test_an_advertised_capacity_starts_the_window_and_caps_it_without_concurrency() -> None:
    gate = AdaptiveConcurrency(32)
    gate.start_at(1, ceiling=True)
    assert (gate.limit, gate.ceiling) == (1, 1)
    for _ in range(50):
        gate.succeeded()
    assert gate.limit == 1  # a one-slot server is never sent two at once
    asked = AdaptiveConcurrency(8)  # --concurrency 8 given: the window starts at the server's 2, may grow to 8
    asked.start_at(2, ceiling=False)
    assert (asked.limit, asked.ceiling) == (2, 8)


@pytest.mark.parametrize(
    ("exc", "timed_out"),
    [
        (TimeoutError(), True),
        (httpx.ReadTimeout("read timed out"), True),
        (openai.APITimeoutError(request=httpx.Request("POST", "http://127.0.0.1/v1")), True),
        (ConnectionResetError(), False),
        (ValueError("bad"), False),
    ],
)
def test_what_counts_as_a_timeout(exc: BaseException, timed_out: bool) -> None:
    assert is_timeout(exc) is timed_out


class Queued(Provider):
    """A server that times out every call until `answer` is set, as a one-slot server's queue does."""

    def __init__(self) -> None:
        super().__init__("mock/queued", "mock", "queued")
        self.answer = asyncio.Event()
        self.calls = 0

    async def generate(self, messages, config, *, scenario=None) -> ModelOutput:
        self.calls += 1
        if not self.answer.is_set():
            raise TimeoutError
        return ModelOutput(text="ok")

    def should_retry(self, exc: BaseException) -> bool:
        return False


def test_a_timed_out_call_lowers_its_lanes_window() -> None:
    async def main() -> None:
        provider = Queued()
        scheduler = Scheduler(concurrency=8, max_retries=0)
        outcomes = await asyncio.gather(*(scheduler.run(provider, ASK, GenerateConfig()) for _ in range(4)))
        assert [o.error for o in outcomes] == ["timeout"] * 4
        lane = scheduler.lanes[provider.spec]
        assert lane.slots.limit == 1 and scheduler.timeouts == 4

    asyncio.run(main())


class Busy(Provider):
    """A server whose first call runs out of time in its queue while it answers the two after it."""

    def __init__(self) -> None:
        super().__init__("mock/busy", "mock", "busy")
        self.answered_others = asyncio.Event()
        self.calls = 0

    async def generate(self, messages, config, *, scenario=None) -> ModelOutput:
        self.calls += 1
        if self.calls == 1:
            await self.answered_others.wait()
            raise TimeoutError
        if self.calls == 3:
            self.answered_others.set()
        return ModelOutput(text="ok")


def test_a_call_timed_out_in_a_busy_servers_queue_is_asked_again_without_a_backoff() -> None:
    async def main() -> None:
        provider = Busy()
        scheduler = Scheduler(concurrency=3, max_retries=2, backoff=30.0)  # a backoff would stall the test
        outcomes = await asyncio.gather(*(scheduler.run(provider, ASK, GenerateConfig()) for _ in range(3)))
        assert all(o.output is not None for o in outcomes) and outcomes[0].attempts == 2
        assert scheduler.timeouts == 1 and scheduler.waited_s == 0.0  # queue time is no failure to wait out
        assert scheduler.lanes[provider.spec].slots.cuts == 1  # the window was cut once, as for a 429

    asyncio.run(asyncio.wait_for(main(), timeout=20))


@pytest.mark.parametrize(("via", "slots"), [("props", 1), ("slots", 3), ("metrics", 2)])
def test_the_window_starts_at_what_the_server_says(openai_server, monkeypatch, via: str, slots: int) -> None:
    openai_server.control(slots=slots, slots_via=via, delay_s=0.02)
    monkeypatch.setenv("LLAMA_BASE_URL", openai_server.base_url)

    async def main() -> None:
        provider = get_provider("openai-api/llama/gemma")
        scheduler = Scheduler()
        try:
            outcomes = await asyncio.gather(*(scheduler.run(provider, ASK, GenerateConfig()) for _ in range(12)))
        finally:
            await provider.aclose()
        assert all(o.output is not None for o in outcomes)
        assert scheduler.lanes[provider.spec].slots.ceiling == slots

    asyncio.run(main())
    stats = openai_server.stats()
    assert stats["peak_in_flight"] <= slots and stats["requests"] == 12


def test_a_server_that_says_nothing_keeps_the_default_window(openai_server, monkeypatch) -> None:
    openai_server.control(delay_s=0.02)  # llama-cpp-python's own server: no /props, /slots or /metrics
    monkeypatch.setenv("LLAMA_BASE_URL", openai_server.base_url)

    async def main() -> None:
        provider = get_provider("openai-api/llama/gemma")
        scheduler = Scheduler()
        try:
            await asyncio.gather(*(scheduler.run(provider, ASK, GenerateConfig()) for _ in range(12)))
        finally:
            await provider.aclose()
        assert scheduler.lanes[provider.spec].slots.ceiling == provider.max_connections()

    asyncio.run(main())
    assert openai_server.stats()["peak_in_flight"] > 1
    assert openai_server.stats()["capacity_reads"] == 3  # asked once, at each place a server may say it


def test_what_each_server_family_says() -> None:
    assert server_root("http://user:pw@127.0.0.1:8080/v1/") == "http://127.0.0.1:8080"
    assert capacity_from("/props", '{"total_slots": 4}') == 4
    assert capacity_from("/props", '{"total_slots": true}') is None
    assert capacity_from("/slots", '[{"id": 0}, {"id": 1}]') == 2
    assert capacity_from("/metrics", 'vllm:cache_config_info{max_num_seqs="256"} 1.0') == 256
    assert capacity_from("/metrics", "vllm:num_requests_running 3.0") is None


MODEL_COMMANDS = [
    ["eval"],
    ["generate"],
    ["judge"],
    ["judges", "check"],
    ["judges", "analyze"],
    ["judges", "diff"],
    ["models", "check"],
    ["curate", "augment"],
    ["curate", "check"],
]


@pytest.mark.parametrize("command", MODEL_COMMANDS, ids=" ".join)
def test_every_command_that_calls_models_takes_timeout_and_concurrency(command: list[str]) -> None:
    shown = run_cobe(*command, "--help").stdout
    assert "--timeout" in shown and "--concurrency" in shown, command
