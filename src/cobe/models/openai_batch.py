"""The OpenAI Batch API (openai/ and openai-api/ judges): a JSONL file upload, then one batch over it.

A submission's ref is its input file id: a run killed between creating the batch and noting its
id lists the provider's batches and adopts the one made from that file. A model the Responses API
serves is batched through `/v1/responses`, one asked through the completions endpoint through `/v1/completions`,
every other through `/v1/chat/completions`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from cobe.models.base import GenerateConfig, Provider
from cobe.models.batch_api import Answer, BatchAPI, BatchRequest, PendingBatch, Poll
from cobe.models.openai_chat_reply import read_chat
from cobe.models.openai_completions import read_completion
from cobe.models.openai_responses import FailedReply, read_response

WINDOW = "24h"


class OpenAIBatch(BatchAPI):
    """Files + Batches of an AsyncOpenAI client."""

    # the provider's final states; any other state means the batch may still answer
    terminal = ("completed", "failed", "expired", "cancelled")

    def __init__(self, provider: Provider, settings: GenerateConfig) -> None:
        super().__init__(provider, settings)
        self.error = provider._openai.APIError  # type: ignore[attr-defined]
        self.endpoint: str = provider.api_path  # type: ignore[attr-defined]

    async def prepare(self, todo: list[BatchRequest]) -> str:
        """Upload the requests as a batch input file; its id is the ref."""
        lines = "".join(
            json.dumps({"custom_id": r.key, "method": "POST", "url": self.endpoint, "body": r.body}) + "\n"
            for r in todo
        )
        upload = await self.client.files.create(
            file=("cobe-judge.jsonl", lines.encode("utf-8"), "application/jsonl"), purpose="batch"
        )
        return upload.id

    async def create(self, todo: list[BatchRequest], ref: str) -> tuple[str, str]:
        """A batch over the uploaded file."""
        batch = await self.client.batches.create(input_file_id=ref, endpoint=self.endpoint, completion_window=WINDOW)
        return batch.id, batch.status or "validating"

    async def recover(self, row: PendingBatch) -> tuple[str, str] | None:
        """The batch made from the submission's input file."""
        async for batch in self.client.batches.list(limit=100):
            if batch.input_file_id == row.input_file_id:
                return batch.id, batch.status or "validating"
        return None

    async def poll(self, batch_id: str) -> Poll:
        """Status, counts and result files of one batch."""
        batch = await self.client.batches.retrieve(batch_id)
        counts = batch.request_counts
        done, total = (counts.completed + counts.failed, counts.total) if counts else (0, 0)
        ended = batch.status in self.terminal
        failure = batch.status if ended and batch.status != "completed" else None
        return Poll(batch.status, ended, done, total, failure, batch.output_file_id, batch.error_file_id)

    async def answers(self, batch_id: str, poll: Poll, ref: str, keys: set[str]) -> AsyncIterator[tuple[str, Answer]]:
        """The successful lines of the batch's output file."""
        if not poll.output:
            return
        content = await self.client.files.content(poll.output)
        for line in content.text.splitlines():
            if not line.strip():
                continue
            entry = json.loads(line)
            key, response = entry.get("custom_id"), entry.get("response") or {}
            body = response.get("body") or {}
            answer = self._answer(body) if key in keys and response.get("status_code") == 200 else None
            if answer is not None:  # else unknown or failed: the normal path asks it again
                yield key, answer

    def _answer(self, body: dict[str, Any]) -> Answer | None:
        """One answer of a chat completion or a Responses reply, as the normal path records it."""
        try:
            if self.endpoint == "/v1/completions":  # a base model's plain prompt: its choice read as a live call's
                read = read_completion(body, logprobs=self.settings.logprobs, choices=self.settings.choices)
            else:
                reader = read_response if self.endpoint.endswith("/responses") else read_chat
                read = reader(body, logprobs=self.settings.logprobs)
        except FailedReply:
            return None  # failed or empty: the normal path asks it again, and records what it says
        return Answer(
            read["text"],
            read["finish_reason"],
            read["input_tokens"],
            read["output_tokens"],
            read["first_token_logprobs"],
            cached_input_tokens=read["cached_input_tokens"],
        )
