"""The contracts of the hosted APIs, as the strict fake server enforces them: what each real API refuses, with
its documented status and error body, and how much a thinking model thinks before it answers.

Written from the providers' API references, apart from cobe's own capability table, so that a test of the one
against the other can fail: `refusal(kind, model, request)` is None for a request the real API would take, else
the (status, body) it would answer; `thinking_spend(kind, model, request)` is the thinking tokens such a model
spends on a request (counted inside its token limit, as the real APIs count them).
"""

from __future__ import annotations

from support.contracts import anthropic_rules, google_rules, openai_rules
from support.contracts.common import LEVEL_SPEND, Refusal

_RULES = {
    "openai": (openai_rules.chat_refusal, openai_rules.spend),
    "responses": (openai_rules.responses_refusal, openai_rules.spend),
    "completions": (openai_rules.completions_refusal, openai_rules.spend),
    "anthropic": (anthropic_rules.refusal, anthropic_rules.spend),
    "google": (google_rules.refusal, google_rules.spend),
}

__all__ = ["LEVEL_SPEND", "Refusal", "refusal", "thinking_spend"]


def refusal(kind: str, model: str, request: dict) -> Refusal | None:
    """What the real API answers a request it refuses, or None where it takes it."""
    return _RULES[kind][0](model, request)


def thinking_spend(kind: str, model: str, request: dict) -> int:
    """Thinking tokens the model spends on the request before its answer (0: it does not think)."""
    return _RULES[kind][1](model, request)
