"""Anthropic's contract: the Messages API per Claude generation.

From Anthropic's API reference: `max_tokens` is required. Extended thinking (`thinking: {type: enabled}`) takes
`budget_tokens` of 1024 or more and below `max_tokens`, on Claude 3.7 Sonnet to 4.6; adaptive thinking
(`thinking: {type: adaptive}`, the level as `output_config.effort`) on 4.6 and later, where Opus 4.7, Mythos
and Claude 5 take nothing else (`enabled` and `disabled` refused). While Claude thinks, temperature only at 1,
no top_k, top_p only from 0.95; Opus 4.7 and later take no temperature, top_p or top_k at all, and 4.5 on not
temperature and top_p together. Claude 3 (but 3.7) does not think. Names that are no Claude model take anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from support.contracts.common import AUTO_SPEND, LEVEL_SPEND, Refusal, anthropic_error


@dataclass(frozen=True)
class Generation:
    """What one Claude model takes."""

    budget: bool = False  # thinking type enabled with budget_tokens
    adaptive: bool = False  # thinking type adaptive
    can_disable: bool = True  # thinking type disabled
    sampling: bool = True  # temperature, top_p, top_k at all
    one_of: bool = False  # temperature and top_p not together
    efforts: tuple[str, ...] = ()  # output_config.effort levels
    thinks_unasked: bool = False  # thinks with no thinking setting (Mythos)


def generation(model: str) -> Generation | None:
    """The model's generation, or None for a name of no Claude model."""
    name = model.lower()
    if not name.startswith("claude-"):
        return None
    if name.startswith("claude-3-7"):
        return Generation(budget=True)
    if name.startswith("claude-3"):
        return Generation()
    if "mythos" in name:
        return Generation(
            adaptive=True,
            can_disable=False,
            sampling=False,
            thinks_unasked=True,
            efforts=("low", "medium", "high", "xhigh", "max"),
        )
    match = re.search(r"-(\d+)(?:-(\d)(?!\d))?", name)
    found = (int(match.group(1)), int(match.group(2) or 0)) if match else (9, 9)
    if found >= (4, 7) or "fable" in name:
        return Generation(
            adaptive=True, can_disable=False, sampling=False, efforts=("low", "medium", "high", "xhigh", "max")
        )
    if found == (4, 6):
        return Generation(budget=True, adaptive=True, one_of=True, efforts=("low", "medium", "high", "max"))
    if found == (4, 5):
        return Generation(budget=True, one_of=True, efforts=("low", "medium", "high") if "opus" in name else ())
    return Generation(budget=True)


def _thinking(gen: Generation, request: dict) -> tuple[Refusal | None, bool]:
    """(refusal or None, whether the request makes Claude think)."""
    thinking = request.get("thinking")
    if thinking is None:
        return None, gen.thinks_unasked
    kind = thinking.get("type")
    if kind == "enabled":
        if not gen.budget:
            return anthropic_error(
                '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
                '"output_config.effort" to control thinking behavior.'
            ), False
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            return anthropic_error(
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
            ), False
        if budget >= request.get("max_tokens", 0):
            return anthropic_error("`max_tokens` must be greater than `thinking.budget_tokens`."), False
        return None, True
    if kind == "adaptive":
        if not gen.adaptive:
            return anthropic_error("adaptive thinking is not supported on this model"), False
        return None, True
    if kind == "disabled":
        refused = (
            None if gen.can_disable else anthropic_error('"thinking.type.disabled" is not supported for this model.')
        )
        return refused, False
    return anthropic_error(
        f"thinking.type: Input tag '{kind}' found using 'type' does not match any of the expected tags"
    ), False


def _sampling(gen: Generation, request: dict, thinking: bool) -> Refusal | None:
    if not gen.sampling:
        for name in ("temperature", "top_p", "top_k"):
            if name in request:
                return anthropic_error(f"`{name}` is deprecated for this model.")
    if gen.one_of and "temperature" in request and "top_p" in request:
        return anthropic_error(
            "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
        )
    if thinking:
        if request.get("temperature", 1) != 1:
            return anthropic_error("`temperature` may only be set to 1 when thinking is enabled.")
        if "top_k" in request:
            return anthropic_error("`top_k` is not supported when thinking is enabled.")
        if request.get("top_p", 1) < 0.95:
            return anthropic_error("`top_p` must be greater than or equal to 0.95 when thinking is enabled.")
    return None


def refusal(model: str, request: dict) -> Refusal | None:
    """POST /v1/messages (and each request of a message batch)."""
    if "max_tokens" not in request:
        return anthropic_error("max_tokens: Field required")
    if not request.get("messages"):
        return anthropic_error("messages: Field required")
    gen = generation(model)
    if gen is None:
        return None
    refused, thinking = _thinking(gen, request)
    if refused is not None:
        return refused
    effort = (request.get("output_config") or {}).get("effort")
    if effort is not None and effort not in gen.efforts:
        return anthropic_error(f"output_config.effort: '{effort}' is not supported for this model.")
    return _sampling(gen, request, thinking)


def spend(model: str, request: dict) -> int:
    """Thinking tokens before the answer: the budget's (up to 512), the level's when adaptive."""
    gen = generation(model)
    thinking = request.get("thinking") or {}
    kind = thinking.get("type")
    if kind == "enabled":
        return min(int(thinking.get("budget_tokens", 0)), AUTO_SPEND)
    if kind == "adaptive" or (kind is None and gen is not None and gen.thinks_unasked):
        effort = (request.get("output_config") or {}).get("effort") or "high"
        return LEVEL_SPEND.get(effort, AUTO_SPEND)
    return 0
