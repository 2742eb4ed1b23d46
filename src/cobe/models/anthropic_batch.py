"""Anthropic Message Batches (anthropic/ judges): the requests go inline, there is no file upload.

Recovery identity: a submission draws a random ref (12 hex digits), recorded with its keys before
the batch is created, and every custom_id of the batch is `<ref>-<first 51 hex of the key>` (64
characters, the API's limit). A run killed between creating the batch and noting its id lists the
batches created since the pending row (newest first) with the same request count. An ended one is
adopted only if its first result's custom_id carries the ref; of those still running, the one
created nearest the pending row is adopted. A wrong guess cannot record a wrong answer: answers are
mapped back through the ref, so a foreign batch's entries are ignored and its calls go the normal
way. Only when nothing matches is the submission dropped and sent again.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

from cobe.models.base import GenerateConfig, Provider
from cobe.models.batch_api import Answer, BatchAPI, BatchRequest, PendingBatch, Poll
from cobe.models.usage import anthropic_usage

KEY_CHARS = 51  # 12 (ref) + 1 + 51 = 64, the custom_id limit; 204 bits still never collide
# the provider's clock may differ from ours; a batch created this long before the pending row still counts
SKEW = timedelta(minutes=10)


def custom_id(ref: str, key: str) -> str:
    """The custom_id of one call in a submission: its ref, then a prefix of its call key."""
    return f"{ref}-{key[:KEY_CHARS]}"


def _total(counts: Any) -> int:
    return counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired


class AnthropicBatch(BatchAPI):
    """messages.batches of an AsyncAnthropic client."""

    terminal = ("ended",)

    def __init__(self, provider: Provider, settings: GenerateConfig) -> None:
        super().__init__(provider, settings)
        self.error = provider._anthropic.APIError  # type: ignore[attr-defined]
        self.batches = self.client.messages.batches

    async def prepare(self, todo: list[BatchRequest]) -> str:
        """A fresh ref; nothing to upload."""
        return secrets.token_hex(6)

    async def create(self, todo: list[BatchRequest], ref: str) -> tuple[str, str]:
        """One batch with every request inline."""
        batch = await self.batches.create(
            requests=[{"custom_id": custom_id(ref, r.key), "params": r.body} for r in todo]
        )
        return batch.id, batch.processing_status

    async def recover(self, row: PendingBatch) -> tuple[str, str] | None:
        """The batch of a pending submission: verified by its results once ended, else the nearest in time."""
        created = datetime.fromisoformat(row.created)  # 3.11 reads the trailing Z
        running = []
        async for batch in self.batches.list(limit=100):
            if batch.created_at < created - SKEW:
                break  # newest first: the rest are older than the submission
            if _total(batch.request_counts) != row.request_count:
                continue
            if batch.processing_status != "ended":
                running.append(batch)
            elif (await self._first_custom_id(batch.id) or "").startswith(row.input_file_id + "-"):
                return batch.id, batch.processing_status
        if not running:
            return None
        nearest = min(running, key=lambda b: abs(b.created_at - created))
        return nearest.id, nearest.processing_status

    async def _first_custom_id(self, batch_id: str) -> str | None:
        results = await self.batches.results(batch_id)
        try:
            async for entry in results:
                return entry.custom_id
            return None
        finally:
            await results.close()

    async def poll(self, batch_id: str) -> Poll:
        """Processing status and counts of one batch; expired or cancelled requests make it a failure."""
        batch = await self.batches.retrieve(batch_id)
        counts = batch.request_counts
        total = _total(counts)
        ended = batch.processing_status == "ended"
        failure = None
        if ended and counts.expired:
            failure = "expired"
        elif ended and counts.canceled:
            failure = "cancelled"
        return Poll(batch.processing_status, ended, total - counts.processing, total, failure)

    async def answers(self, batch_id: str, poll: Poll, ref: str, keys: set[str]) -> AsyncIterator[tuple[str, Answer]]:
        """The succeeded entries of the batch's results, mapped back to call keys through the ref."""
        by_id = {custom_id(ref, key): key for key in keys}
        results = await self.batches.results(batch_id)
        async for entry in results:
            key = by_id.get(entry.custom_id)
            if key is None or entry.result.type != "succeeded":
                continue  # foreign, errored, cancelled or expired: the normal path asks it again
            message = entry.result.message
            text = "".join(block.text for block in message.content if block.type == "text")
            usage = anthropic_usage(message.usage)
            yield (
                key,
                Answer(
                    text,
                    message.stop_reason,
                    usage.input_tokens,
                    usage.output_tokens,
                    cached_input_tokens=usage.cached_input_tokens,
                    cache_write_tokens=usage.cache_write_tokens,
                ),
            )
