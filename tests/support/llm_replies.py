"""What the fake server answers, in each API's dialect: the request's texts in, a response body out.

Replies are deterministic: a rewrite echoes the start of the request, a verdict comes from the
server's faults (or a hash of the request), token counts are whitespace word counts.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass
from typing import Any


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(part.get("text", "") for part in content or () if isinstance(part, dict))


def chat_texts(request: dict) -> tuple[list[str], str]:
    texts = [content_text(request.get("system"))] if request.get("system") else []
    last_user = ""
    if isinstance(request.get("prompt"), str):  # a text completion: one prompt, read as the user's
        return [request["prompt"]], request["prompt"]
    turns = request.get("messages") or request.get("input") or ()  # chat and Messages, or Responses input
    if isinstance(turns, str):
        turns = [{"role": "user", "content": turns}]
    for message in turns:
        text = content_text(message.get("content"))
        texts.append(text)
        if message.get("role") == "user":
            last_user = text
    return texts, last_user


def google_texts(request: dict) -> tuple[list[str], str]:
    system = request.get("systemInstruction") or {}
    texts = [content_text(system.get("parts"))] if system else []
    last_user = ""
    for content in request.get("contents", ()):
        text = content_text(content.get("parts"))
        texts.append(text)
        if content.get("role", "user") == "user":
            last_user = text
    return texts, last_user


def file_object(file_id: str, size: int, purpose: str) -> dict[str, Any]:
    return {
        "id": file_id,
        "object": "file",
        "bytes": size,
        "created_at": int(time.time()),
        "filename": "input.jsonl",
        "purpose": purpose,
        "status": "processed",
    }


def hashed_verdict(texts: list[str]) -> str:
    """T or F fixed by the request's text, so concurrent and batch judging give the same verdicts."""
    return "TF"[hashlib.sha256("\n".join(texts).encode()).digest()[0] % 2]


def rewrite(prompt: str) -> str:
    """A deterministic 'rewrite': the prompt's first 40 words, so outputs differ per scenario."""
    return "Instead, " + " ".join(prompt.split()[:40])


def top_logprobs(text: str, n: int) -> list[dict[str, Any]]:
    first = text.split()[0] if text.split() else ""
    alternatives = [first] + [t for t in ("T", "F", " T", " F", "maybe", "The") if t != first]
    return [
        {"token": tok, "logprob": -0.01 if i == 0 else -3.0 - i, "bytes": list(tok.encode())}
        for i, tok in enumerate(alternatives[: max(n, 1)])
    ]


@dataclass(frozen=True)
class Usage:
    """The tokens of one reply as the APIs count them: the prompt (cached parts apart), the answer, the thinking."""

    input: int
    output: int  # the visible answer
    reasoning: int = 0  # thinking before it, counted in the output by every API
    cached: int = 0  # automatic prompt caching (OpenAI, Gemini): part of `input`
    cache_write: int = 0  # Anthropic's marked prefix, written now: apart from `input`
    cache_read: int = 0  # ... read from the cache: apart from `input`


def verdict_logprobs(text: str, p_true: float) -> list[dict[str, Any]]:
    """The first token's top log-probabilities of a scripted judge that puts `p_true` on T and the rest on F, the
    token it answered first (a probability of 0 is the floor OpenAI reports, -9999)."""
    first = text.split()[0] if text.split() else "T"
    chances = {"T": p_true, "F": 1.0 - p_true}
    order = [first, *(token for token in chances if token != first)]
    return [
        {
            "token": tok,
            "logprob": math.log(chances[tok]) if chances.get(tok, 0.0) > 0 else -9999.0,
            "bytes": list(tok.encode()),
        }
        for tok in order
    ]


def openai_body(
    request: dict, model: str, text: str, truncated: bool, usage: Usage, p_true: float | None = None
) -> bytes:
    """A chat completion, its usage with prompt_tokens_details and completion_tokens_details as OpenAI reports;
    a scripted judge's `p_true` sets the first token's log-probabilities."""
    logprobs = None
    if request.get("logprobs"):
        n = int(request.get("top_logprobs") or 1)
        top = top_logprobs(text, n) if p_true is None else verdict_logprobs(text, p_true)[: max(n, 2)]
        logprobs = {"content": [{**top[0], "top_logprobs": top}], "refusal": None}
    completion = usage.output + usage.reasoning
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "finish_reason": "length" if truncated else "stop",
                "logprobs": logprobs,
            }
        ],
        "usage": {
            "prompt_tokens": usage.input,
            "completion_tokens": completion,
            "total_tokens": usage.input + completion,
            "prompt_tokens_details": {"cached_tokens": usage.cached, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": usage.reasoning,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
    }
    return json.dumps(body).encode()


def completion_body(request: dict, model: str, text: str, truncated: bool, usage: Usage) -> bytes:
    """A (legacy) text completion as OpenAI's /v1/completions answers: `text` per choice, with the first tokens'
    alternatives under logprobs.top_logprobs (token → logprob dicts) where `logprobs` asked for some."""
    logprobs = None
    if request.get("logprobs"):
        top = top_logprobs(text, int(request["logprobs"]))
        logprobs = {
            "tokens": [top[0]["token"]],
            "token_logprobs": [top[0]["logprob"]],
            "top_logprobs": [{alt["token"]: alt["logprob"] for alt in top}],
            "text_offset": [0],
        }
    body = {
        "id": "cmpl-fake",
        "object": "text_completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"text": text, "index": 0, "logprobs": logprobs, "finish_reason": "length" if truncated else "stop"}
        ],
        "usage": {
            "prompt_tokens": usage.input,
            "completion_tokens": usage.output,
            "total_tokens": usage.input + usage.output,
        },
    }
    return json.dumps(body).encode()


def responses_body(request: dict, model: str, text: str, truncated: bool, usage: Usage) -> bytes:
    """A Responses API reply: a reasoning item where the model thought, a message item where it answered, status
    `incomplete` with reason max_output_tokens where the limit cut it."""
    output: list[dict[str, Any]] = []
    if usage.reasoning:
        output.append({"id": "rs_fake", "type": "reasoning", "summary": []})
    if text:
        part: dict[str, Any] = {"type": "output_text", "text": text, "annotations": []}
        if request.get("top_logprobs"):
            top = top_logprobs(text, int(request["top_logprobs"]))
            part["logprobs"] = [{"token": top[0]["token"], "logprob": top[0]["logprob"], "top_logprobs": top}]
        status = "incomplete" if truncated else "completed"
        output.append({"id": "msg_fake", "type": "message", "role": "assistant", "status": status, "content": [part]})
    completion = usage.output + usage.reasoning
    body = {
        "id": "resp_fake",
        "object": "response",
        "created_at": int(time.time()),
        "model": model,
        "status": "incomplete" if truncated else "completed",
        "incomplete_details": {"reason": "max_output_tokens"} if truncated else None,
        "error": None,
        "output": output,
        "max_output_tokens": request.get("max_output_tokens"),
        "reasoning": request.get("reasoning") or {"effort": None, "summary": None},
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": usage.input,
            "input_tokens_details": {"cached_tokens": usage.cached, "cache_write_tokens": 0},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": usage.reasoning},
            "total_tokens": usage.input + completion,
        },
    }
    return json.dumps(body).encode()


#: a failed reply's error by the kind `Faults.failed_responses` names (the SDK's ResponseError codes)
_FAILURES = {
    "failed": {"code": "invalid_prompt", "message": "Invalid prompt: the prompt was flagged."},
    "server_error": {"code": "server_error", "message": "The server had an error while processing your request."},
}


def failed_responses_body(kind: str, model: str, usage: Usage) -> bytes:
    """A Responses reply with no answer in it: status `failed` with its error (and no output), or `empty`, a
    `completed` one whose output holds nothing."""
    if kind not in (*_FAILURES, "empty"):
        raise ValueError(f"unknown failed_responses kind {kind!r}; known: failed, server_error, empty")
    failed = kind in _FAILURES
    body = {
        "id": "resp_fake",
        "object": "response",
        "created_at": int(time.time()),
        "model": model,
        "status": "failed" if failed else "completed",
        "incomplete_details": None,
        "error": _FAILURES[kind] if failed else None,
        "output": [],
        "usage": {
            "input_tokens": usage.input,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 0,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage.input,
        },
    }
    return json.dumps(body).encode()


def anthropic_body(model: str, text: str, truncated: bool, usage: Usage) -> bytes:
    """A Messages reply: a thinking block before the text where Claude thought; usage with the cache fields."""
    content: list[dict[str, Any]] = []
    if usage.reasoning:
        content.append({"type": "thinking", "thinking": "Weighing the request.", "signature": "sig-fake"})
    content.append({"type": "text", "text": text})
    body = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "max_tokens" if truncated else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage.input - usage.cache_write - usage.cache_read,
            "output_tokens": usage.output + usage.reasoning,
            "cache_creation_input_tokens": usage.cache_write,
            "cache_read_input_tokens": usage.cache_read,
        },
    }
    return json.dumps(body).encode()


def google_body(model: str, text: str, truncated: bool, usage: Usage) -> bytes:
    """A generateContent reply; usageMetadata with thoughtsTokenCount and cachedContentTokenCount where non-zero."""
    metadata: dict[str, Any] = {
        "promptTokenCount": usage.input,
        "candidatesTokenCount": usage.output,
        "totalTokenCount": usage.input + usage.output + usage.reasoning,
    }
    if usage.reasoning:
        metadata["thoughtsTokenCount"] = usage.reasoning
    if usage.cached:
        metadata["cachedContentTokenCount"] = usage.cached
    parts = [{"text": text}] if text else []
    body = {
        "candidates": [
            {
                "content": {"role": "model", "parts": parts},
                "finishReason": "MAX_TOKENS" if truncated else "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": metadata,
        "modelVersion": model,
    }
    return json.dumps(body).encode()
