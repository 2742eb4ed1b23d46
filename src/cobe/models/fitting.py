"""A call's settings fitted to what its model accepts: what is sent, and what is not (each named once).

Every hosted provider builds its request from `fit(caps, config)`: the token limit (raised to the API's
least where needed), the sampling settings the model takes while it thinks (or not), and the thinking
setting in the model's own terms (a level, a budget, adaptive, off). A setting the model refuses is never
sent; `Fitted.dropped` says which, and the provider reports each once per run. A request no fitting can
save (thinking off where it cannot be off, a budget outside the model's bounds) is an InputError before
any call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cobe.core.errors import InputError
from cobe.models.capabilities import SAMPLING, ModelCapabilities
from cobe.models.reasoning import nearest_effort, thinking_budget
from cobe.models.settings import GenerateConfig


@dataclass(frozen=True, slots=True)
class Thinking:
    """The thinking setting to send: a level (effort, adaptive, level), a budget, or off (`effort` "none", budget 0)."""

    kind: str  # the row's reasoning: effort | budget | adaptive | level
    effort: str | None = None
    budget: int | None = None


@dataclass(frozen=True, slots=True)
class Fitted:
    """What goes on the wire for one call, in neutral terms each provider maps onto its API."""

    caps: ModelCapabilities
    thinks: bool
    thinking: Thinking | None  # None: nothing about thinking is sent
    max_tokens: int | None
    sampling: dict[str, Any]  # the sampling settings sent (temperature, top_p, seed, stop, logprobs)
    dropped: tuple[str, ...] = ()

    def get(self, name: str) -> Any:
        """A sampling setting as sent, or None."""
        return self.sampling.get(name)


def _refuse_off(caps: ModelCapabilities) -> InputError:
    levels = ", ".join(level for level in caps.efforts if level != "none") or "its default"
    return InputError(
        f"--reasoning-effort none: {caps.spec} cannot turn thinking off; give a level it takes ({levels}) "
        "or leave --reasoning-effort out"
    )


def _off(caps: ModelCapabilities) -> Thinking | None:
    """How thinking is turned off: 'none' where the API takes it, budget 0 for Gemini 2.5, else nothing sent."""
    if caps.reasoning == "effort" and "none" in caps.efforts:
        return Thinking("effort", effort="none")
    if caps.reasoning == "budget" and caps.api == "generate_content":
        return Thinking("budget", budget=0)
    return None


def _budget(caps: ModelCapabilities, level: str | None, config: GenerateConfig) -> int:
    """Thinking tokens: the given budget (checked against the model's bounds) or the level's, cut to fit."""
    assert caps.budget is not None  # a budget row always has bounds (ModelCapabilities checks)
    low, high = caps.budget.min, caps.budget.max
    given = config.thinking_budget
    if given is not None:
        if not low <= given <= high:
            raise InputError(f"thinking_budget {given} for {caps.spec}: expected {low} to {high} thinking tokens")
        if caps.api == "messages" and config.max_tokens is not None and given >= config.max_tokens:
            raise InputError(
                f"thinking_budget {given} for {caps.spec}: must be below max_tokens ({config.max_tokens}); "
                f"give --max-tokens {given + 1024} or more"
            )
        return given
    return min(thinking_budget(level or "medium", config.max_tokens, least=max(low, 1)), high)


def _thinking(caps: ModelCapabilities, config: GenerateConfig, dropped: list[str]) -> Thinking | None:
    """The thinking setting for the effort (or budget) asked, in the model's terms."""
    effort = config.reasoning_effort
    if caps.reasoning in ("none", "fixed"):
        if config.thinking_budget is not None:
            dropped.append(f"thinking_budget {config.thinking_budget} (it takes no thinking setting)")
        return None  # an effort it cannot take is named once by the run's plan
    if effort == "none":
        if not caps.can_turn_off:
            raise _refuse_off(caps)
        return _off(caps)
    if effort is None:
        if caps.reasoning == "budget" and config.thinking_budget is not None:
            return Thinking("budget", budget=_budget(caps, None, config))
        return None
    level = effort if effort in caps.efforts else nearest_effort(effort, caps.efforts)
    if level is None:
        dropped.append(f"reasoning_effort {effort} (it takes no level)")
        return None
    if level != effort:
        dropped.append(f"reasoning_effort {effort} (sent {level}, the nearest level it takes)")
    if caps.reasoning == "budget":
        return Thinking("budget", effort=level, budget=_budget(caps, level, config))
    return Thinking(caps.reasoning, effort=level)


def fit(caps: ModelCapabilities, config: GenerateConfig) -> Fitted:
    """`config` as the model `caps` describes can take it; raises InputError where no fitting can save it."""
    dropped: list[str] = []
    thinking = _thinking(caps, config, dropped)
    thinks = caps.thinks(config.reasoning_effort) if caps.reasoning not in ("none", "fixed") else caps.thinks(None)
    if thinking is not None and thinking.budget is not None and config.reasoning_effort is None:
        thinks = thinking.budget > 0
    max_tokens = config.max_tokens
    if max_tokens is not None and max_tokens < caps.min_output_tokens:
        dropped.append(f"{caps.token_param} {max_tokens} (sent {caps.min_output_tokens}, the least the API takes)")
        max_tokens = caps.min_output_tokens
    allowed = caps.allowed(thinks)
    sampling: dict[str, Any] = {}
    for name in SAMPLING:
        value = getattr(config, name)
        if value is None or value is False:
            continue
        if name in allowed:
            sampling[name] = value
        else:
            why = " while it thinks" if thinks and name in caps.sampling else ""
            dropped.append(f"{name}{'' if value is True else f' {_shown(value)}'}{why}")
    return Fitted(caps, thinks, thinking, max_tokens, sampling, tuple(dropped))


def _shown(value: Any) -> str:
    return ",".join(value) if isinstance(value, tuple) else str(value)


def _thinking_words(fitted: Fitted) -> str:
    """How a call thinks, in words: off, a level (and through what), a budget, or the provider's default."""
    caps, thinking = fitted.caps, fitted.thinking
    if caps.reasoning == "none":
        return "no thinking mode"
    if thinking is None or thinking.effort == "none" or thinking.budget == 0:
        if not fitted.thinks:
            return "off"
        if caps.reasoning == "fixed":
            return "always on (no setting)"
        default = "as much as the model decides" if caps.provider_default == "auto" else caps.provider_default
        return f"on at the provider's default ({default}; nothing sent)"
    if thinking.kind == "budget":
        return f"budget of {thinking.budget} tokens" + (f" ({thinking.effort})" if thinking.effort else "")
    through = {"effort": "reasoning effort", "adaptive": "adaptive thinking, effort", "level": "thinking level"}
    return f"{through[thinking.kind]} {thinking.effort}"


def effective_settings(caps: ModelCapabilities, config: GenerateConfig) -> dict[str, Any]:
    """What calls at `config` send to the model `caps` describes, for summaries and reports: its API, the token
    limit under the API's name, the sampling settings sent, how it thinks, and what is not sent."""
    fitted = fit(caps, config)
    out: dict[str, Any] = {"api": caps.api, "thinking": _thinking_words(fitted)}
    if fitted.max_tokens is not None:
        out[caps.token_param] = fitted.max_tokens
    out |= {name: list(value) if isinstance(value, tuple) else value for name, value in fitted.sampling.items()}
    dropped = list(fitted.dropped)
    if config.reasoning_effort is not None and caps.reasoning in ("none", "fixed"):
        dropped.append(f"reasoning_effort {config.reasoning_effort} (it takes no thinking setting)")
    if dropped:
        out["not_sent"] = dropped
    return out
