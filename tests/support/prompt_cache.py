"""Prompt caching and refused settings, as the real APIs do them, for the fake server.

Tokens are whitespace words, as everywhere in the fake. Anthropic caches the prefix (system, then every
message in order) up to the last block marked `cache_control`, and reports the tokens it wrote
(`cache_creation_input_tokens`) or read (`cache_read_input_tokens`) apart from `input_tokens`; OpenAI and
Gemini cache without a mark, the longest prefix seen before in steps of 128 tokens, and count it inside
their prompt total (`prompt_tokens_details.cached_tokens`, `cachedContentTokenCount`). A prefix shorter
than the model's minimum is never cached and nothing says so, as documented.

A refused parameter or model is answered with the status and the error body each API documents, naming it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

#: automatic caching (OpenAI, Gemini) matches prefixes in steps of this many tokens
STEP = 128


def _words(content: Any) -> list[tuple[list[str], bool]]:
    """(words, marked for the cache) of each text block of a content value: a string, or a list of blocks."""
    if isinstance(content, str):
        return [(content.split(), False)]
    return [
        (str(block.get("text", "")).split(), "cache_control" in block)
        for block in content or ()
        if isinstance(block, dict)
    ]


def _digest(model: str, words: list[str]) -> str:
    return hashlib.sha256((model + "\n" + " ".join(words)).encode()).hexdigest()


class PromptCache:
    """The prefixes one server has seen, per model: what a later request finds cached."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def anthropic(self, request: dict[str, Any], minimum: int) -> tuple[int, int]:
        """(tokens read from the cache, tokens written to it) of a Messages request."""
        blocks = _words(request.get("system") or "")
        for message in request.get("messages", ()):
            blocks += _words(message.get("content"))
        words: list[str] = []
        marked = 0
        for block, mark in blocks:
            words += block
            if mark:
                marked = len(words)
        if not marked or marked < minimum:
            return 0, 0
        key = _digest(str(request.get("model", "")), words[:marked])
        if key in self.seen:
            return marked, 0
        self.seen.add(key)
        return 0, marked

    def automatic(self, model: str, texts: list[str], minimum: int) -> int:
        """Tokens of the longest prefix of the request seen before (from `minimum` on, in steps of STEP)."""
        words = " ".join(texts).split()
        found = 0
        for end in range(max(minimum, STEP), len(words) + 1, STEP):
            key = _digest(model, words[:end])
            if key in self.seen:
                found = end
            self.seen.add(key)
        return found


def refused_parameter(request: dict[str, Any], refuse: list[str]) -> str | None:
    """The first parameter of `refuse` the request carries (Gemini's inside generationConfig), or None."""
    fields = set(request) | set(request.get("generationConfig") or {})
    return next((name for name in refuse if name in fields), None)


def refusal_body(kind: str, parameter: str) -> tuple[int, bytes]:
    """(400, the dialect's error body) for a request carrying a parameter the model does not take."""
    if kind == "openai":
        error = {
            "message": f"Unsupported parameter: '{parameter}' is not supported with this model.",
            "type": "invalid_request_error",
            "param": parameter,
            "code": "unsupported_parameter",
        }
        return 400, json.dumps({"error": error}).encode()
    if kind == "anthropic":
        error = {"type": "invalid_request_error", "message": f"{parameter}: this model does not support it"}
        return 400, json.dumps({"type": "error", "error": error}).encode()
    message = f"Invalid JSON payload received. Unknown name \"{parameter}\" at 'generation_config': Cannot find field."
    return 400, json.dumps({"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}).encode()


def unknown_model_body(kind: str, model: str) -> tuple[int, bytes]:
    """(404, the dialect's error body) for a model the server does not serve."""
    if kind == "openai":
        error = {
            "message": f"The model `{model}` does not exist or you do not have access to it.",
            "type": "invalid_request_error",
            "param": None,
            "code": "model_not_found",
        }
        return 404, json.dumps({"error": error}).encode()
    if kind == "anthropic":
        error = {"type": "not_found_error", "message": f"model: {model}"}
        return 404, json.dumps({"type": "error", "error": error}).encode()
    message = f"models/{model} is not found for API version v1beta, or is not supported for generateContent."
    return 404, json.dumps({"error": {"code": 404, "message": message, "status": "NOT_FOUND"}}).encode()
