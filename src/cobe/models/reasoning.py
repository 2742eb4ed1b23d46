"""Reasoning effort: the levels, the thinking budget each level stands for, and token limits that leave room to answer.

OpenAI takes the level itself (`reasoning_effort`, `reasoning.effort`); Anthropic (extended thinking) and
Gemini 2.5 take a budget of thinking tokens, derived here from the level so one flag means the same amount
of thought everywhere; Claude's adaptive thinking and Gemini 3 take a level of their own. Which levels
and budgets each model accepts is its row in the capability table (`cobe.models.capabilities`).
"""

from __future__ import annotations

from typing import get_args

from cobe.core.errors import InputError
from cobe.models.settings import ReasoningEffort

#: every level, weakest first; "none" is thinking off
EFFORTS: tuple[str, ...] = get_args(ReasoningEffort)
#: the levels that think
THINKING_EFFORTS: tuple[str, ...] = EFFORTS[1:]
#: the level App. D.1 ran a thinking model at where a level (or a budget) must be given
D1_EFFORT = "medium"
#: thinking tokens per level, for the providers that take a budget (Anthropic's minimum is 1024)
THINKING_BUDGET: dict[str, int] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
    "xhigh": 24576,
    "max": 32768,
}
#: what the thinking budget leaves, at least, for the answer itself within the token limit
ANSWER_FLOOR = 1024
#: the respondent token limit without thinking: a rewrite of a ~40-word story fits many times over
DEFAULT_MAX_TOKENS = 512
#: the token limit of a model that thinks: a high budget plus room for the answer, since OpenAI, Anthropic
#: and Gemini count thinking inside the limit and a cut-off reply is left unscored
REASONING_MAX_TOKENS = THINKING_BUDGET["high"] + 4096


def default_max_tokens(thinks: bool) -> int:
    """The token limit when none is given: room to think and answer where the model thinks."""
    return REASONING_MAX_TOKENS if thinks else DEFAULT_MAX_TOKENS


def nearest_effort(effort: str, accepted: tuple[str, ...]) -> str | None:
    """The accepted thinking level closest to `effort` (the stronger one on a tie), or None when none thinks."""
    levels = [level for level in accepted if level in THINKING_EFFORTS]
    if not levels:
        return None
    rank = THINKING_EFFORTS.index(effort)
    return min(levels, key=lambda level: (abs(THINKING_EFFORTS.index(level) - rank), -THINKING_EFFORTS.index(level)))


def thinking_budget(effort: str, max_tokens: int | None, least: int = THINKING_BUDGET["minimal"]) -> int:
    """Thinking tokens for a level, cut so the answer keeps ANSWER_FLOOR tokens below `max_tokens`; refused
    (one line) when that leaves less than the model's smallest budget `least`."""
    budget = THINKING_BUDGET[effort]
    if max_tokens is not None:
        budget = min(budget, max_tokens - ANSWER_FLOOR)
    if budget < least:
        need = max(least, THINKING_BUDGET["minimal"]) + ANSWER_FLOOR
        raise InputError(
            f"--max-tokens {max_tokens} leaves no room for thinking at --reasoning-effort {effort}: "
            f"give --max-tokens {need} or more"
        )
    return budget
