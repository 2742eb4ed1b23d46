"""The OpenAI Responses API (`POST /v1/responses`): the request body and the reading of a reply.

`openai/` models that only it serves (the -pro models) take it, and any other on request (the row's or a
model argument's `api: responses`). A reply cut off by `max_output_tokens` comes back with status
`incomplete`; it is recorded with finish reason `length`, so it is unscored like any cut-off reply. A reply
with status `failed` (its `error` says why), or one whose output holds no message item, raises `FailedReply`: the call
is an errored row, never an empty answer that a judge would score. The same reading serves the Batch API's
`/v1/responses` lines.
"""

from __future__ import annotations

from typing import Any

from cobe.models.base import Message, finish_reason
from cobe.models.fitting import Fitted
from cobe.models.usage import openai_usage

ENDPOINT = "/v1/responses"
TOP_LOGPROBS = 5
# the `error.code`s of a failed response that say "the service's fault, ask again", not the request's
_TRANSIENT_CODES = frozenset({"server_error", "rate_limit_exceeded"})


class FailedReply(Exception):
    """A Responses reply with no answer in it: status `failed`, or no message among its output items."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


def _failure(body: dict[str, Any]) -> FailedReply | None:
    """Why a reply holds no answer (status `failed`, or no message item in `output`), or None when it has one."""
    status = body.get("status")
    if status == "failed":
        given = body.get("error")
        error: dict[str, Any] = given if isinstance(given, dict) else {}
        code = str(error.get("code") or "")
        said = str(error.get("message") or "").strip()
        why = ": ".join(part for part in (code, said) if part) or "no error given"
        return FailedReply(f"the response failed ({why})", transient=code in _TRANSIENT_CODES)
    output = body.get("output") or ()
    if status != "incomplete" and not any(isinstance(item, dict) and item.get("type") == "message" for item in output):
        # no message item (no output, or reasoning only); an incomplete reply cut off before any text is a
        # cut-off answer (unscored), not a failure
        return FailedReply(f"the response holds no message (status {status or 'missing'}, {len(output)} output items)")
    return None


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
    """ModelOutput fields of a Responses reply (as JSON): text, finish reason, tokens (cached ones too), reasoning tokens;
    raises FailedReply for a reply that holds no answer."""
    failed = _failure(body)
    if failed is not None:
        raise failed
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
