"""The driver side of the Ray executor: calls wait for the next wave, a wave runs as Ray Datasets.

`WaveScheduler` takes the place of the local `Scheduler` under the same `Caller`, so the cache,
coalescing, the budget, the stats, every store write and the progress stay exactly what the local
executor does. What changes is where a call goes: a call to a portable provider is parked, and once
the command's work has nothing left to do but wait (every item is waiting on a parked call) the
parked calls leave as one wave: per model a Ray Dataset of request rows, answered by an actor pool
of that model (or by its own stage: vLLM engines through ray.data.llm), all models' datasets read
back as one stream with `iter_batches`. A worker yields the answers that finished since its last
yield as one packet, which comes back as a block of its own (`STREAMED_BLOCK_BYTES`); whatever has
arrived is committed as one transaction (`Store.batch`): its calls, and the responses and verdicts they
complete; then the driver's `DriverAnchor` tells each worker which of its calls are stored, and only then
may it send as many more: a driver killed mid-wave loses at most each worker's window (its lane's
concurrency) of calls. The workers watch the anchor (and a private Ray's raylet) and send nothing once it
is gone. The items then go on and park their next calls (the judge's after a response, a re-ask after an
unparseable verdict), which form the next wave: generate → judge → re-asks, a few waves per command
whatever its size.

Calls of providers that are not portable (order-dependent mock scripts, baselines) run here, on the
local scheduler, as they always did.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from cobe.calls.executor import forwarded_env
from cobe.calls.limits import Limits
from cobe.calls.ray_worker import CallWorker, DriverAnchor, stored_by_worker
from cobe.calls.scheduler import Outcome, Scheduler
from cobe.core.errors import CobeError
from cobe.core.secrets import scrub, scrub_cut
from cobe.models.base import GenerateConfig, Message, Provider
from cobe.models.registry import ray_stage
from cobe.models.wire import answer_rows, read_answer, request_row
from cobe.store.store import Store

T = TypeVar("T")
#: event-loop turns without a new parked call after which the command's work counts as waiting: a woken
#: item reaches its next call within a handful of turns (a gather, a coalesced waiter), so this is ample
SETTLE_TURNS = 64
#: items in flight at once: all of them, so that one wave holds every call of a stage
ALL_ITEMS = 10**9
_DONE = object()
#: calls the driver's anchor takes at once: two per worker of the cluster, and the driver's
ANCHOR_CALLS = 100_000
#: the resource Ray gives the head node alone
HEAD_RESOURCE = "node:__internal_head__"
#: the target size of a block of answers: below any packet's, so each packet a worker yields (the answers that
#: finished since its last) leaves it as a block of its own at once, instead of waiting in the worker for more
#: (Ray Data's default is 128 MB)
STREAMED_BLOCK_BYTES = 1


@dataclass
class _Parked:
    provider: Provider
    messages: list[Message]
    config: GenerateConfig
    future: asyncio.Future[Outcome]


@dataclass(frozen=True)
class Pool:
    """A model's workers on the cluster: actors, CPUs and GPUs per actor, rows per batch."""

    actors: int
    cpus: float
    gpus: float
    batch_size: int


def _env_number(name: str) -> float | None:
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def pool_for(provider: Provider, resources: dict[str, float]) -> Pool:
    """How many workers a model gets: COBE_RAY_ACTORS / _CPUS / _GPUS / _BATCH, else from the cluster's size.

    CPU models get one single-CPU actor per CPU of the cluster; a model on GPUs (vllm/) one replica per
    COBE_RAY_GPUS GPUs (1 by default). A batch is what one actor answers at a time: small for a model
    answering one call at a time, so results stream back and a lost worker costs little.
    """
    gpus = _env_number("COBE_RAY_GPUS") or (1.0 if provider.provider == "vllm" else 0.0)
    cpus = _env_number("COBE_RAY_CPUS") or 1.0
    if gpus:
        fit = int(resources.get("GPU", 0.0) // gpus)
    else:
        fit = int(resources.get("CPU", 1.0) // cpus)
    actors = int(_env_number("COBE_RAY_ACTORS") or max(1, fit))
    batch = int(_env_number("COBE_RAY_BATCH") or min(64, 4 * provider.max_connections()))
    return Pool(actors=actors, cpus=cpus, gpus=gpus, batch_size=max(1, batch))


class WaveScheduler(Scheduler):
    """A Scheduler whose portable calls run as waves on a Ray cluster; the others run here."""

    MAX_ITEMS_IN_FLIGHT = ALL_ITEMS

    def __init__(self, ray: Any, store: Store, **options: Any) -> None:
        super().__init__(**options)
        self.ray, self.store = ray, store
        # a worker's scheduler tells no one of its retries: the callback stays with the driver
        self.worker_options = {name: value for name, value in options.items() if name != "on_event"}
        self._parked: list[_Parked] = []
        self._ticks = 0  # parked calls so far: the settle loop watches it move
        self._arrived = asyncio.Event()
        self.waves: list[int] = []  # calls per wave, for tests and logs
        self._anchor: Any = None  # the DriverAnchor of this command's workers, made with the first wave

    def limits(self, provider: Provider) -> Limits:
        """The local lane of a provider; a portable one never queues here, so its window is unbounded."""
        lane = self.lanes.get(provider.spec)
        if lane is None and provider.portable():
            lane = self.lanes[provider.spec] = Limits(ALL_ITEMS)
        return lane if lane is not None else super().limits(provider)

    async def run(
        self,
        provider: Provider,
        messages: list[Message],
        config: GenerateConfig,
        scenario: Any = None,
        tokens: int = 0,
        may_send: Callable[[], bool] | None = None,
    ) -> Outcome:
        """Park a portable call until its wave answers it; run any other here."""
        if not provider.portable():
            return await super().run(provider, messages, config, scenario, tokens, may_send)
        # the provider refused the key, or the command stops sending (a full disk): send nothing more to it
        if self.limits(provider).closed or (may_send is not None and not may_send()):
            return Outcome(None, None, 0, closed=True)
        future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        if self._anchor is None and ray_stage(provider.spec) is None:
            self._driver_anchor()  # its worker process starts while the wave fills, not after
        self._parked.append(_Parked(provider, messages, config, future))
        self._ticks += 1
        self._arrived.set()
        return await future

    async def carry(self, work: Awaitable[T]) -> T:
        """Run the command's work, sending its parked calls out wave after wave until it is done."""
        task = asyncio.ensure_future(work)
        try:
            while not task.done():
                await self._settle(task)
                if self._parked:
                    await self._wave(task)
                elif not task.done():  # local calls still running: wait for them, or for a parked call
                    self._arrived.clear()
                    waiter = asyncio.ensure_future(self._arrived.wait())
                    await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
                    waiter.cancel()
            return task.result()
        finally:
            if not task.done():  # cancelled (Ctrl-C): the work ends with it, as it would locally
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            self._cancel_parked()
            self._release_anchor()

    async def _settle(self, task: asyncio.Future[Any]) -> None:
        """Yield to the work until it has parked every call it can reach (no new one for SETTLE_TURNS turns)."""
        quiet, seen = 0, self._ticks
        while quiet < SETTLE_TURNS and not task.done():
            await asyncio.sleep(0)
            quiet = quiet + 1 if self._ticks == seen else 0
            seen = self._ticks

    def _cancel_parked(self) -> None:
        for parked in self._parked:
            parked.future.cancel()
        self._parked = []

    async def _wave(self, task: asyncio.Future[Any]) -> None:
        """Send every parked call as one wave and hand each answer back as its batch arrives."""
        wave, self._parked = self._parked, []
        self.waves.append(len(wave))
        loop = asyncio.get_running_loop()
        arrivals: asyncio.Queue[Any] = asyncio.Queue()
        stop = threading.Event()

        def stream() -> None:
            try:
                for batch in self._stream(wave):
                    if stop.is_set():
                        return
                    loop.call_soon_threadsafe(arrivals.put_nowait, batch)
            except BaseException as exc:  # noqa: BLE001 - handed to the loop, which ends the wave with it
                loop.call_soon_threadsafe(arrivals.put_nowait, exc)
            finally:
                loop.call_soon_threadsafe(arrivals.put_nowait, _DONE)

        reader = threading.Thread(target=stream, name="cobe-ray-wave", daemon=True)
        reader.start()
        try:
            done = False
            while not done:
                # every answer that has arrived meanwhile goes into one commit: each comes back as a block of its
                # own, and a commit (with the items it completes) per answer let a fast cluster outrun the driver
                arrived = [await arrivals.get()]
                while not arrivals.empty():
                    arrived.append(arrivals.get_nowait())
                done = _DONE in arrived
                batches = [b for b in arrived if b is not _DONE and not isinstance(b, BaseException)]
                if batches:
                    with self.store.batch():
                        for batch in batches:
                            self._answer(wave, batch)
                        await self._settle(task)  # the items these answers complete write inside the batch
                    self._tell_stored(batches)
                for failure in (b for b in arrived if isinstance(b, BaseException)):
                    self._fail(wave, failure)
        finally:
            stop.set()
        self._fail(wave, CobeError("the Ray cluster returned no answer for some calls"))

    def _tell_stored(self, batches: list[dict[str, Any]]) -> None:
        """Tell the workers, through the anchor, which of their calls are committed: each may then send as many
        more (a worker's calls sent and not stored never outnumber its lane's concurrency)."""
        stored: dict[str, list[int]] = {}
        for batch in batches:
            for worker, ids in stored_by_worker(batch).items():
                stored.setdefault(worker, []).extend(ids)
        if stored and self._anchor is not None:
            self._anchor.stored.remote(stored)

    def _answer(self, wave: list[_Parked], batch: dict[str, Any]) -> None:
        for row in answer_rows(batch):
            call_id, output, error, attempts, refused, rejected = read_answer(row)
            parked = wave[call_id]
            if parked.future.done():  # a retried batch answering again: the first answer stands
                continue
            self.retries += max(0, attempts - 1)
            parked.future.set_result(Outcome(output, error, attempts, refused=refused, rejected=rejected))

    def _fail(self, wave: list[_Parked], exc: BaseException) -> None:
        """End every call of the wave still waiting, with the wave's error as one line."""
        waiting = [p for p in wave if not p.future.done()]
        if not waiting:
            return
        line = exc if isinstance(exc, CobeError) else CobeError(f"the Ray cluster failed the calls: {_first_line(exc)}")
        for parked in waiting:
            parked.future.set_exception(line)
            parked.future.exception()  # retrieved: a waiter that was cancelled meanwhile leaves no warning

    def _stream(self, wave: list[_Parked]) -> Iterator[dict[str, Any]]:
        """The answer batches of a wave, as the cluster finishes them (run in the reader thread)."""
        ray = self.ray
        by_spec: dict[str, list[int]] = {}
        for call_id, parked in enumerate(wave):
            by_spec.setdefault(parked.provider.spec, []).append(call_id)
        resources = ray.cluster_resources()
        parts = [self._dataset(wave[ids[0]].provider, wave, ids, resources) for ids in by_spec.values()]
        stream = parts[0].union(*parts[1:]) if len(parts) > 1 else parts[0]
        # workers' packets stream back as blocks of their own. Set on the stream alone (its own copy of the
        # context), once its request blocks exist: made under it, from_items cut them row by row, and each block
        # costs Ray Data tens of milliseconds. An engine stage's answers are rows, which it would carry one by
        # one too: a wave with an engine stage keeps Ray's block size
        if not any(ray_stage(wave[ids[0]].provider.spec) for ids in by_spec.values()):
            stream.context.target_max_block_size = STREAMED_BLOCK_BYTES
        # no prefetch: a prefetched batch is held back until the one after it is ready, and an answer must
        # reach the store as soon as its batch ends (a driver killed later then never repeats it)
        yield from stream.iter_batches(batch_size=None, batch_format="numpy", prefetch_batches=0)

    def _dataset(self, provider: Provider, wave: list[_Parked], ids: list[int], resources: dict[str, float]) -> Any:
        """One model's part of a wave: its request rows, answered by its worker pool or its own stage."""
        ray = self.ray
        pool = pool_for(provider, resources)
        requests = [request_row(i, wave[i].messages, wave[i].config) for i in ids]
        blocks = max(1, math.ceil(len(requests) / pool.batch_size))
        pool = replace(pool, actors=min(pool.actors, blocks))  # no actor (nor model load) without a batch to answer
        dataset = ray.data.from_items(requests, override_num_blocks=blocks)
        stage = ray_stage(provider.spec)
        if stage is not None:
            from cobe.models.vllm_ray import EnginePool

            engines = EnginePool(replicas=pool.actors, gpus=int(pool.gpus) or 1, batch_size=pool.batch_size)
            return stage(provider.spec, provider.model, engines)(dataset)
        return dataset.map_batches(
            CallWorker,
            fn_constructor_kwargs={
                "spec": provider.spec,
                "scheduler": self._worker_scheduler(pool.actors),
                "env": forwarded_env(),
                "cwd": os.getcwd(),
                "threads": max(1, int(pool.cpus)),
                "capabilities": provider.capabilities.model_dump(mode="json"),
                "driver": self._driver_anchor(),
            },
            batch_size=pool.batch_size,
            compute=ray.data.ActorPoolStrategy(size=pool.actors),
            num_cpus=pool.cpus,
            num_gpus=pool.gpus or None,
        )

    def _driver_anchor(self) -> Any:
        """The idle actor this driver owns, on the driver's node, whose end tells the workers that the driver is
        gone (on another node, that node's removal would end it too, and stop every worker of a live driver)."""
        if self._anchor is None:
            # every worker keeps two calls waiting on it (`hold`, `wait_stored`): Ray's default of 1,000 at once
            # would stall the 501st worker's credits, and with them its calls
            options: dict[str, Any] = {"num_cpus": 0, "max_concurrency": ANCHOR_CALLS}
            node = _driver_node(self.ray)
            if node is not None:
                from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

                # hard: a soft affinity lets Ray place it on another node when the driver's is busy (seen here)
                options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id=node, soft=False)
            else:  # a Ray Client driver: the head node, where the client's server runs the driver's side
                options["resources"] = {HEAD_RESOURCE: 0.001}
            self._anchor = self.ray.remote(**options)(DriverAnchor).remote()
        return self._anchor

    def _release_anchor(self) -> None:
        """End the command's anchor with the command (every wave is over): a driver that goes on to another
        command (the Python API, a notebook) would otherwise keep it, and a later command's workers started
        seconds slower beside it (seen here)."""
        if self._anchor is not None:
            with contextlib.suppress(Exception):  # Ray already shut down: the anchor went with it
                self.ray.kill(self._anchor)
            self._anchor = None

    def _worker_scheduler(self, actors: int) -> dict[str, Any]:
        """The scheduler options of one worker: the command's, with --rpm, --tpm and --concurrency shared out."""
        options = dict(self.worker_options)
        for name in ("rpm", "tpm"):
            if options.get(name):
                options[name] = options[name] / actors
        if options.get("concurrency"):
            options["concurrency"] = max(1, math.ceil(options["concurrency"] / actors))
        return options


def _driver_node(ray: Any) -> str | None:
    """The id of the node this driver runs on, or None where Ray cannot say (a Ray Client driver)."""
    try:
        node = ray.get_runtime_context().get_node_id()
    except Exception:  # noqa: BLE001 - Ray Client has no node of its own: the anchor goes where Ray puts it
        return None
    return node if isinstance(node, str) and node else None


def _first_line(exc: BaseException) -> str:
    return scrub_cut(" ".join(scrub(str(exc)).split()) or type(exc).__name__, 300)


__all__ = ["Pool", "WaveScheduler", "pool_for"]
