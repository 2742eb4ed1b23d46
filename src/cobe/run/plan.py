"""--dry-run: count the calls a command would make, minus what the store holds, and price them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cobe.judge.checks import CHECKS
from cobe.judge.prompt_sets import JudgePromptSet
from cobe.models.base import GenerateConfig, Provider
from cobe.prompts.render import story_to_judge
from cobe.run.cache import messages_list, request_body, request_key, settings_dict
from cobe.run.config import DryRunEstimate, EvalConfig, RunSummary
from cobe.run.cost import estimate_tokens, load_prices
from cobe.run.export import Item
from cobe.run.store import STORE_NAME, Store


def _key(provider: Provider, messages: list, settings: GenerateConfig) -> str:
    return request_key(request_body(provider.spec, provider.model, settings_dict(settings), messages_list(messages)))[1]


def estimate(
    config: EvalConfig,
    run_dir: Path,
    stored: dict[str, Any],
    items: list[Item],
    messages: list,
    providers: dict[str, Provider],
    prompts: JudgePromptSet | None,
) -> RunSummary:
    """The dry-run answer: nothing is called and nothing is written."""
    prices = load_prices(config.prices)
    store_path = run_dir / STORE_NAME
    store = Store(store_path) if store_path.is_file() else None  # never create a run dir on a dry run
    responses: dict = {}
    verdicts: dict = {}
    if store is not None:
        row = store.latest_run()
        same = row is not None and json.loads(row["config"]).get("data_fingerprint") == stored["data_fingerprint"]
        if same:
            responses = store.responses(row["id"])
            if config.judge and prompts is not None:
                verdicts = store.verdicts(row["id"], config.judge, prompts.fingerprint)
    respondent = GenerateConfig(temperature=config.temperature, max_tokens=config.max_tokens)
    judge_settings = prompts.config.generate_config() if prompts else None
    if judge_settings is not None and config.judge_temperature is not None:
        judge_settings = judge_settings.model_copy(update={"temperature": config.judge_temperature})
    plan = DryRunEstimate()
    cost = 0.0
    unpriced: set[str] = set()

    def add(spec: str, tokens_in: int, tokens_out: int) -> None:
        nonlocal cost
        price = prices.price(spec)
        if price is None:
            unpriced.add(spec)
        else:
            cost += price.cost(tokens_in, tokens_out)

    for item, chat in zip(items, messages):
        provider = providers[item.model]
        row = responses.get((item.model, item.scenario.id, item.template.name))
        done = row is not None and row["error"] is None
        if not done and store is not None and provider.cacheable() and store.get_call(_key(provider, chat, respondent)):
            done = True
        if done:
            plan.respondent_cached += 1
        else:
            plan.respondent_calls += 1
            guess_out = min(config.max_tokens, int(estimate_tokens(item.scenario.story) * 1.3))
            add(item.model, sum(estimate_tokens(m.content) for m in chat), guess_out)
        if not config.judge or prompts is None:
            continue
        # the judge sees the stored response, or a stand-in of similar length before one exists
        text = row["text"] if done and row is not None else (item.scenario.illustrative_answer or item.scenario.story)
        shown = story_to_judge(item.template, text or "")
        for check in CHECKS:
            v = verdicts.get((row["id"], check)) if row is not None else None
            if v is not None and v["error"] is None:
                plan.judge_cached += 1
                continue
            judge_chat = prompts.messages(check, item.scenario, shown)
            if (
                store is not None
                and row is not None
                and store.get_call(_key(providers[config.judge], judge_chat, judge_settings))
            ):
                plan.judge_cached += 1
                continue
            plan.judge_calls += 1
            add(config.judge, sum(estimate_tokens(m.content) for m in judge_chat), judge_settings.max_tokens or 5)
    if store is not None:
        store.close()
    plan.unpriced = sorted(unpriced)
    plan.estimated_cost_usd = None if unpriced else round(cost, 6)
    return RunSummary(
        run_dir=run_dir,
        state="dry-run",
        models=list(config.models),
        judge=config.judge,
        judge_prompts=config.judge_prompts if config.judge else None,
        dry_run=plan,
    )
