"""Anthropic Messages API, for `anthropic/<model>`."""

from __future__ import annotations

import inspect
import os
import time
from typing import TYPE_CHECKING, Any

from cobe.core.errors import InputError
from cobe.core.secrets import env_secret
from cobe.models.anthropic_batch import AnthropicBatch
from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider, endpoint_name, finish_reason
from cobe.models.fitting import Fitted, fit
from cobe.models.reasoning import REASONING_MAX_TOKENS
from cobe.models.registry import register
from cobe.models.retry import retry_after_from, sdk_error_is_transient
from cobe.models.sdk import client_url, import_sdk, pooled_http_client, request_timeout
from cobe.models.usage import anthropic_usage

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

# the Messages API requires max_tokens; rewrites of ~40-word stories fit easily
DEFAULT_MAX_TOKENS = 1024


def message_kwargs(messages: list[Message], fitted: Fitted) -> dict[str, Any]:
    """Messages + fitted settings → the body of messages.create; system text goes to `system=`.

    Thinking is a budget (`thinking: enabled`, budget_tokens from the level) or adaptive (`thinking:
    adaptive`, the level as output_config.effort); off, nothing about thinking is sent. The API has neither
    seed nor logprobs: the row never lists them, so they are named as not sent.
    """
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    limit = fitted.max_tokens
    if limit is None:
        limit = REASONING_MAX_TOKENS if fitted.thinks else DEFAULT_MAX_TOKENS
    kwargs: dict[str, Any] = {
        "messages": [{"role": m.role, "content": message_content(m)} for m in messages if m.role != "system"],
        "max_tokens": limit,
    }
    if system:
        kwargs["system"] = system
    for name in ("temperature", "top_p"):
        if name in fitted.sampling:
            kwargs[name] = fitted.sampling[name]
    if fitted.get("stop"):
        kwargs["stop_sequences"] = list(fitted.sampling["stop"])
    thinking = fitted.thinking
    if thinking is not None and thinking.kind == "budget" and thinking.budget:
        kwargs["thinking"] = {"type": "enabled", "budget_tokens": thinking.budget}
    elif thinking is not None and thinking.kind == "adaptive" and thinking.effort not in (None, "none"):
        kwargs["thinking"] = {"type": "adaptive"}
        kwargs["output_config"] = {"effort": thinking.effort}
    return kwargs


#: the prompt-cache marker: a prefix cached for five minutes from its last use
CACHE_CONTROL = {"type": "ephemeral"}


def message_content(message: Message) -> str | list[dict[str, Any]]:
    """A message's content: plain text, or, where its head is the same on every call of its kind
    (`Message.cache_prefix`), that head as a text block marked for the prompt cache and the rest after it.

    The marked prefix (system text and every message up to the mark) is cached when it reaches the
    model's minimum length, and read back at a tenth of the input price by the calls that share it;
    below that length the mark changes nothing.
    """
    cut = message.cache_prefix
    if cut <= 0 or cut >= len(message.content):
        return message.content
    head, rest = message.content[:cut], message.content[cut:]
    return [{"type": "text", "text": head, "cache_control": CACHE_CONTROL}, {"type": "text", "text": rest}]


class AnthropicChat(Provider):
    """One shared AsyncAnthropic client per provider; the SDK's own retries are off (cobe retries)."""

    def __init__(self, spec: str, model: str, *, api_key: str, base_url: str | None) -> None:
        super().__init__(spec, "anthropic", model)
        anthropic = import_sdk(spec, "anthropic", "anthropic")
        self._anthropic = anthropic
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key,
            **client_url(base_url),  # no userinfo (never HTTP Basic beside the key), the query as a query
            max_retries=0,
            timeout=request_timeout(),
            http_client=pooled_http_client(anthropic),
        )
        self._create = self._client.messages.create
        self.endpoint = endpoint_name([base_url or self._client.base_url])  # the SDK's default where unset
        # newer SDKs no longer name temperature or top_p; the models that still take them get them in the body
        self._named = set(inspect.signature(self._create).parameters)

    def request_kwargs(self, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        """The request body as the model's row says it takes it; a setting it refuses is left out and named
        once in `refused_settings`."""
        fitted = fit(self.capabilities, config)
        self.refused_settings.update(fitted.dropped)
        return message_kwargs(messages, fitted)

    def __repr__(self) -> str:
        return f"AnthropicChat({self.spec!r})"

    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, scenario: Scenario | None = None
    ) -> ModelOutput:
        """One Messages call; text blocks are concatenated."""
        kwargs = self.request_kwargs(messages, config)
        named = {k: v for k, v in kwargs.items() if k in self._named}
        extra = {k: v for k, v in kwargs.items() if k not in self._named}
        start = time.perf_counter()
        response = await self._create(model=self.model, **named, **({"extra_body": extra} if extra else {}))
        latency = time.perf_counter() - start
        text = "".join(block.text for block in response.content if block.type == "text")
        details = getattr(response.usage, "output_tokens_details", None)
        usage = anthropic_usage(response.usage)  # cache reads and writes counted into the prompt
        return ModelOutput.model_construct(
            text=text,
            finish_reason=finish_reason(response.stop_reason),
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cached_input_tokens=usage.cached_input_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            latency_s=latency,
            first_token_logprobs=None,
            reasoning_tokens=(getattr(details, "thinking_tokens", None) or 0) if details else 0,
            sent={"api": "messages"} | {k: v for k, v in kwargs.items() if k not in ("messages", "system")},
            raw=None,
        )

    def should_retry(self, exc: BaseException) -> bool:
        """Rate limits, overload (529), timeouts, lost connections, 5xx and malformed bodies."""
        return sdk_error_is_transient(self._anthropic, exc)

    def retry_after(self, exc: BaseException) -> float | None:
        """Seconds from the Retry-After header of the failed response."""
        return retry_after_from(exc)

    def batch_client(self) -> Any:
        """The AsyncAnthropic client that Message Batches go to."""
        return self._client

    def max_connections(self) -> int:
        """Anthropic's tiers allow tens of parallel requests."""
        return 16

    async def aclose(self) -> None:
        """Close the shared HTTP connection pool."""
        await self._client.close()


@register("anthropic", batch=AnthropicBatch)
def _anthropic_factory(spec: str, model: str) -> Provider:
    key = env_secret("ANTHROPIC_API_KEY")
    if not key:
        raise InputError(f"model spec {spec!r}: set the ANTHROPIC_API_KEY environment variable")
    provider = AnthropicChat(spec, model, api_key=key, base_url=os.environ.get("ANTHROPIC_BASE_URL") or None)
    provider.key_env = "ANTHROPIC_API_KEY"
    return provider
