"""What the fake server answers, in each API's dialect: the request's texts in, a response body out.

Replies are deterministic: a rewrite echoes the start of the request, a verdict comes from the
server's faults (or a hash of the request), token counts are whitespace word counts.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(part.get("text", "") for part in content or () if isinstance(part, dict))


def chat_texts(request: dict) -> tuple[list[str], str]:
    texts = [content_text(request.get("system"))] if request.get("system") else []
    last_user = ""
    for message in request.get("messages", ()):
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


def openai_body(
    request: dict, model: str, text: str, truncated: bool, n_in: int, n_out: int, judged: bool, cached: int = 0
) -> bytes:
    logprobs = None
    if request.get("logprobs"):
        top = top_logprobs(text, int(request.get("top_logprobs") or 1))
        logprobs = {"content": [{**top[0], "top_logprobs": top}], "refusal": None}
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "length" if truncated else "stop",
                "logprobs": logprobs,
            }
        ],
        "usage": {
            "prompt_tokens": n_in,
            "completion_tokens": n_out,
            "total_tokens": n_in + n_out,
            "prompt_tokens_details": {"cached_tokens": cached},  # part of prompt_tokens
        },
    }
    return json.dumps(body).encode()


def anthropic_body(
    model: str, text: str, truncated: bool, n_in: int, n_out: int, read: int = 0, written: int = 0
) -> bytes:
    body = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "max_tokens" if truncated else "end_turn",
        "stop_sequence": None,
        # input_tokens counts only what comes after the cached prefix, read or written
        "usage": {
            "input_tokens": n_in - read - written,
            "output_tokens": n_out,
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": written,
        },
    }
    return json.dumps(body).encode()


def google_body(model: str, text: str, truncated: bool, n_in: int, n_out: int, cached: int = 0) -> bytes:
    body = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "finishReason": "MAX_TOKENS" if truncated else "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": n_in, "candidatesTokenCount": n_out, "totalTokenCount": n_in + n_out},
        "modelVersion": model,
    }
    if cached:  # part of promptTokenCount; Gemini leaves the field out when nothing was cached
        body["usageMetadata"]["cachedContentTokenCount"] = cached
    return json.dumps(body).encode()
