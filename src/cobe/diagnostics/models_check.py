"""`cobe models check`: the preflight of a run, asked of any models on their own, outside a run.

Each model gets one minimal call with the settings a run would send it as a respondent (temperature,
token limit, reasoning effort) and as a judge (the judge prompt set's settings), kept in a store so a
second check pays nothing; every probe is reported, refused or not (`cobe.calls.preflight`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cobe.calls.caller import Caller
from cobe.calls.cost import load_prices
from cobe.calls.preflight import Probe, ProbeResult, check_models
from cobe.calls.scheduler import MAX_RETRY_WAIT_S, Scheduler
from cobe.core.aio import blocking
from cobe.core.errors import InputError
from cobe.core.files import cache_store
from cobe.core.lock import directory_lock
from cobe.judge.judge_plan import plan_judges
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS
from cobe.judge.usable import probe_problem, reask
from cobe.models.base import Provider
from cobe.models.model_args import ModelArgs
from cobe.models.registry import get_provider, refuse_as_judge
from cobe.run.config import EvalConfig
from cobe.run.respondents import command_model_args, respondent_settings
from cobe.store.directory import open_run_store
from cobe.store.store import STORE_NAME

ROLES = ("respondent", "judge")


def _config(specs: Sequence[str], settings: dict[str, Any]) -> EvalConfig:
    """The settings a run would send, as a run's configuration: the command's and each model's own."""
    asked = {"temperature": settings["temperature"]} if settings.get("temperature") is not None else {}
    return EvalConfig(
        models=list(specs),
        **asked,  # none asked: each model's default (0, or its provider's own where its row says so)
        reasoning_effort=settings.get("reasoning_effort"),
        max_tokens=settings.get("max_tokens"),
        model_args=list(settings.get("model_args") or ()),
        models_file=settings.get("models_file"),
    )


def _probes(
    providers: dict[str, Provider], roles: Sequence[str], settings: dict[str, Any], models: ModelArgs
) -> list[Probe]:
    """Each model's probe as a respondent and as a judge (where it can judge and both roles were asked)."""
    config = _config(list(providers), settings)
    probes = []
    for spec, provider in providers.items():
        if "respondent" in roles:
            respondent = respondent_settings(config, provider.capabilities, models)
            provider.check_config(respondent)  # a thinking budget that cannot fit is refused before any call
            probes.append(Probe(provider, respondent, "respondent"))
        if "judge" not in roles:
            continue
        try:
            refuse_as_judge(spec)
        except InputError:
            if len(roles) == 1:
                raise
            continue  # a baseline answers, never judges: only its respondent probe
        plan, _ = plan_judges(
            spec,
            settings.get("judge_prompts") or DEFAULT_JUDGE_PROMPTS,
            temperature=settings.get("judge_temperature"),
            models=models,
        )
        (member,) = plan.members
        provider.check_config(member.settings)
        probes.append(Probe(provider, member.settings, "judge"))
    return probes


async def acheck(
    specs: Sequence[str],
    roles: Sequence[str] = ROLES,
    *,
    run_dir: str | Path | None = None,
    prices: str | Path | None = None,
    max_retries: int = 6,
    max_retry_wait: float = MAX_RETRY_WAIT_S,
    timeout: float | None = None,
    concurrency: int | None = None,
    reask_unscored: bool = False,
    **settings: Any,
) -> list[ProbeResult]:
    """Async form of `check`."""
    unknown = sorted(set(roles) - set(ROLES))
    if unknown or not roles:
        raise InputError(f"--as {', '.join(unknown) or 'nothing'}: expected respondent, judge or both")
    if not specs:
        raise InputError("no model given; name one or more model specs, e.g. cobe models check openai/gpt-5.4")
    table = load_prices(prices)  # a bad --prices file is refused before a provider or a store is opened
    providers: dict[str, Provider] = {}
    try:
        models = command_model_args(_config(specs, settings), list(specs))
        for spec in dict.fromkeys(specs):
            providers[spec] = get_provider(spec, models.capabilities(spec))
        probes = _probes(providers, roles, settings, models)
        path = Path(run_dir) / STORE_NAME if run_dir is not None else cache_store("models-check")
        with directory_lock(path.parent, "models check"):
            store, _ = open_run_store(path.parent, force_new=False)
            try:
                scheduler = Scheduler(
                    max_retries=max_retries, max_retry_wait=max_retry_wait, timeout=timeout, concurrency=concurrency
                )
                caller = Caller(store, scheduler, table, reask=reask if reask_unscored else None)
                return await check_models(caller, probes, probe_problem)
            finally:
                store.close()
    finally:
        await asyncio.gather(*(p.aclose() for p in providers.values()), return_exceptions=True)


check = blocking(
    acheck,
    """One minimal call per model and role with the settings a run would send (`settings`: temperature,
    reasoning_effort, max_tokens, judge_prompts, judge_temperature, model_args, models_file), retried and paced as
    a run's calls are (`max_retries`, `max_retry_wait`, `timeout`, `concurrency`); each probe's result, refusals and
    answers a run could not use (an empty reply, a judge's without T or F) included; `reask_unscored` asks such
    stored answers again.""",
)
