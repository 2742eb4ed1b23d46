"""Each respondent's call settings: App. D.1's defaults per model, the command's model arguments laid over them,
and what a stored run asked each model (for resuming it, and for a re-judge's settings block)."""

from __future__ import annotations

from typing import Any

from cobe.calls.keys import settings_dict
from cobe.core.errors import InputError
from cobe.models.base import GenerateConfig, Provider
from cobe.models.capabilities import ModelCapabilities
from cobe.models.model_args import ModelArgs
from cobe.models.reasoning import default_max_tokens
from cobe.run.config import EvalConfig


def respondent_settings(config: EvalConfig, caps: ModelCapabilities, models: ModelArgs | None = None) -> GenerateConfig:
    """One respondent's call settings (App. D.1): the command's temperature, token limit and effort, its own model
    arguments over them; with no effort asked, thinking on wherever the model has it (its row's default level);
    with no token limit given, room to think and answer where it thinks, else 512; with no temperature asked,
    none for a model whose row keeps its provider's default (Gemini 3), else the command's (0)."""
    asked = "temperature" in config.model_fields_set
    temperature = None if caps.provider_temperature and not asked else config.temperature
    base = GenerateConfig(
        temperature=temperature, max_tokens=config.max_tokens, reasoning_effort=config.reasoning_effort
    )
    settings = (models or ModelArgs()).settings(caps.spec, base)
    update: dict[str, Any] = {}
    if settings.reasoning_effort is None and caps.default_effort is not None:
        update["reasoning_effort"] = caps.default_effort
    effort = update.get("reasoning_effort", settings.reasoning_effort)
    if settings.max_tokens is None:
        thinks = caps.thinks(effort) or (effort not in (None, "none"))  # an effort asked of any model gets room
        update["max_tokens"] = default_max_tokens(thinks)
    return settings.model_copy(update=update) if update else settings


def command_model_args(config: EvalConfig, specs: list[str]) -> ModelArgs:
    """The command's model arguments and models file; an argument naming no model of the command is refused."""
    models = ModelArgs.parse(config.model_args, config.models_file)
    strays = [spec for spec in models.specs() if spec not in specs]
    if strays:
        raise InputError(
            f"--model-arg {strays[0]}: names no model or judge of this command ({', '.join(dict.fromkeys(specs))})"
        )
    return models


def reasoning_notice(
    providers: dict[str, Provider], models: list[str], respondents: dict[str, GenerateConfig]
) -> list[str]:
    """A line per effort asked of respondents that cannot take one, once per run."""
    without: dict[str, list[str]] = {}
    for spec in models:
        effort = respondents[spec].reasoning_effort
        if effort is not None and not providers[spec].reasoning:
            without.setdefault(effort, []).append(spec)
    return [
        f"{', '.join(specs)} {'has' if len(specs) == 1 else 'have'} no reasoning-effort setting: "
        f"--reasoning-effort {effort} stays in the calls' keys and records but is not sent"
        for effort, specs in without.items()
    ]


def model_settings(stored: dict[str, Any]) -> dict[str, Any]:
    """Each respondent's call settings as a stored run asked them. A run stored before they were recorded per
    model asked every model at the command's temperature, token limit and effort."""
    if "model_settings" in stored:
        return dict(stored["model_settings"])
    try:
        base = GenerateConfig(
            temperature=stored.get("temperature"),
            max_tokens=stored.get("max_tokens"),
            reasoning_effort=stored.get("reasoning_effort"),
        )
    except ValueError:
        return {}
    return {model: settings_dict(base) for model in stored.get("models") or []}


def recorded_respondents(
    stored: dict[str, Any], models: ModelArgs
) -> dict[str, tuple[ModelCapabilities, GenerateConfig]]:
    """The respondents of a stored run as it asked them (its configuration's `model_settings`), where readable."""
    recorded = {}
    for spec, settings in model_settings(stored).items():
        try:
            recorded[spec] = (models.capabilities(spec), GenerateConfig.model_validate(settings))
        except (InputError, ValueError):
            continue  # a model no row fits any more is left out of the block, never a reason to stop judging
    return recorded
