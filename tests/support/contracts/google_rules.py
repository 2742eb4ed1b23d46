"""Google's contract: Gemini generateContent's thinking configuration per model generation.

From the Gemini API reference: Gemini 2.5 takes a thinking budget (Pro 128-32768 and never 0; Flash 0-24576;
Flash-Lite 0 or 512-24576; -1 lets the model decide) and no thinking level; Gemini 3 takes a thinking level (3
Pro: low, high; 3.1 Pro: low, medium, high; 3 Flash: minimal to high) and cannot turn thinking off; a budget and
a level together are refused; Gemini 2.0 and 1.5 do not think. Names that are no Gemini model take anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from support.contracts.common import AUTO_SPEND, LEVEL_SPEND, Refusal, google_error


@dataclass(frozen=True)
class Generation:
    """What one Gemini model's thinking configuration takes."""

    thinks: bool
    budget: tuple[int, int] | None = None  # (least, most) thinking tokens; None: no budget
    off: bool = False  # budget 0 turns thinking off
    levels: tuple[str, ...] = ()  # thinking levels
    default_on: bool = True  # thinks with no thinking configuration


def generation(model: str) -> Generation | None:
    """The model's generation, or None for a name of no Gemini model."""
    name = model.lower()
    if not name.startswith("gemini-"):
        return None
    if re.match(r"gemini-(1|2\.0)", name):
        return Generation(False)
    if name.startswith("gemini-2.5-pro"):
        return Generation(True, (128, 32768))
    if name.startswith("gemini-2.5-flash-lite"):
        return Generation(True, (512, 24576), off=True, default_on=False)
    if name.startswith("gemini-2.5"):
        return Generation(True, (1, 24576), off=True)
    if "flash" in name:
        return Generation(True, levels=("minimal", "low", "medium", "high"))
    if name.startswith("gemini-3.1"):
        return Generation(True, levels=("low", "medium", "high"))
    return Generation(True, levels=("low", "high"))


def _config(request: dict) -> dict:
    """The thinking configuration, its fields in camelCase (the API reads proto names as well, as the SDK sends)."""
    config = (request.get("generationConfig") or {}).get("thinkingConfig") or {}
    return {re.sub(r"_(\w)", lambda m: m.group(1).upper(), key): value for key, value in config.items()}


def refusal(model: str, request: dict) -> Refusal | None:
    """POST /v1beta/models/{model}:generateContent."""
    if not request.get("contents"):
        return google_error("* GenerateContentRequest.contents: contents is not specified")
    gen = generation(model)
    config = _config(request)
    if gen is None or not config:
        return None
    budget, level = config.get("thinkingBudget"), config.get("thinkingLevel")
    if not gen.thinks:
        return google_error("Thinking is not supported for this model.")
    if budget is not None and level is not None:
        return google_error("You can only set one of thinking budget and thinking level.")
    if level is not None and str(level).lower() not in gen.levels:
        return google_error(f"Thinking level {level} is not supported for this model.")
    if budget is not None:
        if gen.budget is None:
            return google_error("Thinking budget is not supported for this model; use thinking level.")
        least, most = gen.budget
        if budget == 0 and not gen.off:
            return google_error("Budget 0 is invalid. This model only works in thinking mode.")
        if budget not in (0, -1) and not least <= budget <= most:
            return google_error(
                f"The thinking budget {budget} is invalid. Please choose a value between {least} and {most}."
            )
    return None


def spend(model: str, request: dict) -> int:
    """Thinking tokens before the answer: the budget's (up to 512), the level's, the model's own default."""
    gen = generation(model)
    if gen is None or not gen.thinks:
        return 0
    config = _config(request)
    budget, level = config.get("thinkingBudget"), config.get("thinkingLevel")
    if level is not None:
        return LEVEL_SPEND.get(str(level).lower(), AUTO_SPEND)
    if budget is not None:
        return AUTO_SPEND if budget == -1 else min(int(budget), AUTO_SPEND)
    return AUTO_SPEND if gen.default_on else 0
