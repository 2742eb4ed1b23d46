"""The worker side of the Ray executor: a cobe provider inside a Ray actor, answering request rows.

Ray Data builds one `CallWorker` per actor of a model's pool; each rebuilds the provider from its
spec once (the embedded model loads once per actor) and answers every batch of request rows
through a scheduler of its own, with the command's retries, timeouts and its share of the rate
limits. Workers never open the store: answers go back to the driver, its only writer.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from cobe.calls.scheduler import Scheduler
from cobe.models.base import GenerateConfig, Message, Provider
from cobe.models.capabilities import ModelCapabilities
from cobe.models.registry import get_provider
from cobe.models.wire import answer_row, columns, read_request, rows


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

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        """Answer a batch of request rows; a call that fails after its retries is an answer row with its error."""
        requests = [read_request(row) for row in rows(batch)]
        return columns(self.loop.run_until_complete(self._answer(requests)))

    async def _answer(self, requests: list[tuple[int, list[Message], GenerateConfig]]) -> list[dict[str, Any]]:
        outcomes = await asyncio.gather(
            *(self.scheduler.run(self.provider, messages, config) for _, messages, config in requests)
        )
        return [
            answer_row(call_id, outcome.output, outcome.error, outcome.attempts, outcome.refused, outcome.rejected)
            for (call_id, _, _), outcome in zip(requests, outcomes)
        ]

    def __del__(self) -> None:
        # the provider's model and threads go with the actor; closing them is best effort
        try:
            self.loop.run_until_complete(self.provider.aclose())
            self.loop.close()
        except Exception:  # noqa: BLE001, S110 - an actor that is being torn down has no one to tell
            pass
