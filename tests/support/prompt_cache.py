"""Prompt caching as the hosted APIs report it, for the fake server (a token is a whitespace word here).

OpenAI (chat completions and Responses) and Gemini cache automatically: a prompt of `least` tokens or more
whose beginning was seen before reports the seen part as cached, in steps of 128 tokens (OpenAI's
`prompt_tokens_details.cached_tokens` / `input_tokens_details.cached_tokens`, Gemini's
`cachedContentTokenCount`). Anthropic caches only what a request marks: the prefix up to its last
`cache_control` block is written the first time (`cache_creation_input_tokens`) and read after
(`cache_read_input_tokens`), both apart from `input_tokens`, if it holds `least` tokens or more.

A parameter or model a test tells the server to refuse is answered with the status and the error body each
API documents, naming it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

STEP = 128
#: the shortest prefix any of them caches
LEAST = 1024


def _digest(words: list[str]) -> str:
    return hashlib.sha256("\x00".join(words).encode()).hexdigest()


class PromptCache:
    """The prefixes seen so far, per model."""

    def __init__(self) -> None:
        self.seen: set[tuple[str, str]] = set()

    def automatic(self, model: str, words: list[str], least: int = LEAST) -> int:
        """Cached tokens of a prompt under automatic caching; its prefixes are remembered for later prompts."""
        cached = 0
        first = -(-least // STEP) * STEP  # counts are whole steps of 128 (1024, 1152, ...), from the minimum on
        for end in range(first, len(words) + 1, STEP):
            key = (model, _digest(words[:end]))
            if key in self.seen:
                cached = end
            self.seen.add(key)
        return cached

    def marked(self, model: str, words: list[str], least: int = LEAST) -> tuple[int, int]:
        """(tokens written, tokens read) for the marked prefix `words` of an Anthropic request."""
        if len(words) < least:
            return 0, 0
        key = (model, _digest(words))
        if key in self.seen:
            return 0, len(words)
        self.seen.add(key)
        return len(words), 0


def marked_words(request: dict) -> list[str]:
    """The words of an Anthropic request up to and including its last block marked with cache_control."""
    blocks: list[tuple[str, bool]] = []
    system = request.get("system")
    if isinstance(system, list):
        blocks += [(b.get("text", ""), bool(b.get("cache_control"))) for b in system if isinstance(b, dict)]
    elif system:
        blocks.append((str(system), False))
    for message in request.get("messages", ()):
        content = message.get("content")
        if isinstance(content, list):
            blocks += [(b.get("text", ""), bool(b.get("cache_control"))) for b in content if isinstance(b, dict)]
        else:
            blocks.append((str(content or ""), False))
    last = max((i for i, (_, marked) in enumerate(blocks) if marked), default=-1)
    if request.get("cache_control"):  # automatic caching marks the whole prompt
        last = len(blocks) - 1
    return [word for text, _ in blocks[: last + 1] for word in text.split()]


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
