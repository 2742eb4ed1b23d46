"""The settings a model call is made with (`GenerateConfig`) and the bounds every provider shares.

Kept below `base` (the provider interface), `capabilities`, `fitting` and `reasoning`, which all read them,
so none of those imports another only for these names.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

#: how hard a reasoning model thinks before it answers (App. D.1 ran thinking models at "medium"); "none"
#: turns thinking off where a model allows it. Which levels a model takes is in its capability row.
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]


def _not_a_boolean(value: Any) -> Any:
    # pydantic reads true as 1 wherever a number is expected: `-M m:temperature=true` would send 1.0
    if isinstance(value, bool):
        raise ValueError(f"expected a number, not the boolean {str(value).lower()}")
    return value


#: a number that true/false never stands for
NotBool = BeforeValidator(_not_a_boolean)

# What providers accept, the one rule for flags, API options and judge configs: a value outside
# it would be sent with every call and fail each one (nan, inf and 1e309 parse as floats, so
# finiteness is checked too). Temperature 0-2 is OpenAI's range, the widest of the hosted APIs.
Temperature = Annotated[float, Field(ge=0, le=2, allow_inf_nan=False), NotBool]
TopP = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False), NotBool]
#: output tokens per answer: at least one, and no more than any provider generates in one response
MaxTokens = Annotated[int, Field(ge=1, le=1_000_000), NotBool]
#: thinking tokens: 0 (off, where a model allows it) up to any provider's largest budget
ThinkingBudget = Annotated[int, Field(ge=0, le=1_000_000), NotBool]
#: a sampling seed: what a signed 64-bit integer holds, the widest any provider takes
Seed = Annotated[int, Field(ge=-(2**63), le=2**63 - 1), NotBool]


class GenerateConfig(BaseModel):
    """Sampling settings; every field is part of a call's cache key."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: Temperature | None = None
    max_tokens: MaxTokens | None = None
    top_p: TopP | None = None
    seed: Seed | None = None
    stop: tuple[str, ...] | None = None
    logprobs: bool = False  # ask for the top alternatives of the first token (judge P(T))
    # restrict the answer to one of these strings where the provider can (local llama.cpp);
    # providers that cannot ignore it and rely on the prompt's instruction
    choices: tuple[str, ...] | None = None
    # thinking / reasoning effort where the provider has it (see `Provider.reasoning`); None sends
    # nothing, so the provider's own default applies
    reasoning_effort: ReasoningEffort | None = None
    # thinking tokens for models that take a budget (Anthropic extended thinking, Gemini 2.5), in place of
    # the budget a level stands for; checked against the model's bounds (`cobe.models.capabilities`)
    thinking_budget: ThinkingBudget | None = None


def sampling_fields(config: GenerateConfig) -> dict[str, Any]:
    """temperature, top_p and seed where set: the keyword names most inference APIs share."""
    fields = {"temperature": config.temperature, "top_p": config.top_p, "seed": config.seed}
    return {name: value for name, value in fields.items() if value is not None}
