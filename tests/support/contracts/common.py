"""What the API contracts share: a refusal, the error bodies of each API, and the thinking spent per level."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

#: thinking tokens a model spends per level in the fake (the real amounts vary; the order is what matters)
LEVEL_SPEND = {"minimal": 16, "low": 64, "medium": 256, "high": 1024, "xhigh": 2048, "max": 4096}
#: what a model deciding for itself (adaptive, Gemini's dynamic budget) spends
AUTO_SPEND = 512


@dataclass(frozen=True)
class Refusal:
    """An API's answer to a request it refuses: the HTTP status and the JSON body, as documented."""

    status: int
    body: dict

    @property
    def payload(self) -> bytes:
        """The body as sent."""
        return json.dumps(self.body).encode()

    @property
    def message(self) -> str:
        """The error's message, for counts and test failures."""
        error = self.body.get("error") or {}
        return f"{self.status} {error.get('message', '')}"


def openai_error(message: str, param: str | None, code: str | None, status: int = 400) -> Refusal:
    """OpenAI's error shape: {"error": {"message", "type", "param", "code"}}."""
    return Refusal(
        status, {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}
    )


def anthropic_error(message: str, status: int = 400) -> Refusal:
    """Anthropic's error shape: {"type": "error", "error": {"type", "message"}}."""
    kind = "not_found_error" if status == 404 else "invalid_request_error"
    return Refusal(status, {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake"})


def google_error(message: str, status: int = 400) -> Refusal:
    """Google's error shape: {"error": {"code", "message", "status"}}."""
    word = "NOT_FOUND" if status == 404 else "INVALID_ARGUMENT"
    return Refusal(status, {"error": {"code": status, "message": message, "status": word}})


def version(model: str, family: str) -> tuple[int, int] | None:
    """(major, minor) after `family-` in a model name (`gpt-5.4` → (5, 4); `claude-opus-4-7` → (4, 7))."""
    match = re.search(rf"{family}-(\d+)(?:[.-](\d)(?!\d))?", model)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2) or 0)
