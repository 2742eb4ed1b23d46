"""What the fake server is told to do (`Faults`) and what it counts (`Stats`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: the words that mark a judge prompt (every bundled judge prompt set ends with them)
JUDGE_MARKER = "Answer with exactly one letter"
#: the words that mark a plain question answered with one letter (the judge's preflight probe asks one)
QUESTION_MARKER = "Reply with one letter: T or F"


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
    # the answer to a plain question asked for one letter (QUESTION_MARKER), as a chat model answers it; not a
    # judge prompt, so it takes no verdict from `verdict` and counts in no judge_requests
    question_answer: str = "T"
    batch_polls: int = 0  # a batch answers in_progress to this many status requests, then ends
    batch_status: str = "completed"  # how batches end: completed, failed (no output), expired, cancelled
    batch_errored: int = 0  # the first k requests of each Anthropic message batch answer errored
    # scripted answers keyed on prompt content: [{"contains": [str, ...], "answer": str}, ...]; the first
    # rule whose strings all occur in the request's text answers it, before `verdict` and `reply`. A rule may
    # give "answers": [str, ...] instead, in turn to the same request asked again (a judge asked a check K
    # times), and "p_true": a number (or a list beside "answers") for the first token's logprobs of T and F
    # (chat completions asked for logprobs)
    script: list[dict[str, Any]] = field(default_factory=list)
    hold_after: int | None = None  # chat requests after the first k wait, unanswered, until this is None again
    fail_status: int = 0  # every chat and batch request answers this error status (401, 403, 500, ...); 0: off
    # with fail_status: this body as it is instead of the API's error body (a proxy's HTML page, "", a FastAPI
    # 422's `detail`), sent as text/html where it starts with "<", else as JSON; None: the API's own body
    fail_body: str | None = None
    echo_key: bool = False  # error bodies repeat the API key the request carried, as some providers do
    echo_after: int = 0  # with echo_key or echo_in: this many characters of the server's own words come before the key
    # where a 200 chat completion repeats the request's key (after echo_after characters of other words), as a
    # careless gateway might: "text" (the answer), "finish_reason", "logprobs" (a first-token alternative, when
    # asked for), "body" (the whole reply a JSON string, not an object), "choices" (`choices` a string)
    echo_in: list[str] = field(default_factory=list)
    # JSON bodies escape &, < and > as \u0026, \u003c and \u003e, as Go's encoding/json does
    go_json: bool = False
    # every reply ends with a line of its own naming the request ("#17"): no two replies are equal, so no
    # harness can answer a later call from what an earlier identical one got; a verdict stays parseable
    unique: bool = False
    # a provider's requests-per-minute limit, held server-side as a token bucket refilled at rpm_limit / 60
    # a second and holding one second's worth: a request beyond it answers 429 with Retry-After (whole
    # seconds until a request fits again); 0: off
    rpm_limit: int = 0
    # the contract fake: refuse what each real API refuses (support.contracts), and let thinking models spend
    # thinking tokens inside their token limit
    strict: bool = False
    cache_min_tokens: int = 1024  # the shortest prompt prefix the APIs' prompt caching reports
    # parameters every request is refused for (400, the dialect's documented body naming the parameter),
    # e.g. ["max_tokens"]; Gemini's are matched inside generationConfig
    refuse: list[str] = field(default_factory=list)
    unknown_models: list[str] = field(default_factory=list)  # models answered 404 naming the model
    # Responses API replies (200) that hold no answer, one per Responses request in turn: "failed" (status
    # failed, error invalid_prompt), "server_error" (status failed, error server_error), "empty" (status
    # completed, output [])
    failed_responses: list[str] = field(default_factory=list)
    # how many calls the server says it serves at once (0: it says nothing, as llama-cpp-python's server), and where:
    # "props" (llama.cpp's GET /props total_slots), "slots" (llama.cpp's GET /slots list) or "metrics" (a vLLM
    # config line of GET /metrics with a max_num_seqs label)
    slots: int = 0
    slots_via: str = "props"


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
    in_flight: int = 0  # chat requests received and not yet answered (held and delayed ones included)
    peak_in_flight: int = 0  # the most chat requests in flight at once so far
    # open client connections now and at most so far: a keep-alive pool opens one only when every one it has is
    # busy, so the peak is the most calls a client had in flight at once, even where the server answers each at once
    connections: int = 0
    peak_connections: int = 0
    failed: int = 0  # chat requests answered with fail_status
    bodies: dict[str, int] = field(default_factory=dict)  # sha256 of each chat request body → times received
    first_ok_s: float | None = None  # server clock (monotonic) of the first and the latest 2xx chat answer
    last_ok_s: float | None = None
    refused: int = 0  # requests (batch lines included) refused: strict mode, `refuse` or `unknown_models`
    refusals: list[str] = field(default_factory=list)  # "<path>: <status> <message>" of each
    endpoints: dict[str, int] = field(default_factory=dict)  # requests per API (openai, responses, anthropic, google)
    # "<header>: <value>" of each credential a request carried (authorization, x-api-key, x-goog-api-key) → times
    credentials: dict[str, int] = field(default_factory=dict)
    queries: dict[str, int] = field(default_factory=dict)  # the query string of each API request ("" for none) → times
    capacity_reads: int = 0  # GETs of /props, /slots or /metrics
