"""The OpenAI Responses API (`POST /v1/responses`): the request body and the reading of a reply.

`openai/` models that only it serves (the -pro models) take it, and any other on request (the row's or a
model argument's `api: responses`). A reply cut off by `max_output_tokens` comes back with status
`incomplete`; it is recorded with finish reason `length`, so it is unscored like any cut-off reply. The same
reading serves the Batch API's `/v1/responses` lines.
"""

from __future__ import annotations

from typing import Any

from cobe.models.base import Message, finish_reason
from cobe.models.fitting import Fitted
from cobe.models.usage import openai_usage

ENDPOINT = "/v1/responses"
TOP_LOGPROBS = 5


def responses_body(messages: list[Message], fitted: Fitted) -> dict[str, Any]:
    """The body of one Responses call (model left out): messages as input items, the token limit as
    max_output_tokens, the effort under reasoning.effort; stored answers stay in cobe's store only."""
    body: dict[str, Any] = {
        "input": [{"role": m.role, "content": m.content} for m in messages],
        "store": False,
    }
    if fitted.max_tokens is not None:
        body["max_output_tokens"] = fitted.max_tokens
    for name in ("temperature", "top_p"):
        if name in fitted.sampling:
            body[name] = fitted.sampling[name]
    if fitted.sampling.get("logprobs"):
        body["top_logprobs"] = TOP_LOGPROBS
        body["include"] = ["message.output_text.logprobs"]
    if fitted.thinking is not None and fitted.thinking.effort is not None:
        body["reasoning"] = {"effort": fitted.thinking.effort}
    return body


def _texts(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The output_text parts of the reply's message items (reasoning items carry no answer)."""
    parts = []
    for item in output or ():
        if item.get("type") == "message":
            parts += [part for part in item.get("content") or () if part.get("type") == "output_text"]
    return parts


def _first_logprobs(parts: list[dict[str, Any]]) -> dict[str, float] | None:
    for part in parts:
        tokens = part.get("logprobs") or []
        if tokens:
            return {alt["token"]: alt["logprob"] for alt in tokens[0].get("top_logprobs") or ()}
    return None


def read_response(body: dict[str, Any], logprobs: bool = False) -> dict[str, Any]:
    """ModelOutput fields of a Responses reply (as JSON): text, finish reason, tokens (cached ones too), reasoning tokens."""
    parts = _texts(body.get("output") or [])
    raw_usage = body.get("usage") or {}
    usage = openai_usage(raw_usage)  # cached prompt tokens included
    status = body.get("status")
    reason: str | None = "stop" if status == "completed" else status
    if status == "incomplete":
        reason = (body.get("incomplete_details") or {}).get("reason") or "incomplete"
    return {
        "text": "".join(part.get("text") or "" for part in parts),
        "finish_reason": finish_reason(reason),
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cached_input_tokens": usage.cached_input_tokens,
        "cache_write_tokens": 0,
        "reasoning_tokens": (raw_usage.get("output_tokens_details") or {}).get("reasoning_tokens", 0),
        "first_token_logprobs": _first_logprobs(parts) if logprobs else None,
    }
