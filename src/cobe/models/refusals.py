"""A request refused for what it asked, not for when it asked: a 400, 404 or 422 that names a parameter, a
value or the model. Every later call with the same settings would be refused the same way, so such a
refusal is never retried and stops a run (`cobe.calls.caller`), with a line that names the model, the
parameter and the fix.

A 400 about one call's content (a prompt over the context length, a flagged text) names no setting and
stays an error of that call alone. Matching is on the status and the server's own words (OpenAI's `param`
field, a quoted name, a setting named in the message), so this module imports no SDK.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cobe.models.retry import is_auth_error, status_of

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


@dataclass(frozen=True, slots=True)
class Refusal:
    """What a refused request named: its status, the parameter (or `model`), and the server's words."""

    status: int
    parameter: str
    message: str


def server_message(exc: BaseException) -> str:
    """The server's own error message in an SDK exception: the `message` of its error body where there is
    one, else the exception's text, on one line."""
    found = _message_in(getattr(exc, "body", None)) or getattr(exc, "message", None)
    text = found if isinstance(found, str) and found.strip() else str(exc)
    return " ".join(text.split())


def _message_in(body: Any) -> str | None:
    """The first `message` string in an error body, however deeply the API nests it."""
    if isinstance(body, dict):
        if isinstance(body.get("message"), str):
            return str(body["message"])
        for value in body.values():
            found = _message_in(value)
            if found:
                return found
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
    param = _named_field(exc)
    if param is not None and param.split(".")[0].split("[")[0] in _CONTENT_FIELDS:
        return None  # the call's own content (a prompt too long): an error of this call only
    if param is None:
        param = _parameter_in(message)
    if param is None and (status == 404 or _NO_MODEL.search(message) or _UNKNOWN_MODEL.search(message)):
        param = "model"
    return Refusal(status, param, message) if param is not None else None


def _parameter_in(message: str) -> str | None:
    """A setting the message names: quoted first (`'max_tokens'`), else the first setting name it holds."""
    for match in _QUOTED.finditer(message):
        name = match.group(1)
        if name == "model" or _SETTING.fullmatch(name) or "_" in name:
            return name if name.split(".")[0] not in _CONTENT_FIELDS else None
    named = _SETTING.search(message)
    return named.group(1) if named else None
