"""Reading a chat completion's JSON, for live calls and for the Batch API's `/v1/chat/completions` lines alike.

A live call asks the SDK for the reply as the JSON it is (`cast_to=object`) and reads the few fields cobe
records here, instead of having the SDK build its typed `ChatCompletion`: that model's construction walked
every nested field of every reply, about a quarter millisecond a call, more than the rest of cobe spends on
it (benchmarks/bench_harness.py). The request, its errors and the reading of the body as JSON stay the SDK's.
"""

from __future__ import annotations

import json
from typing import Any

from cobe.core.secrets import scrub_cut
from cobe.models.base import finish_reason
from cobe.models.openai_responses import FailedReply
from cobe.models.usage import openai_usage


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def first_choice(body: Any) -> dict[str, Any]:
    """The reply's first choice; FailedReply for a body that is not a chat completion or holds no choice."""
    if not isinstance(body, dict):
        raise FailedReply(f"the server's reply is not a chat completion: {_shown(body, 80)}")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise FailedReply(
            f"the chat completion holds no choice (choices: {type(choices).__name__}, {_shown(choices, 40)})"
        )
    return choices[0]


def _shown(value: Any, limit: int) -> str:
    """A part of a reply as an error quotes it: as JSON on one line, scrubbed of secrets whole, then cut (a key cut
    first would leave its front, which the scrubber no longer knows, in the store and on the terminal)."""
    return scrub_cut(" ".join(json.dumps(value, ensure_ascii=False, default=repr).split()), limit)


def first_token_logprobs(choice: dict[str, Any]) -> dict[str, float] | None:
    """token → logprob of the first generated token's top alternatives, if the server sent them."""
    content = _dict(choice.get("logprobs")).get("content")
    if not content or not isinstance(content[0], dict):
        return None
    return {alt["token"]: alt["logprob"] for alt in content[0].get("top_logprobs") or () if isinstance(alt, dict)}


def read_chat(body: Any, logprobs: bool = False) -> dict[str, Any]:
    """ModelOutput fields of a chat completion (as JSON): text, finish reason, tokens (cached and reasoning ones
    too), the first token's logprobs when asked; raises FailedReply for a reply that holds no choice or message."""
    choice = first_choice(body)
    raw_usage = _dict(body.get("usage"))
    usage = openai_usage(raw_usage)  # cached prompt tokens included
    reasoning = _dict(raw_usage.get("completion_tokens_details")).get("reasoning_tokens")
    message = choice.get("message")
    if not isinstance(message, dict):  # `message: null` is no answer, as a failed Responses reply is none
        raise FailedReply(f"the chat completion's choice holds no message (message: {_shown(message, 40)})")
    content = message.get("content")
    return {
        "text": content if isinstance(content, str) else "",
        "finish_reason": finish_reason(choice.get("finish_reason")),
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cached_input_tokens": usage.cached_input_tokens,
        "cache_write_tokens": 0,
        "reasoning_tokens": reasoning if isinstance(reasoning, int) and reasoning > 0 else 0,
        "first_token_logprobs": first_token_logprobs(choice) if logprobs else None,
    }


__all__ = ["first_choice", "first_token_logprobs", "read_chat"]
