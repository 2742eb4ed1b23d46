"""OpenAI's completions endpoint (`POST /v1/completions`), which every OpenAI-compatible server still serves (vLLM,
SGLang, llama.cpp): a base model behind a server, asked as the embedded base model is asked in this process.

A model whose capability row says `api: completions` (or `-M SPEC:api=completions`) gets each request as one plain
prompt (`cobe.models.plain_text`: the respondent's in the completion format with its worked example, a judge's
check ending in an answer cue), and its answer is the continuation's first paragraph. A judge's question with fixed
choices (T or F) asks for the first token's top alternatives and takes the likelier choice among them, as the
embedded model takes it from its logits; where neither is among them, the text as written is read.
"""

from __future__ import annotations

from typing import Any

from cobe.models.base import Message, finish_reason
from cobe.models.fitting import Fitted
from cobe.models.openai_responses import FailedReply
from cobe.models.plain_text import PLAIN_STOPS, choose, first_paragraph, plain_prompt
from cobe.models.usage import openai_usage

#: first-token alternatives asked for: the most OpenAI's completions endpoint returns
TOP_LOGPROBS = 5
#: stop sequences the endpoint takes at most
MAX_STOPS = 4


def completions_body(messages: list[Message], fitted: Fitted, choices: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The body of one completion (model left out): the plain prompt, the token limit, the sampling settings the
    model's row takes, the stops that end an invented next turn, and the top alternatives where a choice is read."""
    body: dict[str, Any] = {"prompt": plain_prompt(messages)}
    if fitted.max_tokens is not None:
        body["max_tokens"] = fitted.max_tokens
    for name in ("temperature", "top_p", "seed"):
        if name in fitted.sampling:
            body[name] = fitted.sampling[name]
    stops = list(dict.fromkeys([*(fitted.get("stop") or ()), *PLAIN_STOPS]))
    if "stop" in fitted.caps.allowed(fitted.thinks):
        body["stop"] = stops[:MAX_STOPS]
    if fitted.get("logprobs") or (choices and "logprobs" in fitted.caps.allowed(fitted.thinks)):
        body["logprobs"] = TOP_LOGPROBS
    return body


def _first_choice(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        shown = " ".join(str(body).split())[:80]
        raise FailedReply(f"the server's reply is not a completion: {shown!r}")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise FailedReply(f"the completion holds no choice (choices: {type(choices).__name__}, {choices!r:.40})")
    return choices[0]


def first_top(choice: dict[str, Any]) -> dict[str, float] | None:
    """token → logprob of the first generated token's top alternatives, where the server sent them."""
    logprobs = choice.get("logprobs")
    top = logprobs.get("top_logprobs") if isinstance(logprobs, dict) else None
    if not isinstance(top, list) or not top or not isinstance(top[0], dict):
        return None
    return {str(token): float(value) for token, value in top[0].items() if isinstance(value, (int, float))}


def read_completion(body: Any, logprobs: bool = False, choices: tuple[str, ...] | None = None) -> dict[str, Any]:
    """ModelOutput fields of a completion (as JSON): the first paragraph of its text (ended there: finish `stop`),
    or the likelier of `choices` (finish `choice`); raises FailedReply for a reply that holds no choice."""
    choice = _first_choice(body)
    raw = choice.get("text")
    text, ended = first_paragraph(raw if isinstance(raw, str) else "")
    finish = "stop" if ended else finish_reason(choice.get("finish_reason"))
    top = first_top(choice)
    chosen = choose(top, choices) if top and choices else None
    if chosen is not None:
        text, finish = chosen, "choice"
    usage = openai_usage(body.get("usage") if isinstance(body.get("usage"), dict) else None)
    return {
        "text": text,
        "finish_reason": finish,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cached_input_tokens": usage.cached_input_tokens,
        "cache_write_tokens": 0,
        "reasoning_tokens": 0,
        "first_token_logprobs": top if logprobs else None,
    }


__all__ = ["completions_body", "first_top", "read_completion"]
