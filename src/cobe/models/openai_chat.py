"""OpenAI chat completions, for `openai/<model>` and any compatible server `openai-api/<service>/<model>`."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from cobe.core.errors import InputError
from cobe.core.secrets import env_secret
from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider, finish_reason, sampling_fields
from cobe.models.openai_batch import OpenAIBatch
from cobe.models.registry import register
from cobe.models.retry import retry_after_from, sdk_error_is_transient
from cobe.models.sdk import import_sdk, pooled_http_client, request_timeout
from cobe.models.usage import openai_usage

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

TOP_LOGPROBS = 5


def completion_kwargs(messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
    """GenerateConfig → keyword arguments of chat.completions.create (unset fields are left out)."""
    kwargs: dict[str, Any] = {"messages": [{"role": m.role, "content": m.content} for m in messages]}
    kwargs.update(sampling_fields(config))
    if config.reasoning_effort is not None:
        kwargs["reasoning_effort"] = config.reasoning_effort
        # reasoning models refuse `max_tokens`; the newer name bounds reasoning and answer together
        if config.max_tokens is not None:
            kwargs["max_completion_tokens"] = config.max_tokens
    elif config.max_tokens is not None:
        kwargs["max_tokens"] = config.max_tokens
    if config.stop:
        kwargs["stop"] = list(config.stop)
    if config.logprobs:
        kwargs["logprobs"] = True
        kwargs["top_logprobs"] = TOP_LOGPROBS
    return kwargs


def first_token_logprobs(choice: Any) -> dict[str, float] | None:
    """token → logprob for the first generated token's top alternatives, if the server sent them."""
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if not content:
        return None
    return {alt.token: alt.logprob for alt in content[0].top_logprobs or ()}


# OpenAI's own reasoning models accept no sampling settings beside an effort
_REASONING_REFUSES = ("temperature", "top_p")


class OpenAIChat(Provider):
    """One shared AsyncOpenAI client per provider; the SDK's own retries are off (cobe retries)."""

    reasoning = True

    def __init__(self, spec: str, provider: str, model: str, *, api_key: str, base_url: str | list[str] | None) -> None:
        super().__init__(spec, provider, model)
        self.ignored_settings: set[str] = set()
        openai = import_sdk(spec, "openai", "openai")
        self._openai = openai
        urls = base_url if isinstance(base_url, list) else [base_url]
        self._clients = [
            openai.AsyncOpenAI(
                api_key=api_key,
                base_url=url,
                max_retries=0,
                timeout=request_timeout(),
                http_client=pooled_http_client(openai),
            )
            for url in urls
        ]
        # the body goes to the SDK's documented `post` as the plain JSON it already is: `create` would walk
        # its ~40 typed parameters per call to transform a dict that needs no transforming (a fifth of
        # the client's CPU per call); the request on the wire, the response parsing, the errors and the
        # client's timeout are the SDK's own either way
        self._chat_completion = openai.types.chat.ChatCompletion
        self._creates = [self._poster(client) for client in self._clients]
        self._inflight = [0] * len(urls)
        self.served = [0] * len(urls)  # requests sent to each server, for summaries and tests

    def _poster(self, client: Any) -> Any:
        """`create` for one client: POST /chat/completions with the body as it is."""
        cast_to = self._chat_completion

        async def create(**body: Any) -> Any:
            return await client.post("/chat/completions", body=body, cast_to=cast_to)

        return create

    async def _create(self, **kwargs: Any) -> Any:
        # several servers of one model (a vLLM or SGLang fleet): the least busy one takes the
        # call, so a slow or restarting server receives less and retries drift to the others
        if len(self._creates) == 1:
            self.served[0] += 1
            return await self._creates[0](**kwargs)
        index = min(range(len(self._creates)), key=self._inflight.__getitem__)
        self._inflight[index] += 1
        self.served[index] += 1
        try:
            return await self._creates[index](**kwargs)
        finally:
            self._inflight[index] -= 1

    def __repr__(self) -> str:
        return f"OpenAIChat({self.spec!r})"

    def request_kwargs(self, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        """The create() arguments; with an effort, OpenAI itself gets no sampling settings (noted in ignored_settings).

        Compatible servers (`openai-api/`) get every setting: vLLM and SGLang take both.
        """
        kwargs = completion_kwargs(messages, config)
        if config.reasoning_effort is not None and self.provider == "openai":
            for name in _REASONING_REFUSES:
                if kwargs.pop(name, None) is not None:
                    self.ignored_settings.add(f"{name} (with --reasoning-effort)")
        return kwargs

    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, scenario: Scenario | None = None
    ) -> ModelOutput:
        """One chat completion; latency covers the HTTP round trip only."""
        kwargs = self.request_kwargs(messages, config)
        start = time.perf_counter()
        response = await self._create(model=self.model, **kwargs)
        latency = time.perf_counter() - start
        choice = response.choices[0]
        usage = openai_usage(response.usage)  # cached prompt tokens included
        # model_construct: every field is already typed by the SDK, so skip re-validation
        return ModelOutput.model_construct(
            text=choice.message.content or "",
            finish_reason=finish_reason(choice.finish_reason),
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cached_input_tokens=usage.cached_input_tokens,
            cache_write_tokens=0,
            latency_s=latency,
            first_token_logprobs=first_token_logprobs(choice) if config.logprobs else None,
            raw=None,
        )

    def should_retry(self, exc: BaseException) -> bool:
        """Rate limits, timeouts, lost connections, 5xx and malformed bodies are transient."""
        return sdk_error_is_transient(self._openai, exc)

    def retry_after(self, exc: BaseException) -> float | None:
        """Seconds from the Retry-After (or retry-after-ms) header of the failed response."""
        return retry_after_from(exc)

    def batch_client(self) -> Any:
        """The AsyncOpenAI client that batch jobs go to (the first server: a batch lives on one)."""
        return self._clients[0]

    def max_connections(self) -> int:
        """Hosted APIs and local servers both take many parallel requests; 32 per server."""
        return 32 * len(self._clients)

    async def aclose(self) -> None:
        """Close the shared HTTP connection pools."""
        for client in self._clients:
            await client.close()


def _env_name(service: str, suffix: str) -> str:
    return f"{service.upper().replace('-', '_').replace('.', '_')}_{suffix}"


@register("openai", batch=OpenAIBatch)
def _openai_factory(spec: str, model: str) -> Provider:
    key = env_secret("OPENAI_API_KEY")
    if not key:
        raise InputError(f"model spec {spec!r}: set the OPENAI_API_KEY environment variable")
    provider = OpenAIChat(spec, "openai", model, api_key=key, base_url=os.environ.get("OPENAI_BASE_URL") or None)
    provider.key_env = "OPENAI_API_KEY"
    return provider


@register("openai-api", batch=OpenAIBatch)
def _openai_api_factory(spec: str, model: str) -> Provider:
    service, sep, name = model.partition("/")
    if not sep or not service or not name:
        raise InputError(f"model spec {spec!r}: expected openai-api/<service>/<model>, e.g. openai-api/vllm/my-model")
    url_var, key_var = _env_name(service, "BASE_URL"), _env_name(service, "API_KEY")
    # several servers of the same model may be listed, separated by commas or spaces
    base_urls = os.environ.get(url_var, "").replace(",", " ").split()
    if not base_urls:
        raise InputError(
            f"model spec {spec!r}: set {url_var} to the server's URL, e.g. http://localhost:8000/v1"
            " (several servers: comma-separated)"
        )
    # local servers (vLLM, llama.cpp, Ollama) accept any key, so a placeholder keeps the SDK happy
    key = env_secret(key_var) or "EMPTY"
    provider = OpenAIChat(spec, "openai-api", name, api_key=key, base_url=base_urls)
    provider.key_env = key_var
    return provider
