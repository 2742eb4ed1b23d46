"""OpenAI chat completions, for `openai/<model>` and any compatible server `openai-api/<service>/<model>`."""

from __future__ import annotations

import ipaddress
import os
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from cobe.core.errors import InputError
from cobe.core.secrets import env_secret
from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider, endpoint_name
from cobe.models.fitting import Fitted, fit
from cobe.models.openai_batch import OpenAIBatch
from cobe.models.openai_chat_reply import read_chat
from cobe.models.openai_completions import completions_body, read_completion
from cobe.models.openai_responses import FailedReply, read_response, responses_body
from cobe.models.registry import register
from cobe.models.retry import retry_after_from, sdk_error_is_transient
from cobe.models.sdk import client_url, import_sdk, pooled_http_client, request_timeout
from cobe.models.server_capacity import Fetch, advertised_capacity

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

TOP_LOGPROBS = 5
#: seconds a server has to say how many calls it serves at once
CAPACITY_TIMEOUT_S = 2.0


def chat_body(messages: list[Message], fitted: Fitted) -> dict[str, Any]:
    """The body of one chat completion (model left out): unset fields left out, the token limit under the name
    the model takes, the effort as reasoning_effort."""
    body: dict[str, Any] = {"messages": [{"role": m.role, "content": m.content} for m in messages]}
    if fitted.max_tokens is not None:
        # reasoning models refuse `max_tokens`; `max_completion_tokens` bounds reasoning and answer together
        body[fitted.caps.token_param] = fitted.max_tokens
    for name in ("temperature", "top_p", "seed"):
        if name in fitted.sampling:
            body[name] = fitted.sampling[name]
    if fitted.get("stop"):
        body["stop"] = list(fitted.sampling["stop"])
    if fitted.get("logprobs"):
        body["logprobs"] = True
        body["top_logprobs"] = TOP_LOGPROBS
    if fitted.thinking is not None and fitted.thinking.effort is not None:
        body["reasoning_effort"] = fitted.thinking.effort
    return body


def sent_settings(api: str, body: dict[str, Any]) -> dict[str, Any]:
    """What a call record keeps of a request body: the API and every setting, without the messages."""
    return {"api": api} | {k: v for k, v in body.items() if k not in ("messages", "input", "prompt", "model")}


class OpenAIChat(Provider):
    """One shared AsyncOpenAI client per provider; the SDK's own retries are off (cobe retries)."""

    def __init__(self, spec: str, provider: str, model: str, *, api_key: str, base_url: str | list[str] | None) -> None:
        super().__init__(spec, provider, model)
        openai = import_sdk(spec, "openai", "openai")
        self._openai = openai
        urls = base_url if isinstance(base_url, list) else [base_url]
        self._clients = [
            openai.AsyncOpenAI(
                api_key=api_key,
                **client_url(url),  # no userinfo (never HTTP Basic in the key's place), the query as a query
                max_retries=0,
                timeout=request_timeout(),
                http_client=pooled_http_client(openai),
            )
            for url in urls
        ]
        # the body goes to the SDK's documented `post` as the plain JSON it already is: `create` would walk
        # its ~40 typed parameters per call to transform a dict that needs no transforming (a fifth of
        # the client's CPU per call), and the reply comes back as its JSON (`object`), read by
        # openai_chat_reply, not built into the SDK's typed ChatCompletion (another eighth); the request on
        # the wire, the reading of the body, the errors and the client's timeout are the SDK's own either way
        self._creates = [self._poster(client, "/chat/completions") for client in self._clients]
        self._responses = [self._poster(client, "/responses") for client in self._clients]
        self._completions = [self._poster(client, "/completions") for client in self._clients]
        self._inflight = [0] * len(urls)
        # the URL as given (its query too, hidden), the SDK's default where unset
        self._base = endpoint_name(url or client.base_url for url, client in zip(urls, self._clients))
        self.served = [0] * len(urls)  # requests sent to each server, for summaries and tests

    def _poster(self, client: Any, path: str) -> Any:
        """`create` for one client and endpoint: POST the body as it is, the reply read as its JSON (`object`),
        within the command's --timeout where it gave one (the client's own otherwise)."""

        async def create(**body: Any) -> Any:
            options = {"timeout": self.attempt_timeout} if self.attempt_timeout else {}
            return await client.post(path, body=body, cast_to=object, options=options)

        return create

    async def _create(self, **kwargs: Any) -> Any:
        return await self._send(self._creates, kwargs)

    async def _send(self, creates: list[Any], kwargs: dict[str, Any]) -> Any:
        # several servers of one model (a vLLM or SGLang fleet): the least busy one takes the
        # call, so a slow or restarting server receives less and retries drift to the others
        if len(creates) == 1:
            self.served[0] += 1
            return await creates[0](**kwargs)
        index = min(range(len(creates)), key=self._inflight.__getitem__)
        self._inflight[index] += 1
        self.served[index] += 1
        try:
            return await creates[index](**kwargs)
        finally:
            self._inflight[index] -= 1

    def __repr__(self) -> str:
        return f"OpenAIChat({self.spec!r})"

    @property
    def api_path(self) -> str:
        """The API path its calls (and its batch lines) go to."""
        return {"responses": "/v1/responses", "completions": "/v1/completions"}.get(
            self.capabilities.api, "/v1/chat/completions"
        )

    @property
    def chat_template(self) -> bool:  # type: ignore[override]  # read from the capability row, never set
        """False for a base model asked through the completions endpoint: its requests come in the plain completion
        format (`cobe.prompts.completion`), as the embedded base model's do."""
        return self.capabilities.api != "completions"

    @property
    def endpoint(self) -> str:  # type: ignore[override]  # read from the capability row, never set
        """The base URL its calls go to; the completions endpoint's own URL for a model asked there, so a model
        switched between chat and completions is never answered with the other endpoint's replies."""
        if self.capabilities.api != "completions":
            return self._base
        # the path gains /completions before a (hidden) query, as the request itself goes
        return " ".join(_with_path(url, "/completions") for url in self._base.split(" "))

    def _fitted(self, config: GenerateConfig) -> Fitted:
        fitted = fit(self.capabilities, config)
        self.refused_settings.update(fitted.dropped)
        return fitted

    def request_kwargs(self, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        """The request body (model left out) as the model's row says it takes it: chat completions or Responses;
        a setting it refuses is left out and named once in `refused_settings`."""
        fitted = self._fitted(config)
        if self.capabilities.api == "responses":
            return responses_body(messages, fitted)
        if self.capabilities.api == "completions":
            return completions_body(messages, fitted, config.choices)
        return chat_body(messages, fitted)

    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, scenario: Scenario | None = None
    ) -> ModelOutput:
        """One chat completion (or Responses call); latency covers the HTTP round trip only."""
        kwargs = self.request_kwargs(messages, config)
        if self.capabilities.api == "responses":
            return await self._respond(kwargs, config)
        if self.capabilities.api == "completions":
            return await self._complete(kwargs, config)
        start = time.perf_counter()
        reply = await self._create(model=self.model, **kwargs)
        latency = time.perf_counter() - start
        fields = read_chat(reply, logprobs=config.logprobs)  # typed by read_chat: no re-validation
        return ModelOutput.model_construct(**fields, latency_s=latency, sent=sent_settings("chat", kwargs), raw=None)

    async def _respond(self, body: dict[str, Any], config: GenerateConfig) -> ModelOutput:
        """One Responses call: its output text, an `incomplete` reply recorded as cut off."""
        start = time.perf_counter()
        reply = await self._send(self._responses, {"model": self.model, **body})
        latency = time.perf_counter() - start
        fields = read_response(reply if isinstance(reply, dict) else reply.json(), logprobs=config.logprobs)
        return ModelOutput.model_construct(**fields, latency_s=latency, sent=sent_settings("responses", body), raw=None)

    async def _complete(self, body: dict[str, Any], config: GenerateConfig) -> ModelOutput:
        """One completion of a plain prompt: its first paragraph, or the likelier of the config's choices."""
        start = time.perf_counter()
        reply = await self._send(self._completions, {"model": self.model, **body})
        latency = time.perf_counter() - start
        fields = read_completion(reply, logprobs=config.logprobs, choices=config.choices)
        return ModelOutput.model_construct(
            **fields, latency_s=latency, sent=sent_settings("completions", body), raw=None
        )

    def should_retry(self, exc: BaseException) -> bool:
        """Rate limits, timeouts, lost connections, 5xx, malformed bodies and a Responses reply failed by a
        server error are transient."""
        if isinstance(exc, FailedReply):
            return exc.transient
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

    async def server_capacity(self) -> int | None:
        """How many calls the compatible servers serve at once, where they say (`cobe.models.server_capacity`);
        None for OpenAI's own API."""
        if self.provider != "openai-api":
            return None
        return await advertised_capacity((str(client.base_url), _fetcher(client)) for client in self._clients)

    async def aclose(self) -> None:
        """Close the shared HTTP connection pools."""
        for client in self._clients:
            await client.close()


def _fetcher(client: Any) -> Fetch:
    """GET a URL on the client's server (its key sent as on every call), without retries, in a few seconds."""

    async def fetch(url: str) -> tuple[int, str]:
        import httpx  # the SDK's HTTP library; loaded with it

        response = await client.get(url, cast_to=httpx.Response, options={"timeout": CAPACITY_TIMEOUT_S})
        return response.status_code, response.text

    return fetch


def loopback_url(url: str) -> bool:
    """Whether a base URL names this machine by its loopback interface (localhost, 127.x, ::1)."""
    try:
        host = urlsplit(url).hostname
    except ValueError:  # not a URL; the SDK says so when it is used
        return False
    if host is None:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name, not an address: only localhost is known to stay on this machine
        return False


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
    # local servers (vLLM, llama.cpp, Ollama) accept any key, so a placeholder keeps the SDK happy; on this
    # machine a short one (VLLM_API_KEY=x) is such a placeholder too, while a hosted endpoint's must be a real key
    local = all(loopback_url(url) for url in base_urls)
    key = env_secret(key_var, placeholder_ok=local) or "EMPTY"
    provider = OpenAIChat(spec, "openai-api", name, api_key=key, base_url=base_urls)
    provider.key_env = key_var
    return provider


def _with_path(url: str, tail: str) -> str:
    base, sep, query = url.partition("?")
    return f"{base}{tail}{sep}{query}"
