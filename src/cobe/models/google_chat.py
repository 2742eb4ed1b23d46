"""Google Gemini through google-genai, for `google/<model>`."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from cobe.core.errors import InputError
from cobe.core.secrets import env_secret
from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider, endpoint_name, finish_reason
from cobe.models.fitting import Fitted, fit
from cobe.models.openai_chat import TOP_LOGPROBS
from cobe.models.registry import register
from cobe.models.retry import (
    is_malformed_body,
    is_transport_error,
    retry_after_from,
    retryable_status,
    status_of,
)
from cobe.models.sdk import import_sdk, request_timeout, without_userinfo
from cobe.models.usage import google_usage

#: where google-genai sends Gemini API calls when GOOGLE_GEMINI_BASE_URL is unset (its documented default)
GEMINI_API_URL = "https://generativelanguage.googleapis.com/"

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario


def contents_and_config(messages: list[Message], fitted: Fitted) -> tuple[list[Any], dict[str, Any]]:
    """Messages + fitted settings → (contents, GenerateContentConfig fields); Gemini calls the assistant 'model'.

    Thinking is a budget (Gemini 2.5: thinking_budget, 0 = off) or a level (Gemini 3: thinking_level),
    never both: the API refuses the two together.
    """
    contents = [
        {"role": "model" if m.role == "assistant" else "user", "parts": [{"text": m.content}]}
        for m in messages
        if m.role != "system"
    ]
    fields: dict[str, Any] = {}
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    if system:
        fields["system_instruction"] = system
    if "temperature" in fitted.sampling:
        fields["temperature"] = fitted.sampling["temperature"]
    if fitted.max_tokens is not None:
        fields["max_output_tokens"] = fitted.max_tokens
    for name in ("top_p", "seed"):
        if name in fitted.sampling:
            fields[name] = fitted.sampling[name]
    if fitted.get("stop"):
        fields["stop_sequences"] = list(fitted.sampling["stop"])
    if fitted.get("logprobs"):
        fields["response_logprobs"] = True
        fields["logprobs"] = TOP_LOGPROBS
    thinking = fitted.thinking
    if thinking is not None and thinking.kind == "budget" and thinking.budget is not None:
        fields["thinking_config"] = {"thinking_budget": thinking.budget}
    elif thinking is not None and thinking.kind == "level" and thinking.effort is not None:
        fields["thinking_config"] = {"thinking_level": thinking.effort.upper()}
    return contents, fields


def first_token_logprobs(candidate: Any) -> dict[str, float] | None:
    """token → logprob of the first generated token's top candidates, if Gemini sent them."""
    result = getattr(candidate, "logprobs_result", None)
    top = getattr(result, "top_candidates", None)
    if not top:
        return None
    return {c.token: c.log_probability for c in top[0].candidates or () if c.token is not None}


class GoogleChat(Provider):
    """One shared genai client per provider; the SDK retries nothing unless asked, and cobe doesn't ask."""

    def __init__(self, spec: str, model: str, *, api_key: str, base_url: str | None) -> None:
        super().__init__(spec, "google", model)
        genai = import_sdk(spec, "google.genai", "google")
        errors, types = genai.errors, genai.types
        self._errors, self._types = errors, types
        # no userinfo: httpx would send it as HTTP Basic credentials beside the key
        options = types.HttpOptions(
            base_url=base_url and without_userinfo(base_url), timeout=int(request_timeout() * 1000)
        )
        self._client = genai.Client(api_key=api_key, http_options=options)
        self.endpoint = endpoint_name([base_url or GEMINI_API_URL])
        self._generate = self._client.aio.models.generate_content

    def __repr__(self) -> str:
        return f"GoogleChat({self.spec!r})"

    def request_fields(self, messages: list[Message], config: GenerateConfig) -> tuple[list[Any], dict[str, Any]]:
        """(contents, config fields) as the model's row says it takes them; a setting it refuses is left out
        and named once in `refused_settings`."""
        fitted = fit(self.capabilities, config)
        self.refused_settings.update(fitted.dropped)
        return contents_and_config(messages, fitted)

    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, scenario: Scenario | None = None
    ) -> ModelOutput:
        """One generate_content call on the first candidate."""
        contents, fields = self.request_fields(messages, config)
        start = time.perf_counter()
        response = await self._generate(
            model=self.model, contents=contents, config=self._types.GenerateContentConfig(**fields)
        )
        latency = time.perf_counter() - start
        candidate = response.candidates[0] if response.candidates else None
        reason = getattr(candidate, "finish_reason", None)
        meta = response.usage_metadata
        usage = google_usage(meta)  # implicit cache hits included
        thoughts = (getattr(meta, "thoughts_token_count", None) or 0) if meta else 0
        return ModelOutput.model_construct(
            text=response.text or "",
            finish_reason=finish_reason(reason),
            input_tokens=usage.input_tokens,
            # thoughts are billed as output: counted in, and apart
            output_tokens=usage.output_tokens + thoughts,
            cached_input_tokens=usage.cached_input_tokens,
            cache_write_tokens=0,
            latency_s=latency,
            first_token_logprobs=first_token_logprobs(candidate) if config.logprobs and candidate else None,
            reasoning_tokens=thoughts,
            sent={"api": "generate_content"} | {k: v for k, v in fields.items() if k != "system_instruction"},
            raw=None,
        )

    def should_retry(self, exc: BaseException) -> bool:
        """429 / 5xx API errors, lost connections, timeouts and malformed bodies are transient."""
        if isinstance(exc, self._errors.APIError):
            return retryable_status(exc.code)
        return is_malformed_body(exc) or is_transport_error(exc) or retryable_status(status_of(exc))

    def retry_after(self, exc: BaseException) -> float | None:
        """Seconds from the Retry-After header of the failed response."""
        return retry_after_from(exc)

    def max_connections(self) -> int:
        """Gemini's paid tiers allow tens of parallel requests."""
        return 16

    async def aclose(self) -> None:
        """Close the client's HTTP connections."""
        await self._client.aio.aclose()


@register("google")
def _google_factory(spec: str, model: str) -> Provider:
    key = env_secret("GOOGLE_API_KEY", "GEMINI_API_KEY")
    if not key:
        raise InputError(f"model spec {spec!r}: set the GOOGLE_API_KEY (or GEMINI_API_KEY) environment variable")
    provider = GoogleChat(spec, model, api_key=key, base_url=os.environ.get("GOOGLE_GEMINI_BASE_URL") or None)
    provider.key_env = "GOOGLE_API_KEY" if os.environ.get("GOOGLE_API_KEY") else "GEMINI_API_KEY"
    return provider
