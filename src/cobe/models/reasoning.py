"""Reasoning effort: the levels, the thinking budget each level stands for, and token limits that leave room to answer.

OpenAI takes the level itself (`reasoning_effort`); Anthropic (extended thinking) and Gemini
(thinking config) take a budget of thinking tokens, derived here from the level so one flag
means the same amount of thought everywhere.
"""

from __future__ import annotations

from typing import get_args

from cobe.core.errors import InputError
from cobe.models.base import ReasoningEffort

EFFORTS: tuple[str, ...] = get_args(ReasoningEffort)
#: thinking tokens per level, for the providers that take a budget (Anthropic's minimum is 1024)
THINKING_BUDGET: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
#: what the thinking budget leaves, at least, for the answer itself within the token limit
ANSWER_FLOOR = 1024
#: the respondent token limit without an effort: a rewrite of a ~40-word story fits many times over
DEFAULT_MAX_TOKENS = 512
#: the respondent token limit with an effort: the largest budget plus room for the answer, since
#: OpenAI and Gemini count reasoning tokens inside the limit and a cut-off reply is left unscored
REASONING_MAX_TOKENS = THINKING_BUDGET["high"] + 4096


def default_max_tokens(effort: str | None) -> int:
    """The respondent token limit when --max-tokens is not given."""
    return REASONING_MAX_TOKENS if effort else DEFAULT_MAX_TOKENS


def thinking_budget(effort: str, max_tokens: int | None) -> int:
    """Thinking tokens for a level, cut so the answer keeps ANSWER_FLOOR tokens below `max_tokens`."""
    budget = THINKING_BUDGET[effort]
    if max_tokens is not None:
        budget = min(budget, max_tokens - ANSWER_FLOOR)
    if budget < THINKING_BUDGET["minimal"]:
        least = THINKING_BUDGET["minimal"] + ANSWER_FLOOR
        raise InputError(
            f"--max-tokens {max_tokens} leaves no room for thinking at --reasoning-effort {effort}: "
            f"give --max-tokens {least} or more"
        )
    return budget
