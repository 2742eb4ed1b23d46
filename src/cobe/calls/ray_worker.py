"""The worker side of the Ray executor: a cobe provider inside a Ray actor, answering request rows.

Ray Data builds one `CallWorker` per actor of a model's pool; each rebuilds the provider from its
spec once (the embedded model loads once per actor) and answers every batch of request rows
through a scheduler of its own, with the command's retries, timeouts and its share of the rate
limits. Workers never open the store: answers go back to the driver, its only writer, as they
finish, not held until a batch's last one, so a driver killed mid-batch loses only the calls still
unanswered. The calls run on an event loop of the worker's own thread, which never pauses: Ray Data
takes a generator's output a couple of blocks at a time, and each yield (a `packet`: the answers that
finished since the last one, as one row) waits there meanwhile.

A worker never has more calls sent and not yet stored than its lane's concurrency (its window): a call takes a
credit before it is sent, and the credit comes back only once the driver has committed its answer and told the
anchor so (`DriverAnchor.stored`; each packet names its worker). So a driver killed at any moment leaves at most a
window of calls per worker to pay again, however far the answers on their way back lag behind the model: with a
fast model and no window, a worker answered hundreds while Ray Data carried a few packets, all lost with the driver.

A worker stops sending once its driver is gone. The driver owns a `DriverAnchor`, an idle actor on the
driver's own node that Ray ends with its owner; each worker keeps one call to it waiting, which never
returns (awaited on the calls' loop), so the anchor's end reaches the worker as that call's ActorDiedError
at once (no polling), and the calls it has not yet sent are never sent. Ray's own end of an actor whose
owner died waits for its batch, which let workers go on sending for seconds after a SIGKILLed driver. The anchor lives on the driver's node:
a worker node removed mid-run (a fleet replacing a node) must not look like a dead driver.

A private Ray (`--executor ray` with no address) ends with its driver: its GCS and raylet go at once, so no
actor's death is ever announced, and a worker, until it notices its raylet is gone (about a second and a half
here), would go on sending. So a worker also waits on its parent, its node's raylet: once that process has
ended, nothing more is sent either.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import select
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

from cobe.calls.scheduler import Scheduler
from cobe.models.base import GenerateConfig, Message, Provider
from cobe.models.capabilities import ModelCapabilities
from cobe.models.registry import get_provider
from cobe.models.wire import ID, PACKET, answer_row, packet, read_request, rows

#: seconds between checks that the raylet still runs, where the OS cannot say when a process ends (no pidfd)
PARENT_POLL_S = 0.05
#: seconds a worker waits, after an answer, for more to leave with it: Ray Data carries each block at a cost
#: (tens of ms here), so a model answering in bursts sends a burst as one block, a slow one each answer alone
GATHER_S = 0.02
#: seconds before a worker asks again after the driver's anchor was unreachable for a moment
UNAVAILABLE_RETRY_S = 0.1
#: seconds a worker being torn down waits for its provider to close its connections
CLOSE_TIMEOUT_S = 5.0
#: the error of a call its worker did not send because the driver was gone (read by no one but a test)
DRIVER_GONE = "not sent: the command's driver is gone"
#: the column of a worker's packet that names the worker: the driver tells it which of its answers are stored
WORKER = "cobe_worker"


class DriverAnchor:
    """An idle actor the driver owns: Ray ends it when the driver dies, which is how its workers learn of it. It
    also carries the driver's word that answers are stored back to the workers that sent them."""

    def __init__(self) -> None:
        self._stored: dict[str, list[int]] = {}  # per worker, the calls stored since it last asked
        self._news: dict[str, asyncio.Event] = {}

    async def hold(self) -> None:
        """Never answers: a worker waiting on it learns of the anchor's end, and so of its driver's, at once."""
        await asyncio.Event().wait()

    async def stored(self, calls: dict[str, list[int]]) -> None:
        """The driver committed the answers of these calls, by the worker that sent them."""
        for worker, ids in calls.items():
            self._stored.setdefault(worker, []).extend(ids)
            self._news.setdefault(worker, asyncio.Event()).set()

    async def wait_stored(self, worker: str) -> list[int]:
        """The calls of `worker` stored since it last asked, once there is one."""
        news = self._news.setdefault(worker, asyncio.Event())
        await news.wait()
        news.clear()
        return self._stored.pop(worker, [])

    def node(self) -> str:
        """The id of the node it runs on: the driver's."""
        import ray

        return str(ray.get_runtime_context().get_node_id())


class CallWorker:
    """Ray Data's callable class for one model: `worker(batch of request rows) -> batch of answer rows`."""

    def __init__(
        self,
        spec: str,
        scheduler: dict[str, Any],
        env: dict[str, str],
        cwd: str,
        threads: int = 1,
        capabilities: dict[str, Any] | None = None,
        driver: Any = None,
    ) -> None:
        os.environ.update(env)
        os.environ["COBE_LLAMA_THREADS"] = str(threads)  # a CPU model uses this actor's share of the node
        if os.path.isdir(cwd):  # a spec's relative paths (mock scripts, GGUF files) read as on the driver
            os.chdir(cwd)
        # the calls run on a loop of their own thread, never paused: Ray Data takes a generator's answers only a
        # couple of blocks at a time (every ~0.1 s), and a loop that ran only while the generator did would stop
        # sending and reading whenever it waits there (a call took 40 ms that way, 20 times the local executor)
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="cobe-calls", daemon=True).start()
        # the model's row as the driver resolved it (its --models-file and -M arguments included)
        caps = ModelCapabilities.model_validate(capabilities) if capabilities is not None else None
        self.provider: Provider = get_provider(spec, caps)
        self.scheduler = Scheduler(**scheduler)
        self.orphaned = threading.Event()  # the driver is gone: nothing more is sent
        self.key = uuid.uuid4().hex  # named in each packet, so that the driver's word on what it stored finds us
        self.window: asyncio.Semaphore | None = None  # credits: calls that may be sent and not yet stored
        self.unstored: set[int] = set()  # the calls holding a credit
        if driver is not None:
            self.window = asyncio.Semaphore(self.scheduler.limits(self.provider).concurrency)
            asyncio.run_coroutine_threadsafe(self._watch(driver), self.loop)
            asyncio.run_coroutine_threadsafe(self._credits_back(driver), self.loop)
        raylet = raylet_parent()
        if raylet is not None:
            threading.Thread(target=self._watch_raylet, args=(raylet,), name="cobe-raylet-watch", daemon=True).start()

    def __call__(self, batch: dict[str, Any]) -> Iterator[dict[str, list[Any]]]:
        """Answer a batch of request rows, yielding the answers as they come: each yield holds every answer that
        finished since the last one, so a slow model's answers leave one by one and a fast model's in groups (a
        call that fails after its retries is an answer row with its error)."""
        answers: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        given_up = threading.Event()  # read by each call once its slot is granted, on the calls' loop
        calls = [
            asyncio.run_coroutine_threadsafe(self._answer_into(answers, given_up, *read_request(row)), self.loop)
            for row in rows(batch)
        ]
        try:
            left = len(calls)
            while left:
                finished = [answers.get()]
                # a moment for the answers finishing with it: a fast model's batch then leaves as one block
                deadline = time.monotonic() + GATHER_S
                while len(finished) < left and (wait := deadline - time.monotonic()) > 0:
                    try:
                        finished.append(answers.get(timeout=wait))
                    except queue.Empty:
                        break
                while not answers.empty():
                    finished.append(answers.get_nowait())
                left -= len(finished)
                yield {**packet(finished), WORKER: [self.key]}
        finally:  # a batch given up (its task cancelled): its calls not yet answered are not sent later
            # the flag first: the cancels reach the loop one by one, and a call out could end and hand its slot to
            # a waiting call before that one's cancel arrived (seen on a busy machine: a third call sent)
            given_up.set()
            for call in calls:
                call.cancel()

    async def _answer_into(
        self,
        answers: queue.SimpleQueue[dict[str, Any]],
        given_up: threading.Event,
        call_id: int,
        messages: list[Message],
        config: GenerateConfig,
    ) -> None:
        if self.window is not None:
            await self.window.acquire()  # back once the driver has stored this call's answer
            self.unstored.add(call_id)
        try:
            row = await self._answer(call_id, messages, config, given_up)
        except asyncio.CancelledError:  # never answered: its credit comes back now
            self._credit(call_id)
            raise
        except Exception as exc:  # noqa: BLE001 - never a lost row: the generator waits for every one
            row = answer_row(call_id, None, f"{type(exc).__name__}: the worker failed the call", 1, False, None)
        answers.put(row)

    def _credit(self, call_id: int) -> None:
        if self.window is not None and call_id in self.unstored:  # once per call, whatever the driver repeats
            self.unstored.discard(call_id)
            self.window.release()

    async def _credits_back(self, driver: Any) -> None:
        """Take back the credits of the calls whose answers the driver has stored, as it says so."""
        from ray.exceptions import ActorUnavailableError

        while True:
            try:
                stored = await driver.wait_stored.remote(self.key)
            except ActorUnavailableError:  # unreachable for a moment: not dead (the watch learns of a death)
                await asyncio.sleep(UNAVAILABLE_RETRY_S)
                continue
            except Exception:  # noqa: BLE001 - the anchor is gone, and the driver with it: nothing more is sent
                return
            for call_id in stored:
                self._credit(call_id)

    async def _answer(
        self, call_id: int, messages: list[Message], config: GenerateConfig, given_up: threading.Event
    ) -> dict[str, Any]:
        if self.orphaned.is_set():
            return answer_row(call_id, None, DRIVER_GONE, 0, False, None)
        outcome = await self.scheduler.run(self.provider, messages, config, may_send=lambda: not given_up.is_set())
        if outcome.closed and self.orphaned.is_set():
            return answer_row(call_id, None, DRIVER_GONE, 0, False, None)
        return answer_row(call_id, outcome.output, outcome.error, outcome.attempts, outcome.refused, outcome.rejected)

    async def _watch(self, driver: Any) -> None:
        """Wait on the driver's anchor until it has died; then close every lane, so no waiting call is sent."""
        from ray.exceptions import ActorDiedError, ActorUnavailableError

        while True:
            try:
                await driver.hold.remote()
            except ActorUnavailableError:  # unreachable for a moment (a busy or reconnecting node): not dead
                await asyncio.sleep(UNAVAILABLE_RETRY_S)
                continue
            except ActorDiedError:
                break
            except Exception:  # noqa: BLE001 - Ray shutting down in this worker: it ends with it
                return
        self._orphan()

    def _watch_raylet(self, pid: int) -> None:
        """Wait until this worker's raylet has ended (with a private Ray's driver); then send nothing more."""
        wait_for_exit(pid)
        self._orphan()

    def _orphan(self) -> None:
        self.orphaned.set()
        for lane in list(self.scheduler.lanes.values()):
            lane.close()  # a flag the lane reads once a call holds a slot: calls queued there send nothing

    def __del__(self) -> None:
        # the provider's model and threads go with the actor; closing them is best effort
        try:
            asyncio.run_coroutine_threadsafe(self._close(), self.loop).result(timeout=CLOSE_TIMEOUT_S)
            self.loop.call_soon_threadsafe(self.loop.stop)
        except Exception:  # noqa: BLE001, S110 - an actor that is being torn down has no one to tell
            pass

    async def _close(self) -> None:
        """Close the provider and end the waits on the anchor (a loop stopped under them reports each one)."""
        for task in asyncio.all_tasks() - {asyncio.current_task()}:
            task.cancel()
        await self.provider.aclose()


def stored_by_worker(batch: dict[str, Any]) -> dict[str, list[int]]:
    """The calls of a batch of packets by the worker that sent them (none for an engine stage's rows)."""
    calls: dict[str, list[int]] = {}
    for row in rows(batch):
        if row.get(WORKER) and PACKET in row:
            calls.setdefault(str(row[WORKER]), []).extend(int(r[ID]) for r in json.loads(str(row[PACKET])))
    return calls


def raylet_parent() -> int | None:
    """The pid of this process's parent when it is a Ray raylet (which starts every worker of its node), else None."""
    parent = os.getppid()
    try:
        with open(f"/proc/{parent}/comm", encoding="utf-8") as comm:
            name = comm.read().strip()
    except OSError:  # no /proc (not Linux): the driver's anchor alone tells the worker
        return None
    return parent if name == "raylet" else None


def wait_for_exit(pid: int) -> None:
    """Return once process `pid` (this process's parent) has ended: at once through a pidfd, else by polling."""
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):  # Linux before 5.3, or the process already gone
        while os.getppid() == pid:
            time.sleep(PARENT_POLL_S)
        return
    try:
        select.select([handle], [], [])  # a pidfd reads ready once its process has ended
    finally:
        os.close(handle)
