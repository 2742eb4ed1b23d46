"""What the batch judge needs from a provider's batch API: submit, find again, poll, read answers.

A provider with a batch API registers its adapter (a subclass of `BatchAPI`, in a module beside the
provider's own) together with its factory: `@register("openai", batch=OpenAIBatch)`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol

from cobe.models.base import GenerateConfig, Message, Provider


class PendingBatch(Protocol):
    """A submission recorded before the provider's batch id was known (the store's `batches` row)."""

    @property
    def created(self) -> str: ...  # ISO 8601, UTC
    @property
    def request_count(self) -> int: ...
    @property
    def input_file_id(self) -> str: ...  # the submission's ref


@dataclass(frozen=True, slots=True)
class BatchRequest:
    """One judge call for the batch: its cache key, its request as stored, its provider request body."""

    key: str
    request: str
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Poll:
    """A batch's status as the provider reported it, in the terms the batch judge works with."""

    status: str  # recorded in batches.state
    ended: bool  # no request will be answered any more
    done: int
    total: int
    failure: str | None = None  # why the batch as a whole did not finish normally (failed, expired, ...)
    output: str | None = None  # the provider's result file, where it has one
    errors: str | None = None  # the provider's error file, where it has one


@dataclass(frozen=True, slots=True)
class Answer:
    """One successful batch answer, as the normal path would have recorded it."""

    text: str
    finish_reason: str | None
    input_tokens: int
    output_tokens: int
    logprobs: dict[str, float] | None = None
    cached_input_tokens: int = 0  # of input_tokens: read from the provider's prompt cache
    cache_write_tokens: int = 0  # of input_tokens: written to it


class BatchAPI(ABC):
    """One provider's batch API; `ref` is what a submission is recognised by (batches.input_file_id)."""

    #: states after which a batch answers nothing more
    terminal: tuple[str, ...]
    #: the SDK's base error: raised by any call here, it ends the run with a one-line error
    error: type[BaseException]

    def __init__(self, provider: Provider, settings: GenerateConfig) -> None:
        self.provider, self.settings = provider, settings
        self.client = provider.batch_client()  # type: ignore[attr-defined]  # registered with a batch API

    @staticmethod
    def body(provider: Provider, messages: list[Message], settings: GenerateConfig) -> dict[str, Any]:
        """The request body of one call, exactly as the provider's normal path sends it (model included)."""
        return {"model": provider.model, **provider.request_kwargs(messages, settings)}  # type: ignore[attr-defined]

    @abstractmethod
    async def prepare(self, todo: list[BatchRequest]) -> str:
        """Whatever must exist before the batch is created; returns the submission's ref."""

    @abstractmethod
    async def create(self, todo: list[BatchRequest], ref: str) -> tuple[str, str]:
        """Create the batch; returns (batch id, status)."""

    @abstractmethod
    async def recover(self, row: PendingBatch) -> tuple[str, str] | None:
        """The provider's batch of a submission recorded but never adopted, as (id, status), or None."""

    @abstractmethod
    async def poll(self, batch_id: str) -> Poll:
        """The batch's current status."""

    @abstractmethod
    def answers(self, batch_id: str, poll: Poll, ref: str, keys: set[str]) -> AsyncIterator[tuple[str, Answer]]:
        """(key, answer) of every successful request of an ended batch whose key is in `keys`."""
