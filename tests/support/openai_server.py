"""A fast local fake of the OpenAI (and Anthropic, Gemini) chat APIs, with fault injection.

It also speaks a minimal OpenAI Files + Batches API and Anthropic Message Batches
(support.anthropic_batches): a batch's requests are answered with the same reply logic as
/v1/chat/completions or /v1/messages, without counting as chat requests.

Runs in a background thread (the `openai_server` pytest fixture) or as its own process:
`python -m tests.support.openai_server --port 0` prints the port it bound, then serves forever.
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
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any
from urllib.parse import urlsplit

import pytest

from support.anthropic_batches import AnthropicBatches
from support.llm_replies import (
    anthropic_body,
    chat_texts,
    file_object,
    google_body,
    google_texts,
    hashed_verdict,
    openai_body,
    rewrite,
)
from support.prompt_cache import PromptCache, refusal_body, refused_parameter, unknown_model_body

JUDGE_MARKER = "Answer with exactly one letter"
_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
}
# where each dialect carries the API key: OpenAI a bearer token, Anthropic and Gemini their own header
_KEY_HEADERS = ("authorization", "x-api-key", "x-goog-api-key")


@dataclass
class Faults:
    """What the server does to the next requests; counts are consumed in field order."""

    rate_limit: int = 0  # next k requests answer 429
    retry_after: str = "1"  # Retry-After header of a 429: seconds or an HTTP date
    server_error: int = 0  # then k requests answer 500
    malformed: int = 0  # then k requests answer 200 with a truncated JSON body
    delay_s: float = 0.0  # every reply waits this long
    verdict: str | list[str] = "T"  # judge answers; a list cycles; "hash": T or F by a hash of the request
    reply: str | None = None  # fixed answer to non-judge prompts (default: echo a short rewrite)
    judge_marker: str = JUDGE_MARKER
    batch_polls: int = 0  # a batch answers in_progress to this many status requests, then ends
    batch_status: str = "completed"  # how batches end: completed, failed (no output), expired, cancelled
    batch_errored: int = 0  # the first k requests of each Anthropic message batch answer errored
    # scripted answers keyed on prompt content: [{"contains": [str, ...], "answer": str}, ...]; the first
    # rule whose strings all occur in the request's text answers it, before `verdict` and `reply`
    script: list[dict[str, Any]] = field(default_factory=list)
    hold_after: int | None = None  # chat requests after the first k wait, unanswered, until this is None again
    fail_status: int = 0  # every chat and batch request answers this error status (401, 403, 500, ...); 0: off
    echo_key: bool = False  # error bodies repeat the API key the request carried, as some providers do
    # every reply ends with a line of its own naming the request ("#17"): no two replies are equal, so no
    # harness can answer a later call from what an earlier identical one got; a verdict stays parseable
    unique: bool = False
    # a provider's requests-per-minute limit, held server-side as a token bucket refilled at rpm_limit / 60
    # a second and holding one second's worth: a request beyond it answers 429 with Retry-After (whole
    # seconds until a request fits again); 0: off
    rpm_limit: int = 0
    # prompt caching (support.prompt_cache): the shortest prefix cached, in tokens (whitespace words); the
    # documented floor of most models is 1024, Claude Opus 4.5 and later 4096
    cache_min_tokens: int = 1024
    # parameters every request is refused for (400, the dialect's documented body naming the parameter),
    # e.g. ["max_tokens"]; Gemini's are matched inside generationConfig
    refuse: list[str] = field(default_factory=list)
    unknown_models: list[str] = field(default_factory=list)  # models answered 404 naming the model


@dataclass
class Stats:
    """Counts of API requests received and how each was answered."""

    requests: int = 0
    ok: int = 0
    rate_limited: int = 0
    server_errors: int = 0
    malformed: int = 0
    models: dict[str, int] = field(default_factory=dict)
    judge_requests: int = 0  # chat requests carrying the judge marker
    files: int = 0  # uploads to /v1/files
    batches: int = 0  # batches created (OpenAI and Anthropic)
    batch_lines: int = 0  # requests answered inside batches
    batch_polls: int = 0  # status requests for one batch (OpenAI and Anthropic)
    held: int = 0  # chat requests waiting now for hold_after to be lifted
    failed: int = 0  # chat requests answered with fail_status
    bodies: dict[str, int] = field(default_factory=dict)  # sha256 of each chat request body → times received
    first_ok_s: float | None = None  # server clock (monotonic) of the first and the latest 2xx chat answer
    last_ok_s: float | None = None
    refused: int = 0  # chat requests refused for a parameter (`refuse`) or a model (`unknown_models`)


class FakeLLMServer(AnthropicBatches):
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
        self.prompt_cache = PromptCache()
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
                try:
                    body = await reader.readexactly(length) if length else b""
                except (asyncio.IncompleteReadError, ConnectionError):  # the client went away mid-request
                    return
                status, payload, headers = await self.route(method, path.split("?", 1)[0], body, key)
                self.notify()
                writer.write(_response(status, payload, headers))
                if close:
                    break
                await writer.drain()
        finally:
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
            said = f"Incorrect API key provided: {key}." if self.faults.echo_key else "request refused"
            return self.faults.fail_status, _error_body(self.faults.fail_status, said), {}
        if path.startswith("/v1/messages/batches"):
            return self.message_batch_route(method, path, body)
        if path.startswith(("/v1/files", "/v1/batches")):
            return self.batch_route(method, path, body)
        if method != "POST" or not path.startswith("/v1"):
            return 404, _error_body(404, f"no route {method} {path}"), {}
        if path.endswith("/chat/completions"):
            kind = "openai"
        elif path.endswith("/messages"):
            kind = "anthropic"
        elif path.endswith(":generateContent"):
            kind = "google"
        else:
            return 404, _error_body(404, f"no route {method} {path}"), {}
        return await self.answer(kind, path, json.loads(body), key)

    async def answer(self, kind: str, path: str, request: dict, key: str = "") -> tuple[int, bytes, dict[str, str]]:
        """Apply faults in order, then reply in the dialect `kind` speaks."""
        faults, stats = self.faults, self.stats
        stats.requests += 1
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
            said = f"Incorrect API key provided: {key}." if faults.echo_key else "request refused"
            return faults.fail_status, _error_body(faults.fail_status, said), {}
        if faults.rate_limit > 0:
            faults.rate_limit -= 1
            stats.rate_limited += 1
            said = f"rate limited for key {key}" if faults.echo_key else "rate limited"
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
        refused = self._refused(kind, path, request)
        if refused is not None:
            stats.refused += 1
            return refused[0], refused[1], {}
        stats.ok += 1
        stats.last_ok_s = time.monotonic()
        if stats.first_ok_s is None:
            stats.first_ok_s = stats.last_ok_s
        model, payload, judged = self.reply(kind, path, request)
        stats.models[model] = stats.models.get(model, 0) + 1
        stats.judge_requests += judged
        return 200, payload, {}

    def _refused(self, kind: str, path: str, request: dict) -> tuple[int, bytes] | None:
        """(status, body) of a request refused for its model or a parameter, or None."""
        model = path.rsplit("/", 1)[-1].split(":", 1)[0] if kind == "google" else str(request.get("model", ""))
        if model in self.faults.unknown_models:
            return unknown_model_body(kind, model)
        parameter = refused_parameter(request, self.faults.refuse)
        return refusal_body(kind, parameter) if parameter is not None else None

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
        if kind == "google":
            model = path.rsplit("/", 1)[-1].split(":", 1)[0]
            texts, last_user = google_texts(request)
        else:
            model = request.get("model", "")
            texts, last_user = chat_texts(request)
        judged = any(faults.judge_marker in t for t in texts)
        scripted = _scripted(faults.script, texts)
        if scripted is not None:
            text = scripted
        elif judged:
            text = hashed_verdict(texts) if faults.verdict == "hash" else next(self._verdicts)
        else:
            text = faults.reply if faults.reply is not None else rewrite(last_user)
        limit = (
            request.get("max_tokens")
            or request.get("max_completion_tokens")  # what OpenAI reasoning requests send instead
            or (request.get("generationConfig") or {}).get("maxOutputTokens")
        )
        if faults.unique:
            text = f"{text}\n#{next(self._ids)}"
        words = text.split()
        truncated = isinstance(limit, int) and limit > 0 and len(words) > limit
        if truncated:
            text = " ".join(words[:limit])
        n_in, n_out = sum(len(t.split()) for t in texts), len(text.split())
        least = faults.cache_min_tokens
        if kind == "openai":
            cached = self.prompt_cache.automatic(model, texts, least)
            return model, openai_body(request, model, text, truncated, n_in, n_out, judged, cached), judged
        if kind == "anthropic":
            read, written = self.prompt_cache.anthropic(request, least)
            return model, anthropic_body(model, text, truncated, n_in, n_out, read, written), judged
        cached = self.prompt_cache.automatic(model, texts, least)
        return model, google_body(model, text, truncated, n_in, n_out, cached), judged

    # ---- Files + Batches ----------------------------------------------------------------
    def batch_route(self, method: str, path: str, body: bytes) -> tuple[int, bytes, dict[str, str]]:
        """POST /v1/files, GET /v1/files/{id}/content, POST /v1/batches, GET /v1/batches[/{id}]."""
        parts = path.split("?", 1)[0].strip("/").split("/")
        if method == "POST" and parts == ["v1", "files"]:
            return self._upload(body)
        if method == "GET" and len(parts) == 4 and parts[1] == "files" and parts[3] == "content":
            if parts[2] not in self.files:
                return 404, _error_body(404, f"no file {parts[2]}"), {}
            return 200, self.files[parts[2]], {}
        if method == "POST" and parts == ["v1", "batches"]:
            return self._create_batch(json.loads(body))
        if method == "GET" and parts == ["v1", "batches"]:  # the list, newest first, in one page
            data = [self._batch_object(b, "in_progress") for b in reversed(self.batches.values())]
            return 200, json.dumps({"object": "list", "data": data, "has_more": False}).encode(), {}
        if method == "GET" and len(parts) == 3 and parts[1] == "batches":
            batch = self.batches.get(parts[2])
            if batch is None:
                return 404, _error_body(404, f"no batch {parts[2]}"), {}
            return 200, json.dumps(self._poll(batch)).encode(), {}
        return 404, _error_body(404, f"no route {method} {path}"), {}

    def _upload(self, body: bytes) -> tuple[int, bytes, dict[str, str]]:
        # multipart/form-data: the first line is the boundary, so the header is not needed
        boundary = body.split(b"\r\n", 1)[0]
        content = None
        for part in body.split(boundary):
            head, _, data = part.partition(b"\r\n\r\n")
            if b'name="file"' in head:
                content = data[:-2] if data.endswith(b"\r\n") else data
        if content is None:
            return 400, _error_body(400, "multipart upload without a 'file' part"), {}
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = content
        self.stats.files += 1
        return 200, json.dumps(file_object(file_id, len(content), "batch")).encode(), {}

    def _create_batch(self, request: dict) -> tuple[int, bytes, dict[str, str]]:
        source = self.files.get(request.get("input_file_id", ""))
        if source is None or request.get("endpoint") != "/v1/chat/completions":
            return (
                400,
                _error_body(400, "expected input_file_id of an uploaded file and endpoint /v1/chat/completions"),
                {},
            )
        out = []
        for line in source.decode("utf-8").splitlines():
            if not line.strip():
                continue
            entry = json.loads(line)
            _, payload, _ = self.reply("openai", entry["url"], entry["body"])
            self.stats.batch_lines += 1
            out.append(
                json.dumps(
                    {
                        "id": f"batch_req_{next(self._ids)}",
                        "custom_id": entry["custom_id"],
                        "error": None,
                        "response": {"status_code": 200, "request_id": "req", "body": json.loads(payload)},
                    }
                )
            )
        output_id = f"file-{next(self._ids)}"
        self.files[output_id] = "".join(line + "\n" for line in out).encode()
        batch_id = f"batch_{next(self._ids)}"
        self.batches[batch_id] = {
            "id": batch_id,
            "input_file_id": request["input_file_id"],
            "output": output_id,
            "total": len(out),
            "polls": 0,
            "created_at": int(time.time()),
        }
        self.stats.batches += 1
        return 200, json.dumps(self._batch_object(self.batches[batch_id], "validating")).encode(), {}

    def _poll(self, batch: dict[str, Any]) -> dict[str, Any]:
        batch["polls"] += 1
        self.stats.batch_polls += 1
        status = "in_progress" if batch["polls"] <= self.faults.batch_polls else self.faults.batch_status
        return self._batch_object(batch, status)

    @staticmethod
    def _batch_object(batch: dict[str, Any], status: str) -> dict[str, Any]:
        ended = status in ("completed", "expired", "cancelled")
        done = batch["total"] if ended else 0
        return {
            "id": batch["id"],
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": None,
            "input_file_id": batch["input_file_id"],
            "completion_window": "24h",
            "status": status,
            "output_file_id": batch["output"] if ended else None,
            "error_file_id": None,
            "created_at": batch["created_at"],
            "request_counts": {"total": batch["total"], "completed": done, "failed": 0},
        }


def _response(status: int, payload: bytes, headers: dict[str, str]) -> bytes:
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    head = (
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(payload)}\r\n{extra}\r\n"
    )
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


def _scripted(script: list[dict[str, Any]], texts: list[str]) -> str | None:
    """The answer of the first script rule whose strings all occur in the request, or None."""
    joined = "\n".join(texts)
    for rule in script:
        if all(part in joined for part in rule["contains"]):
            return str(rule["answer"])
    return None


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
            return replace(self.app.stats, models=dict(self.app.stats.models), bodies=dict(self.app.stats.bodies))

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
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.host, args.port, unique=args.unique, rpm_limit=args.rpm_limit))


if __name__ == "__main__":
    main()
