"""A request refused for what it asked, not for when it asked: a 400, 404 or 422 that names a parameter, a
value or the model. Every later call with the same settings would be refused the same way, so such a
refusal is never retried and stops a run (`cobe.calls.caller`), with a line that names the model, the
parameter and the fix.

A 400 about one call's content (a prompt over the context length, a flagged text) names no setting and
stays an error of that call alone. Matching is on the status and the server's own words (OpenAI's `param`
field, a FastAPI 422's `loc`, a quoted name, a setting named in the message), so this module imports no SDK.

Any other refusal of a request (a 4xx that is neither about the key nor worth asking again, whatever its body
says: an HTML page, an empty body) is a `Refusal` naming no parameter (`request_refusal`): one call's error in a
run, but on the preflight's fixed probe it says every call would be refused, and the run stops there.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from cobe.core.secrets import scrub
from cobe.models.retry import is_auth_error, retryable_status, status_of

#: statuses of a request refused for what it asked: bad request, not found (the model), unprocessable
REFUSAL_STATUSES = frozenset({400, 404, 422})
# request fields that hold a call's content, not a setting: a refusal naming them is about that call
_CONTENT_FIELDS = frozenset({"messages", "input", "contents", "prompt", "system", "content"})
# settings cobe sends, in each API's spelling, found in a message even unquoted
_SETTINGS = (
    "max_completion_tokens",
    "max_output_tokens",
    "maxOutputTokens",
    "max_tokens",
    "temperature",
    "top_p",
    "topP",
    "top_k",
    "topK",
    "seed",
    "stop_sequences",
    "stopSequences",
    "top_logprobs",
    "response_logprobs",
    "responseLogprobs",
    "logprobs",
    "reasoning_effort",
    "reasoning.effort",
    "thinking.budget_tokens",
    "budget_tokens",
    "thinking_budget",
    "thinkingBudget",
    "thinking_level",
    "thinkingLevel",
    "thinking_config",
    "thinkingConfig",
    "thinking",
)
_SETTING = re.compile(r"(?<![\w.])(" + "|".join(re.escape(name) for name in _SETTINGS) + r")(?![\w])")
_QUOTED = re.compile(r"""['"`]([A-Za-z_][\w.]*)['"`]""")
_NO_MODEL = re.compile(r"model\W.{0,80}?(does not exist|not found|is not supported|not available|unknown)", re.I)
_UNKNOWN_MODEL = re.compile(r"\b(unknown|invalid|unsupported) model\b", re.I)


#: the leading parts of a FastAPI / pydantic `loc` that say where in the request, not which field
_LOC_PLACES = frozenset({"body", "query", "path", "header"})
EMPTY_BODY = "(empty body)"


@dataclass(frozen=True, slots=True)
class Refusal:
    """What a refused request named: its status, the parameter (or `model`; "" where it names none), and the
    server's words (where it names none: the body's first line, scrubbed)."""

    status: int
    parameter: str
    message: str

    @property
    def named(self) -> bool:
        """Whether it names a setting or the model, so that every call with these settings would be refused."""
        return bool(self.parameter)


def server_message(exc: BaseException) -> str:
    """The server's own error message in an SDK exception: the `message` of its error body where there is
    one, else the exception's text, on one line."""
    found = _message_in(getattr(exc, "body", None)) or getattr(exc, "message", None)
    text = found if isinstance(found, str) and found.strip() else str(exc)
    return " ".join(text.split())


def _message_in(body: Any) -> str | None:
    """The first `message` string in an error body, however deeply the API nests it (FastAPI's: `msg`, in a
    list under `detail`)."""
    if isinstance(body, dict):
        for name in ("message", "msg"):
            if isinstance(body.get(name), str):
                return str(body[name])
        values: Any = body.values()
    elif isinstance(body, list):
        values = body
    else:
        return None
    for value in values:
        found = _message_in(value)
        if found:
            return found
    return None


def _loc_field(body: Any) -> str | None:
    """The field a FastAPI / pydantic 422 points at: `{"detail": [{"loc": ["body", "temperature"], ...}]}` →
    `temperature` (nested fields dotted: `reasoning.effort`)."""
    detail = body.get("detail") if isinstance(body, dict) else None
    for item in detail if isinstance(detail, list) else ():
        loc = item.get("loc") if isinstance(item, dict) else None
        if isinstance(loc, list) and loc:
            parts = [str(part) for part in loc]
            if parts[0] in _LOC_PLACES:
                parts = parts[1:]
            if parts:
                return ".".join(parts)
    return None


def _named_field(exc: BaseException) -> str | None:
    """OpenAI's `param` of the error: the SDK's attribute, else the error body's field."""
    param = getattr(exc, "param", None)
    body = getattr(exc, "body", None)
    if param is None and isinstance(body, dict):
        inner = body.get("error")
        param = inner.get("param") if isinstance(inner, dict) else body.get("param")
    return param if isinstance(param, str) and param else None


def refusal(exc: BaseException) -> Refusal | None:
    """The Refusal of a request refused for its settings or its model, or None (another kind of error)."""
    status = status_of(exc)
    if status not in REFUSAL_STATUSES or is_auth_error(exc):
        return None
    message = server_message(exc)
    param = _named_field(exc) or _loc_field(getattr(exc, "body", None))
    if param is not None and param.split(".")[0].split("[")[0] in _CONTENT_FIELDS:
        return None  # the call's own content (a prompt too long): an error of this call only
    if param is None:
        param = _parameter_in(message)
    if param is None and (status == 404 or _NO_MODEL.search(message) or _UNKNOWN_MODEL.search(message)):
        param = "model"
    if param is None:
        return None
    if not _message_in(getattr(exc, "body", None)):  # no words of the server's own: show what its body was
        shown = body_line(exc)
        message = message if shown == EMPTY_BODY else shown
    return Refusal(status, param, message)


def _parameter_in(message: str) -> str | None:
    """A setting the message names: quoted first (`'max_tokens'`), else the first setting name it holds."""
    for match in _QUOTED.finditer(message):
        name = match.group(1)
        if name == "model" or _SETTING.fullmatch(name) or "_" in name:
            return name if name.split(".")[0] not in _CONTENT_FIELDS else None
    named = _SETTING.search(message)
    return named.group(1) if named else None


def request_refusal(exc: BaseException) -> Refusal | None:
    """The refusal of a request however its body reads: `refusal(exc)` where it names a setting or the model,
    else a Refusal naming none (parameter "", the body's first line) for any 4xx that is neither about the key
    nor worth asking again (408, 409, 429); None for every other error."""
    named = refusal(exc)
    if named is not None:
        return named
    status = status_of(exc)
    if status is None or not 400 <= status < 500 or retryable_status(status) or is_auth_error(exc):
        return None
    return Refusal(status, "", body_line(exc))


def body_line(exc: BaseException) -> str:
    """The error body as the server sent it, scrubbed whole of secrets, on one line: a JSON body whole (its text
    scrubbed of every escaped form of a key, and decoded where a key is still found in it), any other (an HTML
    page, plain text) its first non-blank line; `(empty body)` where it sent none."""
    text = scrub(_raw_body(exc))  # scrubbed before any line is picked or whitespace tidied: either could split a key
    try:
        parsed = json.loads(text)
    except ValueError:
        lines = [line for line in text.splitlines() if line.strip()]
        text = lines[0] if lines else ""
    else:
        scrubbed = _scrubbed(parsed)
        if scrubbed != parsed:  # a key escaped as no form of it foresaw (`\u0061…`): shown decoded, scrubbed
            text = json.dumps(scrubbed, ensure_ascii=False)
    return " ".join(text.split()) or EMPTY_BODY


def _raw_body(exc: BaseException) -> str:
    """The response body of an SDK error: the HTTP response's text where the error keeps it, else its parsed body."""
    try:
        text = getattr(getattr(exc, "response", None), "text", None)
    except Exception:  # noqa: BLE001 - a response closed before it was read has no text to give
        text = None
    if isinstance(text, str):
        return text
    body = getattr(exc, "body", None)
    if isinstance(body, str):
        return body
    if isinstance(body, (dict, list)):
        return json.dumps(_scrubbed(body), ensure_ascii=False)  # a key in it is scrubbed before escaping hides it
    return ""


def _scrubbed(value: Any) -> Any:
    """A parsed body with every string in it scrubbed."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {key: _scrubbed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrubbed(item) for item in value]
    return value
