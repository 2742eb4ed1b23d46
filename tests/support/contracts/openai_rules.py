"""OpenAI's contract: chat completions and the Responses API, per model family (o-series, GPT-5.x, -pro).

From OpenAI's API reference: reasoning models refuse `max_tokens` on chat completions (they take
`max_completion_tokens`, which bounds reasoning and answer together); while a model reasons it refuses any
temperature or top_p but the default and logprobs; each model takes only its own reasoning levels (GPT-5:
minimal-high, no none; GPT-5.1: none-high; GPT-5.2 on: none-xhigh, GPT-5.6: and max; o-series: low-high);
GPT-5.1 to 5.4 reason only when asked, GPT-5.5 on by default; -pro models are served by the Responses API only
(404 on chat completions), which takes `max_output_tokens` (16 or more) and `reasoning.effort`, and has
neither stop nor seed. The (legacy) completions endpoint, `POST /v1/completions`, takes a `prompt` and only its own
documented parameters (`logprobs` an integer of at most 5 alternatives, `stop` at most 4 sequences, no `messages`,
`max_completion_tokens`, `top_logprobs` or `reasoning_effort`), and OpenAI serves it only for its completion models
(gpt-3.5-turbo-instruct, davinci-002, babbage-002): a chat model is refused with 404. Names of no OpenAI family
(an OpenAI-compatible server's models) take everything the endpoint defines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from support.contracts.common import LEVEL_SPEND, Refusal, openai_error, version


@dataclass(frozen=True)
class Family:
    """What one OpenAI model takes: its levels ('none' where it can stop reasoning) and its default level."""

    reasons: bool
    efforts: tuple[str, ...] = ()
    default: str = "none"  # the level it reasons at when none is sent
    responses_only: bool = False
    takes_effort: bool = True  # o1-mini and o1-preview reason but take no level


def family(model: str) -> Family | None:
    """The model's family, or None for a name of no OpenAI family (an OpenAI-compatible server's model)."""
    name = model.lower()
    pro = "-pro" in name
    if re.match(r"o\d", name):
        if name.startswith(("o1-mini", "o1-preview")):
            return Family(True, (), "medium", takes_effort=False)
        return Family(True, ("low", "medium", "high"), "medium", responses_only=pro)
    if not name.startswith(("gpt-", "chatgpt-")):
        return None
    found = version(name, "gpt") or (0, 0)
    if found < (5, 0) or "-chat" in name:
        return Family(False)
    if pro:
        levels = ("high",) if found == (5, 0) else ("medium", "high", "xhigh") + (("max",) if found >= (5, 6) else ())
        return Family(True, levels, "high", responses_only=True)
    if found == (5, 0):
        return Family(True, ("minimal", "low", "medium", "high"), "medium")
    levels = ("none", "low", "medium", "high")
    if found >= (5, 2):
        levels += ("xhigh",)
    if found >= (5, 6):
        levels += ("max",)
    return Family(True, levels, "medium" if found >= (5, 5) else "none")


def _reasoning(fam: Family, effort: str | None) -> bool:
    """Whether a request at `effort` (None: no level sent) makes the model reason."""
    if not fam.reasons:
        return False
    if effort is None:
        return fam.default != "none"
    return effort != "none"


def _unsupported(name: str, detail: str = "is not supported with this model.") -> Refusal:
    return openai_error(f"Unsupported parameter: '{name}' {detail}", name, "unsupported_parameter")


def _bad_level(fam: Family, model: str, effort: object, param: str) -> Refusal | None:
    if not fam.takes_effort:
        return _unsupported(param)
    if effort not in fam.efforts:
        said = ", ".join(f"'{level}'" for level in fam.efforts)
        return openai_error(
            f"Unsupported value: '{effort}' is not supported with the '{model}' model. Supported values are: {said}.",
            param,
            "unsupported_value",
        )
    return None


def _sampling(request: dict, reasoning: bool) -> Refusal | None:
    """What a reasoning model refuses of the sampling settings."""
    if not reasoning:
        return None
    for name in ("temperature", "top_p"):
        if name in request and request[name] not in (None, 1, 1.0):
            return openai_error(
                f"Unsupported value: '{name}' does not support {request[name]} with this model. "
                "Only the default (1) value is supported.",
                name,
                "unsupported_value",
            )
    for name in ("logprobs", "top_logprobs"):
        if request.get(name):
            return _unsupported(name)
    return None


def chat_refusal(model: str, request: dict) -> Refusal | None:
    """POST /v1/chat/completions."""
    fam = family(model)
    if not request.get("messages"):
        return openai_error("Missing required parameter: 'messages'.", "messages", "missing_required_parameter")
    if fam is None:
        return None
    if fam.responses_only:
        return openai_error(
            "This model is only supported in v1/responses and not in v1/chat/completions.", "model", None, 404
        )
    effort = request.get("reasoning_effort")
    if not fam.reasons:
        return _unsupported("reasoning_effort") if "reasoning_effort" in request else None
    if "max_tokens" in request:
        return _unsupported("max_tokens", "is not supported with this model. Use 'max_completion_tokens' instead.")
    if "reasoning_effort" in request and (refused := _bad_level(fam, model, effort, "reasoning_effort")):
        return refused
    reasoning = _reasoning(fam, effort)
    if reasoning and request.get("stop") and model.startswith(("o3", "o4", "gpt-5")):
        return _unsupported("stop")
    return _sampling(request, reasoning)


def responses_refusal(model: str, request: dict) -> Refusal | None:
    """POST /v1/responses."""
    for name in ("max_tokens", "max_completion_tokens", "stop", "seed", "logprobs", "reasoning_effort", "messages"):
        if name in request:
            return openai_error(f"Unknown parameter: '{name}'.", name, "unknown_parameter")
    if not request.get("input"):
        return openai_error("Missing required parameter: 'input'.", "input", "missing_required_parameter")
    limit = request.get("max_output_tokens")
    if isinstance(limit, int) and limit < 16:
        return openai_error(
            f"Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got {limit} "
            "instead.",
            "max_output_tokens",
            "integer_below_min_value",
        )
    fam = family(model)
    if fam is None:
        return None
    effort = (request.get("reasoning") or {}).get("effort")
    if "reasoning" in request and not fam.reasons:
        return _unsupported("reasoning.effort")
    if effort is not None and (refused := _bad_level(fam, model, effort, "reasoning.effort")):
        return refused
    reasoning = _reasoning(fam, effort)
    for name in ("temperature", "top_p"):
        if reasoning and name in request:
            return _unsupported(name)
    if reasoning and request.get("top_logprobs"):
        return _unsupported("top_logprobs")
    return None


def spend(model: str, request: dict) -> int:
    """Reasoning tokens before the answer: the level's, at the model's default where none is sent."""
    fam = family(model)
    if fam is None or not fam.reasons:
        return 0
    effort = request.get("reasoning_effort") or (request.get("reasoning") or {}).get("effort") or fam.default
    return 0 if effort == "none" else LEVEL_SPEND.get(effort, LEVEL_SPEND["medium"])


#: what POST /v1/completions defines, from OpenAI's API reference for the legacy completions endpoint
COMPLETIONS_PARAMETERS = frozenset(
    {
        *("model", "prompt", "best_of", "echo", "frequency_penalty", "logit_bias", "logprobs", "max_tokens", "n"),
        *("presence_penalty", "seed", "stop", "stream", "stream_options", "suffix", "temperature", "top_p", "user"),
    }
)
#: the models OpenAI serves on the completions endpoint
COMPLETION_MODELS = ("gpt-3.5-turbo-instruct", "davinci-002", "babbage-002")


def completions_refusal(model: str, request: dict) -> Refusal | None:
    """POST /v1/completions."""
    for name in request:
        if name not in COMPLETIONS_PARAMETERS:
            return openai_error(f"Unrecognized request argument supplied: {name}", name, None)
    prompt = request.get("prompt")
    if not prompt or not isinstance(prompt, (str, list)):
        return openai_error("Missing required parameter: 'prompt'.", "prompt", "missing_required_parameter")
    logprobs = request.get("logprobs")
    if logprobs is not None and (not isinstance(logprobs, int) or isinstance(logprobs, bool) or not 0 <= logprobs <= 5):
        return openai_error(
            f"Invalid value for 'logprobs': expected an integer from 0 to 5, got {logprobs!r}.", "logprobs", None
        )
    stop = request.get("stop")
    if isinstance(stop, list) and len(stop) > 4:
        return openai_error(f"Invalid 'stop': array too long. Expected at most 4, got {len(stop)}.", "stop", None)
    limit = request.get("max_tokens")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        return openai_error(f"Invalid 'max_tokens': expected a positive integer, got {limit!r}.", "max_tokens", None)
    name = model.lower()
    if family(model) is not None and not name.startswith(COMPLETION_MODELS):
        return openai_error(
            "This is a chat model and not supported in the v1/completions endpoint. Did you mean to use "
            "v1/chat/completions?",
            "model",
            None,
            404,
        )
    return None
