"""--dry-run: the calls a plan would make, minus what the store already answers, and their price.

The store is asked what is finished through the run's own questions (`StoredWork`, `Caller.stored`),
so a dry run counts exactly the calls the run would make, save the re-asks of unparseable verdicts.
"""

from __future__ import annotations

import json

from cobe.judge.checks import CHECKS
from cobe.models.base import Message
from cobe.prompts.render import story_to_judge
from cobe.run.caller import Caller
from cobe.run.config import DryRunEstimate, RunSummary
from cobe.run.cost import PriceTable, estimate_tokens, load_prices
from cobe.run.plan import Item, RunPlan
from cobe.run.resume import StoredWork
from cobe.run.store import STORE_NAME, Store


class _Tally:
    """Counts and prices the calls of a dry run."""

    def __init__(self, prices: PriceTable) -> None:
        self.prices = prices
        self.result = DryRunEstimate()
        self.cost = 0.0
        self.unpriced: set[str] = set()

    def add(self, spec: str, messages: list[Message], tokens_out: int) -> None:
        price = self.prices.price(spec)
        if price is None:
            self.unpriced.add(spec)
        else:
            self.cost += price.cost(sum(estimate_tokens(m.content) for m in messages), tokens_out)

    def finish(self) -> DryRunEstimate:
        self.result.unpriced = sorted(self.unpriced)
        self.result.estimated_cost_usd = None if self.unpriced else round(self.cost, 6)
        return self.result


def _stored_work(store: Store | None, plan: RunPlan) -> StoredWork:
    """What the run dir's run holds for this plan: nothing when it is absent or evaluates other data."""
    row = store.latest_run() if store is not None else None
    if row is None or json.loads(row["config"]).get("data_fingerprint") != plan.data_fingerprint:
        return StoredWork(None, None, None)
    return StoredWork(store, row["id"], plan.judge.ref if plan.judge else None)


def estimate(plan: RunPlan) -> RunSummary:
    """The dry-run answer for a plan: nothing is called and nothing is written."""
    config = plan.config
    tally = _Tally(load_prices(config.prices))
    store_path = plan.run_dir / STORE_NAME
    store = Store(store_path) if store_path.is_file() else None  # never create a run dir on a dry run
    try:
        caller = Caller(store, prices=tally.prices) if store is not None else None
        done = _stored_work(store, plan)
        for item in plan.items:
            text = _respondent(plan, item, done, caller, tally)
            if plan.judge is not None:
                _judge(plan, item, done, caller, tally, text)
    finally:
        if store is not None:
            store.close()
    return RunSummary(
        run_dir=plan.run_dir,
        state="dry-run",
        models=list(config.models),
        judge=plan.judge.spec if plan.judge else None,
        judge_prompts=config.judge_prompts if plan.judge else None,
        dry_run=tally.finish(),
    )


def _respondent(plan: RunPlan, item: Item, done: StoredWork, caller: Caller | None, tally: _Tally) -> str | None:
    """Count the item's respondent call; returns the response text when the store already has it."""
    row = done.response(item)
    if row is not None:
        tally.result.respondent_cached += 1
        return str(row["text"] or "")
    if plan.respondent is None:
        return None  # a re-judge never generates
    messages = list(item.messages)
    answer = caller.stored(plan.providers[item.model], messages, plan.respondent) if caller else None
    if answer is not None:
        tally.result.respondent_cached += 1
        return str(answer["response"] or "")
    tally.result.respondent_calls += 1
    guess_out = min(plan.config.max_tokens, int(estimate_tokens(item.scenario.story) * 1.3))
    tally.add(item.model, messages, guess_out)
    return None


def _judge(plan: RunPlan, item: Item, done: StoredWork, caller: Caller | None, tally: _Tally, text: str | None) -> None:
    """Count the item's judge calls: three checks, less those with a verdict or a stored call."""
    assert plan.judge is not None
    judge = plan.judge
    if text is None and plan.respondent is None:
        return  # judge only: an item without a response is not judged
    row = done.response(item)
    left = done.checks_left(row["id"]) if row is not None else CHECKS
    tally.result.judge_cached += len(CHECKS) - len(left)
    # the judge sees the response, or a stand-in of similar length before one exists
    shown = story_to_judge(item.template, text if text is not None else _stand_in(item))
    provider = plan.providers[judge.spec]
    for check in left:
        messages = judge.prompts.messages(check, item.scenario, shown)
        if text is not None and caller is not None and caller.stored(provider, messages, judge.settings) is not None:
            tally.result.judge_cached += 1
            continue
        tally.result.judge_calls += 1
        tally.add(judge.spec, messages, judge.settings.max_tokens or 5)


def _stand_in(item: Item) -> str:
    return item.scenario.illustrative_answer or item.scenario.story
