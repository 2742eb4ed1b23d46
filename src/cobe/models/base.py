"""The one narrow interface every model provider implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario


class Message(BaseModel):
    """One chat message."""

    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str


class GenerateConfig(BaseModel):
    """Sampling settings; every field is part of a call's cache key."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    seed: int | None = None
    stop: tuple[str, ...] | None = None
    logprobs: bool = False  # ask for the top alternatives of the first token (judge P(T))
    # restrict the answer to one of these strings where the provider can (local llama.cpp);
    # providers that cannot ignore it and rely on the prompt's instruction
    choices: tuple[str, ...] | None = None


def sampling_fields(config: GenerateConfig) -> dict[str, Any]:
    """temperature, top_p and seed where set: the keyword names most inference APIs share."""
    fields = {"temperature": config.temperature, "top_p": config.top_p, "seed": config.seed}
    return {name: value for name, value in fields.items() if value is not None}


class ModelOutput(BaseModel):
    """What one call returned."""

    text: str
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    # log-probabilities of the first generated token's top alternatives, token → logprob
    first_token_logprobs: dict[str, float] | None = None
    raw: dict | None = Field(default=None, exclude=True)


@dataclass(slots=True)
class CallRecord:
    """What a call returned once the harness recorded it: from the provider, or from the store (`cached`)."""

    key: str
    text: str | None
    error: str | None = None
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    attempts: int = 1
    first_token_logprobs: dict[str, float] | None = None
    cost_usd: float | None = None
    cached: bool = False


class Provider(ABC):
    """A model behind a spec such as `openai/gpt-5.4`; one async method does the work."""

    #: the full spec string, e.g. "openai-api/vllm/my-model"
    spec: str
    #: the provider prefix, e.g. "openai"
    provider: str
    #: the model name part of the spec
    model: str
    #: whether the model follows chat turns (a chat template); base models without one get the plain
    #: completion format of `cobe.prompts.completion` instead, and their calls record it in the prompt
    chat_template: bool = True

    def __init__(self, spec: str, provider: str, model: str) -> None:
        self.spec, self.provider, self.model = spec, provider, model

    @abstractmethod
    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, scenario: Scenario | None = None
    ) -> ModelOutput:
        """Run one chat completion. `scenario` is context for baselines only, never sent to a model."""

    def should_retry(self, exc: BaseException) -> bool:
        """Whether an exception is transient (rate limit, 5xx, timeout, connection error)."""
        return False

    def retry_after(self, exc: BaseException) -> float | None:
        """Seconds the server asked us to wait (Retry-After), if it said."""
        return None

    def max_connections(self) -> int:
        """Default concurrency for this provider when --concurrency is not given."""
        return 8

    def cacheable(self) -> bool:
        """Whether identical calls may be answered from the store (false for scripted mocks that count)."""
        return True

    async def generate_many(
        self,
        requests: list[tuple[list[Message], GenerateConfig]],
    ) -> list[ModelOutput | BaseException] | None:
        """Optional batch path (offline vLLM); None means 'use generate per call'."""
        return None

    async def aclose(self) -> None:  # noqa: B027  (an optional hook: most providers hold nothing)
        """Release clients, files or GPU memory."""
