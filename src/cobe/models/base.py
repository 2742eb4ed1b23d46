"""The one narrow interface every model provider implements."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote, unquote_plus, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from cobe.models.retry import is_auth_error

# the settings a call is made with live in the module below this one (capabilities, fitting and reasoning
# need them, and this module loads those); re-exported here, where every provider has always found them
from cobe.models.settings import (  # noqa: F401
    GenerateConfig,
    MaxTokens,
    ReasoningEffort,
    Temperature,
    ThinkingBudget,
    TopP,
    sampling_fields,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from cobe.dataset.schema import Scenario
    from cobe.models.capabilities import ModelCapabilities

#: the finish reason every provider reports for a reply cut off by its token limit
TRUNCATED = "length"
# the SDKs' own words for that (Anthropic stop_reason, Gemini FinishReason), mapped onto TRUNCATED
# (and the Responses API's incomplete reason)
_TRUNCATION_WORDS = frozenset({"length", "max_tokens", "MAX_TOKENS", "max_output_tokens"})


class Message(BaseModel):
    """One chat message."""

    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str
    # how many leading characters of `content` are the same on every call of its kind (a judge check's
    # instructions and worked examples): a provider that takes a prompt-cache marker marks them. Not part
    # of a call's key or of what `cobe prompts show` prints: it changes the price of a call, never its answer
    cache_prefix: int = Field(default=0, ge=0, exclude=True)


def finish_reason(raw: object) -> str | None:
    """A provider's finish reason as recorded: truncation spelled `length` whatever the SDK calls it."""
    if raw is None:
        return None
    # a JSON reply's reason is a str already; only an SDK's enum has a `value` (getattr's miss raises inside)
    value = raw if isinstance(raw, str) else str(getattr(raw, "value", raw))
    return TRUNCATED if value in _TRUNCATION_WORDS else value


def is_truncated(reason: str | None) -> bool:
    """Whether a recorded finish reason says the reply was cut off by the token limit."""
    return reason is not None and reason in _TRUNCATION_WORDS


class ModelOutput(BaseModel):
    """What one call returned."""

    text: str
    finish_reason: str | None = None
    input_tokens: int = 0  # every prompt token, those read from or written to a prompt cache included
    output_tokens: int = 0
    cached_input_tokens: int = 0  # of input_tokens: read from the provider's prompt cache
    cache_write_tokens: int = 0  # of input_tokens: written to it (Anthropic charges these above base input)
    latency_s: float = 0.0
    # log-probabilities of the first generated token's top alternatives, token → logprob
    first_token_logprobs: dict[str, float] | None = None
    reasoning_tokens: int = 0  # of output_tokens, those spent thinking, where the provider says
    # the settings as they went on the wire (messages left out): what the model was actually asked with
    sent: dict[str, Any] | None = None
    raw: dict | None = Field(default=None, exclude=True)


@dataclass(slots=True, kw_only=True)
class CallRecord:
    """What a call returned once the harness recorded it: from the provider, or from the store (`cached`).
    Built by keyword only: ten fields in a row are too easy to misplace."""

    key: str
    text: str | None
    error: str | None = None
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    latency_s: float = 0.0
    attempts: int = 1
    first_token_logprobs: dict[str, float] | None = None
    cost_usd: float | None = None
    cached: bool = False


def endpoint_name(urls: Iterable[str]) -> str:
    """The endpoint a call key names: each base URL without its credentials or trailing '/', its query's values
    hidden (`hidden_query`), sorted (a fleet of servers of one model is one endpoint, whichever replica takes a
    call)."""
    names = set()
    for url in urls:
        parts = urlsplit(str(url))
        host = parts.netloc.rpartition("@")[2]  # user:password@ is a secret, never part of a key
        names.add(urlunsplit((parts.scheme, host, parts.path.rstrip("/"), hidden_query(parts.query), "")))
    return " ".join(sorted(names))


def hidden_query(query: str) -> str:
    """A URL's query with each value replaced by the start of its sha256 (`api-key=sha256:1f0c…`): a token a gateway
    takes there never reaches a call's key, the store or the terminal, and two tokens still name two endpoints."""
    hidden = []
    for field in filter(None, query.split("&")):
        name, sep, value = field.partition("=")
        # a field without `=` may be the token itself: all of it is hidden
        hidden.append(f"{quote(unquote_plus(name))}=sha256:{_digest(value)}" if sep else f"sha256:{_digest(field)}")
    return "&".join(hidden)


def _digest(value: str) -> str:
    return hashlib.sha256(unquote_plus(value).encode()).hexdigest()[:16]  # however the URL spelled it: %20 or +


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
    #: the environment variable(s) its API key comes from, named when the server refuses the key
    key_env: str | None = None
    #: where its calls go, for providers behind an API: the base URL (`endpoint_name`), never a key. Part of
    #: every call's key, so a spec pointed at another server is not answered with the first one's replies.
    #: None for the in-process providers (mock, local, llamacpp, vllm).
    endpoint: str | None = None
    #: the command's limit on one call attempt (--timeout), where it gave one (the scheduler sets it): a provider
    #: whose client gives up on its own (an SDK's request timeout) waits this long instead, so the command's holds
    attempt_timeout: float | None = None

    def __init__(self, spec: str, provider: str, model: str) -> None:
        self.spec, self.provider, self.model = spec, provider, model
        #: settings this model refused and that were not sent, each named once in the run's notices
        self.refused_settings: set[str] = set()
        self._capabilities: ModelCapabilities | None = None

    @property
    def capabilities(self) -> ModelCapabilities:
        """What the model accepts (`cobe.models.capabilities`): set by `get_provider`, else its bundled row."""
        if self._capabilities is None:
            from cobe.models.capabilities import capabilities  # the table loads on first use

            self._capabilities = capabilities(self.spec)
        return self._capabilities

    @capabilities.setter
    def capabilities(self, caps: ModelCapabilities) -> None:
        self._capabilities = caps

    @property
    def reasoning(self) -> bool:
        """Whether `GenerateConfig.reasoning_effort` reaches the model (its row takes a thinking setting);
        a run with an effort set says once in its notices which of its providers ignore it."""
        return self.capabilities.reasoning not in ("none", "fixed")

    @abstractmethod
    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, scenario: Scenario | None = None
    ) -> ModelOutput:
        """Run one chat completion. `scenario` is context for baselines only, never sent to a model."""

    def use_scenarios(self, scenarios: Sequence[Scenario]) -> None:  # noqa: B027  (an optional hook)
        """Hand over the scenarios of a run, for providers that answer from others than the one asked about
        (`baseline/swapped`); most providers ignore them."""

    def check_config(self, config: GenerateConfig) -> None:
        """Refuse, before any call, settings this model cannot take (raises InputError): thinking off where
        it cannot be off, a thinking budget outside its bounds or without room below the token limit."""
        from cobe.models.fitting import fit  # the table loads on first use

        fit(self.capabilities, config)

    def should_retry(self, exc: BaseException) -> bool:
        """Whether an exception is transient (rate limit, 5xx, timeout, connection error)."""
        return False

    def refused(self, exc: BaseException) -> bool:
        """Whether the server refused the credentials (401/403): not retried; a few in a row stop the stage."""
        return is_auth_error(exc)

    def retry_after(self, exc: BaseException) -> float | None:
        """Seconds the server asked us to wait (Retry-After), if it said."""
        return None

    def max_connections(self) -> int:
        """Default concurrency for this provider when --concurrency is not given."""
        return 8

    async def server_capacity(self) -> int | None:
        """How many calls its server serves at once, where the server says (a llama.cpp server's slots); None where
        it cannot say. The scheduler starts the provider's window there (`cobe.calls.limits`)."""
        return None

    def cacheable(self) -> bool:
        """Whether identical calls may be answered from the store (false for scripted mocks that count)."""
        return True

    def portable(self) -> bool:
        """Whether its calls may run in another process (a Ray worker) on a provider rebuilt from the spec:
        not when an answer depends on the order of calls or on the run's other scenarios."""
        return self.cacheable()

    async def generate_many(
        self,
        requests: list[tuple[list[Message], GenerateConfig]],
    ) -> list[ModelOutput | BaseException] | None:
        """Optional batch path (offline vLLM); None means 'use generate per call'."""
        return None

    async def aclose(self) -> None:  # noqa: B027  (an optional hook: most providers hold nothing)
        """Release clients, files or GPU memory."""
