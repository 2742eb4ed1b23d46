"""A fast local fake of the OpenAI (chat completions, Responses and text completions), Anthropic and Gemini APIs,
with fault injection.

It also speaks a minimal OpenAI Files + Batches API (support.openai_batches) and Anthropic Message Batches
(support.anthropic_batches): a batch's requests are answered with the same reply logic as
/v1/chat/completions, /v1/responses or /v1/messages, without counting as chat requests.

Strict mode (`strict=True`, a fault like any other: `ThreadedServer(strict=True)`, the `strict_server`
fixture, or `control(strict=True)`) is the contract fake: each request is checked against what the real API
refuses (support.contracts), answered with that API's documented status and error body, and counted in
`stats.refused` (the messages in `stats.refusals`); a thinking model spends thinking tokens inside its token
limit before it answers, so a limit with no room to think answers nothing, cut off. In every mode replies
carry the usage fields the real APIs report, cached prompt tokens included (support.prompt_cache).

Runs in a background thread (the `openai_server` pytest fixture) or as its own process:
`python -m support.openai_server --port 0`, run from `tests/`, prints the port it bound, then serves forever.
Raw asyncio streams keep it cheap enough for benchmarks that push tens of thousands of calls.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import http.client
import itertools
import json
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, fields, replace
from typing import Any
from urllib.parse import urlsplit

import pytest

from support.anthropic_batches import AnthropicBatches
from support.contracts import refusal, thinking_spend
from support.fake_state import QUESTION_MARKER, Faults, Stats
from support.llm_replies import (
    Usage,
    anthropic_body,
    chat_texts,
    completion_body,
    failed_responses_body,
    google_body,
    google_texts,
    hashed_verdict,
    openai_body,
    responses_body,
    rewrite,
)
from support.openai_batches import OpenAIBatches
from support.prompt_cache import PromptCache, marked_words, refusal_body, refused_parameter, unknown_model_body

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
}
_JSON, _HTML = "application/json", "text/html; charset=utf-8"
# where each dialect carries the API key: OpenAI a bearer token, Anthropic and Gemini their own header
_KEY_HEADERS = ("authorization", "x-api-key", "x-goog-api-key")


class FakeLLMServer(AnthropicBatches, OpenAIBatches):
    """The protocol logic: routes, fault injection, deterministic replies."""

    def __init__(self, **faults: Any) -> None:
        self.faults = Faults()
        self.stats = Stats()
        self._verdicts: Iterator[str] = iter(())
        self._ids = itertools.count(1)
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.message_batches: dict[str, dict[str, Any]] = {}
        self.changed = threading.Condition()  # notified whenever a request changed the stats
        self._lifted = asyncio.Event()  # set while no hold is in place
        self._bucket = (0.0, -1.0)  # rpm_limit's (level, monotonic time of that level); -1: not started
        self.cache = PromptCache()
        self.control(**faults)

    def control(self, reset: bool = False, **faults: Any) -> None:
        """Change faults; `reset=True` also restores defaults and zeroes the counters."""
        if reset:
            self.faults, self.stats = Faults(), Stats()
            self.prompt_cache = PromptCache()
        names = {f.name for f in fields(Faults)}
        unknown = set(faults) - names
        if unknown:
            raise ValueError(f"unknown fault(s): {sorted(unknown)}; known: {sorted(names)}")
        for name, value in faults.items():
            setattr(self.faults, name, str(value) if name == "retry_after" else value)
        verdict = self.faults.verdict
        self._verdicts = itertools.cycle([verdict] if isinstance(verdict, str) else verdict)
        self._turns: dict[tuple[int, str], int] = {}  # (script rule, request text) → times that rule answered it
        if self.faults.hold_after is None:
            self._lifted.set()
        else:
            self._lifted.clear()

    def notify(self) -> None:
        """Wake whoever waits on `changed` (ThreadedServer.wait_for) to look at the stats again."""
        with self.changed:
            self.changed.notify_all()

    # ---- HTTP plumbing -------------------------------------------------------------------
    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve keep-alive HTTP/1.1 requests on one connection until the client hangs up."""
        stats = self.stats
        stats.connections += 1
        stats.peak_connections = max(stats.peak_connections, stats.connections)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                except asyncio.CancelledError:
                    # shutdown: end quietly (3.11's stream callback chokes on a cancelled handler)
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                length, close, key = 0, False, ""
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    name = name.lower()
                    if name == "content-length":
                        length = int(value)
                    elif name == "connection" and value.strip().lower() == "close":
                        close = True
                    elif name in _KEY_HEADERS:
                        key = value.strip().removeprefix("Bearer ").strip()
                        seen = f"{name}: {value.strip()}"
                        self.stats.credentials[seen] = self.stats.credentials.get(seen, 0) + 1
                try:
                    body = await reader.readexactly(length) if length else b""
                except (asyncio.IncompleteReadError, ConnectionError):  # the client went away mid-request
                    return
                route, _, query = path.partition("?")
                if route.startswith("/v1"):
                    self.stats.queries[query] = self.stats.queries.get(query, 0) + 1
                status, payload, headers = await self.route(method, route, body, key)
                if self.faults.go_json and headers.get("content-type", _JSON) == _JSON:
                    payload = go_escaped(payload)
                self.notify()
                writer.write(_response(status, payload, headers))
                if close:
                    break
                await writer.drain()
        finally:
            stats.connections -= 1  # the counters it was counted in, even where a reset replaced them since
            writer.close()

    async def route(self, method: str, path: str, body: bytes, key: str = "") -> tuple[int, bytes, dict[str, str]]:
        """Dispatch one request to its endpoint."""
        if path == "/_stats":
            return 200, json.dumps(asdict(self.stats)).encode(), {}
        if path == "/_control" and method == "POST":
            try:
                self.control(**(json.loads(body) if body else {}))
            except (ValueError, TypeError) as exc:
                return 400, _error_body(400, str(exc)), {}
            return 200, json.dumps(asdict(self.faults)).encode(), {}
        if method == "GET" and path in ("/props", "/slots", "/metrics"):
            return self._capacity(path)
        if method == "GET" and path == "/v1/models":
            return (
                200,
                json.dumps(
                    {"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "cobe-tests"}]}
                ).encode(),
                {},
            )
        if path.startswith(("/v1/messages/batches", "/v1/files", "/v1/batches")) and self.faults.fail_status:
            self.stats.failed += 1  # the batch endpoints refuse a bad key like the chat ones
            said = self._echo("Incorrect API key provided:", key) if self.faults.echo_key else "request refused"
            return self.faults.fail_status, _error_body(self.faults.fail_status, said), {}
        if path.startswith("/v1/messages/batches"):
            return self.message_batch_route(method, path, body)
        if path.startswith(("/v1/files", "/v1/batches")):
            return self.batch_route(method, path, body)
        if method != "POST" or not path.startswith("/v1"):
            return 404, _error_body(404, f"no route {method} {path}"), {}
        if path.endswith("/chat/completions"):
            kind = "openai"
        elif path.endswith("/completions"):  # the legacy text completions a base model is asked through
            kind = "completions"
        elif path.endswith("/responses"):
            kind = "responses"
        elif path.endswith("/messages"):
            kind = "anthropic"
        elif path.endswith(":generateContent"):
            kind = "google"
        else:
            return 404, _error_body(404, f"no route {method} {path}"), {}
        return await self.answer(kind, path, json.loads(body), key)

    def _capacity(self, path: str) -> tuple[int, bytes, dict[str, str]]:
        """What a llama.cpp or vLLM server says of the calls it serves at once, where `slots` says it does."""
        self.stats.capacity_reads += 1
        slots, via = self.faults.slots, self.faults.slots_via
        if not slots or path != f"/{via}":
            return 404, _error_body(404, f"no route GET {path}"), {}
        if via == "props":
            body = json.dumps({"total_slots": slots, "default_generation_settings": {"n_ctx": 2048}}).encode()
        elif via == "slots":
            body = json.dumps([{"id": i, "is_processing": False} for i in range(slots)]).encode()
        else:
            body = (
                "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n"
                f'vllm:cache_config_info{{block_size="16",max_num_seqs="{slots}",num_gpu_blocks="100"}} 1.0\n'
            ).encode()
            return 200, body, {"content-type": "text/plain; version=0.0.4"}
        return 200, body, {}

    async def answer(self, kind: str, path: str, request: dict, key: str = "") -> tuple[int, bytes, dict[str, str]]:
        """Apply faults in order, then reply in the dialect `kind` speaks."""
        stats = self.stats
        stats.requests += 1
        stats.in_flight += 1
        stats.peak_in_flight = max(stats.peak_in_flight, stats.in_flight)
        try:
            return await self._answer(kind, path, request, key)
        finally:
            stats.in_flight -= 1

    async def _answer(self, kind: str, path: str, request: dict, key: str) -> tuple[int, bytes, dict[str, str]]:
        faults, stats = self.faults, self.stats
        digest = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()
        stats.bodies[digest] = stats.bodies.get(digest, 0) + 1
        if faults.hold_after is not None and stats.requests > faults.hold_after:
            stats.held += 1
            self.notify()
            try:
                await self._lifted.wait()
            finally:
                stats.held -= 1
        if faults.delay_s:
            await asyncio.sleep(faults.delay_s)
        if faults.fail_status:
            stats.failed += 1
            if faults.fail_body is not None:
                html = faults.fail_body.lstrip().startswith("<")
                return faults.fail_status, faults.fail_body.encode(), {"content-type": _HTML if html else _JSON}
            said = self._echo("Incorrect API key provided:", key) if faults.echo_key else "request refused"
            return faults.fail_status, _error_body(faults.fail_status, said), {}
        if faults.rate_limit > 0:
            faults.rate_limit -= 1
            stats.rate_limited += 1
            said = self._echo("rate limited for key", key) if faults.echo_key else "rate limited"
            return 429, _error_body(429, said), {"Retry-After": faults.retry_after}
        if faults.rpm_limit:
            wait = self._over_rpm(faults.rpm_limit)
            if wait is not None:
                stats.rate_limited += 1
                return 429, _error_body(429, "rate limited"), {"Retry-After": str(wait)}
        if faults.server_error > 0:
            faults.server_error -= 1
            stats.server_errors += 1
            return 500, _error_body(500, "internal error"), {}
        if faults.malformed > 0:
            faults.malformed -= 1
            stats.malformed += 1
            return 200, b'{"id": "chatcmpl-broken", "choices": [{"message": {"content": "T', {}
        status, payload, model, judged = self.respond(kind, path, request)
        if status != 200:
            return status, payload, {}
        if faults.echo_in and kind == "openai":
            payload = self._echoed_reply(payload, key)
        stats.ok += 1
        stats.last_ok_s = time.monotonic()
        if stats.first_ok_s is None:
            stats.first_ok_s = stats.last_ok_s
        stats.models[model] = stats.models.get(model, 0) + 1
        stats.judge_requests += judged
        return 200, payload, {}

    def _echo(self, words: str, key: str) -> str:
        """An error message repeating the request's key, after `echo_after` characters of other words."""
        filler = ("the request could not be completed as sent " * 20)[: self.faults.echo_after]
        return f"{filler}{words} {key}."

    def _echoed_reply(self, payload: bytes, key: str) -> bytes:
        """A chat completion that repeats the request's key in each place `echo_in` names."""
        said = self._echo("debug: request key", key)
        body = json.loads(payload)
        choice = body["choices"][0]
        places = set(self.faults.echo_in)
        if "text" in places:
            choice["message"]["content"] += f" ({said})"
        if "finish_reason" in places:
            choice["finish_reason"] = f"stop; {said}"
        if "logprobs" in places and choice.get("logprobs"):
            choice["logprobs"]["content"][0]["top_logprobs"].append({"token": said, "logprob": -9.0, "bytes": None})
        if "choices" in places:
            body["choices"] = said
        return json.dumps(said if "body" in places else body).encode()

    def respond(self, kind: str, path: str, request: dict) -> tuple[int, bytes, str, bool]:
        """(status, body, model, judged): the API's refusal in strict mode, else `reply`; chat and batch alike."""
        model = _model(kind, path, request)
        self.stats.endpoints[kind] = self.stats.endpoints.get(kind, 0) + 1
        asked = self._refused(kind, model, request)
        if asked is not None:  # a refusal the test asked for: `refuse` or `unknown_models`
            self.stats.refused += 1
            self.stats.refusals.append(f"{path} {model}: {asked[0]}")
            return asked[0], asked[1], model, False
        if self.faults.strict:
            refused = refusal(kind, model, request)
            if refused is not None:
                self.stats.refused += 1
                self.stats.refusals.append(f"{path} {model}: {refused.message}")
                return refused.status, refused.payload, model, False
        _, payload, judged = self.reply(kind, path, request)
        return 200, payload, model, judged

    def _over_rpm(self, limit: int) -> int | None:
        """None when one more request fits the bucket (and it is spent), else whole seconds to wait."""
        rate = limit / 60.0
        capacity = max(1.0, rate)
        level, stamp = self._bucket
        t = time.monotonic()
        level = capacity if stamp < 0 else min(capacity, level + (t - stamp) * rate)
        if level >= 1.0:
            self._bucket = (level - 1.0, t)
            return None
        self._bucket = (level, t)
        return max(1, math.ceil((1.0 - level) / rate))

    def reply(self, kind: str, path: str, request: dict) -> tuple[str, bytes, bool]:
        """(model, 200 body, whether it was a judge prompt): the reply logic shared by chat and batch requests."""
        faults = self.faults
        model = _model(kind, path, request)
        if kind == "google":
            texts, last_user = google_texts(request)
        else:
            texts, last_user = chat_texts(request)
        judged = any(faults.judge_marker in t for t in texts)
        scripted = self._scripted(texts)
        p_true = None
        if scripted is not None:
            text, p_true = scripted
        elif judged:
            text = hashed_verdict(texts) if faults.verdict == "hash" else next(self._verdicts)
        elif QUESTION_MARKER in last_user:
            text = faults.question_answer
        else:
            text = faults.reply if faults.reply is not None else rewrite(last_user)
        limit = (
            request.get("max_tokens")
            or request.get("max_completion_tokens")  # what OpenAI reasoning requests send instead
            or request.get("max_output_tokens")  # the Responses API's name
            or (request.get("generationConfig") or {}).get("maxOutputTokens")
        )
        if faults.unique:
            text = f"{text}\n#{next(self._ids)}"
        # thinking comes first and counts inside the limit, as the real APIs count it
        thought = thinking_spend(kind, model, request) if faults.strict else 0
        if isinstance(limit, int) and limit > 0:
            thought = min(thought, limit)
            room = limit - thought
        else:
            room = None
        words = text.split()
        truncated = room is not None and len(words) > room
        if truncated:
            text = " ".join(words[:room])
        usage = self._usage(kind, model, request, texts, len(text.split()), thought)
        if kind == "responses" and faults.failed_responses:
            return model, failed_responses_body(faults.failed_responses.pop(0), model, usage), judged
        if kind == "openai":
            return model, openai_body(request, model, text, truncated, usage, p_true), judged
        if kind == "completions":
            return model, completion_body(request, model, text, truncated, usage), judged
        if kind == "responses":
            return model, responses_body(request, model, text, truncated, usage), judged
        if kind == "anthropic":
            return model, anthropic_body(model, text, truncated, usage), judged
        return model, google_body(model, text, truncated, usage), judged

    def _scripted(self, texts: list[str]) -> tuple[str, float | None] | None:
        """(answer, P(T) for its logprobs or None) of the first script rule whose strings all occur in the request.

        A rule's `answers` (a list) are given in turn to the same request asked again (a judge asked one check
        K times), its `answer` every time; `p_true` (a number, or a list beside `answers`) sets the first
        token's log-probabilities of T and F where the request asks for logprobs."""
        joined = "\n".join(texts)
        for index, rule in enumerate(self.faults.script):
            if not all(part in joined for part in rule["contains"]):
                continue
            answers, p_true = rule.get("answers"), rule.get("p_true")
            if answers is None:
                return str(rule["answer"]), p_true
            turn = (index, hashlib.sha256(joined.encode()).hexdigest())
            k = self._turns.get(turn, 0)
            self._turns[turn] = k + 1
            return str(answers[k % len(answers)]), p_true[k % len(p_true)] if isinstance(p_true, list) else p_true
        return None

    def _usage(self, kind: str, model: str, request: dict, texts: list[str], n_out: int, thought: int) -> Usage:
        """Token counts as the API reports them, with its prompt caching's part (support.prompt_cache)."""
        words = [word for text in texts for word in text.split()]
        least = self.faults.cache_min_tokens
        if kind == "anthropic":
            written, read = self.cache.marked(model, marked_words(request), least)
            return Usage(len(words), n_out, thought, cache_write=written, cache_read=read)
        return Usage(len(words), n_out, thought, cached=self.cache.automatic(model, words, least))

    def _refused(self, kind: str, model: str, request: dict) -> tuple[int, bytes] | None:
        """(status, body) of a request refused for its model or a parameter named in the faults, or None."""
        if model in self.faults.unknown_models:
            return unknown_model_body(_dialect(kind), model)
        parameter = refused_parameter(request, self.faults.refuse)
        return refusal_body(_dialect(kind), parameter) if parameter is not None else None


def _dialect(kind: str) -> str:
    """The error dialect of an endpoint kind: the Responses API and text completions answer as OpenAI does."""
    return "openai" if kind in ("responses", "completions") else kind


def _model(kind: str, path: str, request: dict) -> str:
    """The model a request names: in Gemini's path, else in its body."""
    if kind == "google":
        return path.rsplit("/", 1)[-1].split(":", 1)[0]
    return str(request.get("model", ""))


def _response(status: int, payload: bytes, headers: dict[str, str]) -> bytes:
    headers = {"content-type": _JSON} | headers
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    head = f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\ncontent-length: {len(payload)}\r\n{extra}\r\n"
    return head.encode() + payload


def _error_body(status: int, message: str) -> bytes:
    kind = {
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        429: "rate_limit_error",
        500: "api_error",
    }.get(status, "invalid_request_error")
    return json.dumps(
        {"type": "error", "error": {"code": status, "message": message, "type": kind, "status": kind}}
    ).encode()


def go_escaped(payload: bytes) -> bytes:
    """A JSON body as Go's encoding/json writes it: &, < and > escaped inside strings (they occur nowhere else)."""
    return payload.replace(b"&", b"\\u0026").replace(b"<", b"\\u003c").replace(b">", b"\\u003e")


class ServerClient:
    """Talks to a running fake server (thread or process): URLs, faults, counters."""

    def __init__(self, root_url: str) -> None:
        self.root_url = root_url.rstrip("/")
        self.base_url = self.root_url + "/v1"
        parts = urlsplit(self.root_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80

    def _call(self, method: str, path: str, payload: dict | None = None) -> dict:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        try:
            conn.request(method, path, body=json.dumps(payload) if payload is not None else None)
            response = conn.getresponse()
            data = json.loads(response.read())
            if response.status != 200:
                raise ValueError(data["error"]["message"])
            return data
        finally:
            conn.close()

    def control(self, **faults: Any) -> dict:
        """Set faults (see Faults); `reset=True` restores defaults and zeroes counters."""
        return self._call("POST", "/_control", faults)

    def stats(self) -> dict:
        """Counters: requests, ok, rate_limited, server_errors, malformed, models."""
        return self._call("GET", "/_stats")


class ThreadedServer(ServerClient):
    """The fake server on 127.0.0.1 with an ephemeral port, in a daemon thread with its own loop."""

    def __init__(self, **faults: Any) -> None:
        self.app = FakeLLMServer(**faults)
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()
        holder: dict[str, Any] = {}

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            server = self._loop.run_until_complete(asyncio.start_server(self.app.handle, "127.0.0.1", 0))
            holder["server"] = server
            holder["port"] = server.sockets[0].getsockname()[1]
            ready.set()
            self._loop.run_forever()
            server.close()
            # cancel open keep-alive connections so the loop closes without pending tasks
            tasks = asyncio.all_tasks(self._loop)
            for task in tasks:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self._loop.close()

        self._thread = threading.Thread(target=run, name="fake-openai-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        super().__init__(f"http://127.0.0.1:{holder['port']}")

    def wait_for(self, condition: Callable[[Stats], bool], timeout: float = 60) -> Stats:
        """Block until `condition(stats)` holds, checked each time a request changes them; fail after `timeout` s."""
        with self.app.changed:
            if not self.app.changed.wait_for(lambda: condition(self.app.stats), timeout):
                raise AssertionError(f"the fake server never reached the awaited state: {self.app.stats}")
            stats = self.app.stats
            return replace(
                stats,
                models=dict(stats.models),
                bodies=dict(stats.bodies),
                refusals=list(stats.refusals),
                endpoints=dict(stats.endpoints),
            )

    def close(self) -> None:
        """Stop the loop and join the thread."""
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


@pytest.fixture
def openai_server() -> Iterator[ThreadedServer]:
    """A fresh fake OpenAI-compatible server per test: .base_url, .control(**faults), .stats()."""
    server = ThreadedServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def strict_server() -> Iterator[ThreadedServer]:
    """A fresh contract fake per test: the fake server in strict mode (every refusal counted in stats()["refused"])."""
    server = ThreadedServer(strict=True)
    try:
        yield server
    finally:
        server.close()


def contract_env(server: ServerClient) -> dict[str, str]:
    """The environment that points openai/, anthropic/ and google/ specs at a (contract) fake server."""
    return {
        "OPENAI_API_KEY": "test-openai-key",
        "OPENAI_BASE_URL": server.base_url,
        "ANTHROPIC_API_KEY": "test-anthropic-key",
        "ANTHROPIC_BASE_URL": server.root_url,
        "GOOGLE_API_KEY": "test-google-key",
        "GOOGLE_GEMINI_BASE_URL": server.root_url,
    }


async def serve(host: str, port: int, **faults: Any) -> None:
    """Serve forever, printing the bound port first so a parent process can read it."""
    app = FakeLLMServer(**faults)
    server = await asyncio.start_server(app.handle, host, port, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


def main(argv: list[str] | None = None) -> None:
    """Entry point: `python -m tests.support.openai_server --port 0`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--unique", action="store_true", help="every reply names its request (Faults.unique)")
    parser.add_argument("--rpm-limit", type=int, default=0, help="answer 429 beyond this many requests a minute")
    parser.add_argument("--strict", action="store_true", help="refuse what each real API refuses (Faults.strict)")
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.host, args.port, unique=args.unique, rpm_limit=args.rpm_limit, strict=args.strict))


if __name__ == "__main__":
    main()
