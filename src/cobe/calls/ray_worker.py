"""The worker side of the Ray executor: a cobe provider inside a Ray actor, answering request rows.

Ray Data builds one `CallWorker` per actor of a model's pool; each rebuilds the provider from its
spec once (the embedded model loads once per actor) and answers every batch of request rows
through a scheduler of its own, with the command's retries, timeouts and its share of the rate
limits. Workers never open the store: answers go back to the driver, its only writer, each as it
arrives (a batch's answers are yielded as they finish, not held until its last one), so a driver
killed mid-batch loses only the calls still unanswered.

A worker stops sending once its driver is gone: it asks the driver's `DriverAnchor` (an idle actor
the driver owns, which Ray ends with it) every ANCHOR_PING_S, and when that actor has died the
calls not yet sent are never sent (Ray's own end of an actor whose owner died waits for its batch).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from typing import Any

from cobe.calls.scheduler import Scheduler
from cobe.models.base import GenerateConfig, Message, Provider
from cobe.models.capabilities import ModelCapabilities
from cobe.models.registry import get_provider
from cobe.models.wire import answer_row, columns, read_request, rows

#: seconds between a worker's checks that its driver still runs
ANCHOR_PING_S = 0.2
#: the error of a call its worker did not send because the driver was gone (read by no one but a test)
DRIVER_GONE = "not sent: the command's driver is gone"


class DriverAnchor:
    """An idle actor the driver owns: Ray ends it when the driver dies, which is how its workers learn of it."""

    def alive(self) -> bool:
        """Answered while the driver runs."""
        return True


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
        self.loop = asyncio.new_event_loop()
        # the model's row as the driver resolved it (its --models-file and -M arguments included)
        caps = ModelCapabilities.model_validate(capabilities) if capabilities is not None else None
        self.provider: Provider = get_provider(spec, caps)
        self.scheduler = Scheduler(**scheduler)
        self.orphaned = threading.Event()  # the driver is gone: nothing more is sent
        if driver is not None:
            threading.Thread(target=self._watch, args=(driver,), name="cobe-driver-watch", daemon=True).start()

    def __call__(self, batch: dict[str, Any]) -> Iterator[dict[str, list[Any]]]:
        """Answer a batch of request rows, yielding the answers as they come (a call that fails after its
        retries is an answer row with its error)."""
        requests = [read_request(row) for row in rows(batch)]
        pending = {self.loop.create_task(self._answer(*request)) for request in requests}
        try:
            while pending:
                waited = asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                done, pending = self.loop.run_until_complete(waited)
                yield columns([task.result() for task in done])
        finally:  # a batch given up (its task cancelled): its calls not yet answered are not sent later
            for task in pending:
                task.cancel()
            if pending:
                self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))

    async def _answer(self, call_id: int, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        if self.orphaned.is_set():
            return answer_row(call_id, None, DRIVER_GONE, 0, False, None)
        outcome = await self.scheduler.run(self.provider, messages, config)
        if outcome.closed and self.orphaned.is_set():
            return answer_row(call_id, None, DRIVER_GONE, 0, False, None)
        return answer_row(call_id, outcome.output, outcome.error, outcome.attempts, outcome.refused, outcome.rejected)

    def _watch(self, driver: Any) -> None:
        """Ask the driver's anchor until it has died; then close every lane, so no waiting call is sent."""
        import ray
        from ray.exceptions import GetTimeoutError, RayActorError

        while True:
            try:
                ray.get(driver.alive.remote(), timeout=30)
            except GetTimeoutError:  # a busy node, not a dead driver
                continue
            except RayActorError:
                break
            except Exception:  # noqa: BLE001 - Ray shutting down in this worker: it ends with it
                return
            self.orphaned.wait(ANCHOR_PING_S)
        self.orphaned.set()
        for lane in list(self.scheduler.lanes.values()):
            lane.close()  # a flag the lane reads once a call holds a slot: calls queued there send nothing

    def __del__(self) -> None:
        # the provider's model and threads go with the actor; closing them is best effort
        try:
            self.loop.run_until_complete(self.provider.aclose())
            self.loop.close()
        except Exception:  # noqa: BLE001, S110 - an actor that is being torn down has no one to tell
            pass
