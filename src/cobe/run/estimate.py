"""--dry-run: the calls a plan would make, minus what the store already answers, and their price.

The store is asked what is finished through the run's own questions (`StoredWork`, `Caller.stored`),
so a dry run counts exactly the calls the run would make, save the re-asks of unparseable verdicts.
"""

from __future__ import annotations

from cobe.calls.caller import Caller
from cobe.calls.cost import PriceTable, estimate_tokens, load_prices
from cobe.calls.pricing import CallPricer, verdict_tokens
from cobe.core.results import CHECKS
from cobe.judge.judge_plan import JudgePlan
from cobe.models.base import GenerateConfig, Message, Provider
from cobe.models.reasoning import THINKING_BUDGET
from cobe.prompts.render import judged_text
from cobe.run.config import DryRunEstimate, RunSummary
from cobe.run.items import Item
from cobe.run.plan import RunPlan
from cobe.run.resume import StoredWork, shown
from cobe.store.damage import run_config
from cobe.store.rows import CallRow
from cobe.store.store import STORE_NAME, Store


class _DryRun:
    """Counts and prices the calls a plan would make, given what the store holds."""

    def __init__(self, plan: RunPlan, done: StoredWork, caller: Caller | None, prices: PriceTable) -> None:
        self.plan, self.done, self.caller = plan, done, caller
        self.result = DryRunEstimate()
        self.pricer = CallPricer(prices)

    def count(self) -> DryRunEstimate:
        """Every item's respondent call and judge calls, then the total price."""
        judge = self.plan.judge
        for item in self.plan.items:
            text, unjudged = self._respondent(item)
            if judge is not None:
                self._judge(judge, item, text, unjudged)
        self.result.unpriced = sorted(self.pricer.unpriced)
        self.result.estimated_cost_usd = self.pricer.total()
        self.result.cached_input_tokens = self.pricer.cached_input_tokens
        return self.result

    def _stored(
        self, provider: Provider, messages: list[Message], settings: GenerateConfig, sample: int = 0
    ) -> CallRow | None:
        return self.caller.stored(provider, messages, settings, sample=sample) if self.caller is not None else None

    def _respondent(self, item: Item) -> tuple[str | None, bool]:
        """Count the item's respondent call: (the story a judge would see when the store has the response,
        whether the response is known to be unscored without judging)."""
        row = self.done.response(item)
        if row is not None:
            self.result.respondent_cached += 1
            view = shown(item, row)
            return view.text, view.text is None
        if self.plan.respondent is None:
            return None, False  # a re-judge never generates
        messages = list(item.messages)
        answer = self._stored(
            self.plan.providers[item.model], messages, self.plan.respondents[item.model], item.epoch - 1
        )
        if answer is not None:
            self.result.respondent_cached += 1
            view = judged_text(item.template, str(answer.response or ""), answer.finish_reason)
            return view.text, view.text is None
        self.result.respondent_calls += 1
        self.pricer.add(item.model, messages, self._answer_tokens(item))
        return None, False

    def _answer_tokens(self, item: Item) -> int:
        """Output tokens of one respondent call: about the story's length, plus a level's full thinking budget
        where the model thinks (its provider's default level where none is sent)."""
        settings = self.plan.respondents[item.model]
        tokens = int(estimate_tokens(item.scenario.story) * 1.3)
        caps = self.plan.providers[item.model].capabilities
        if caps.thinks(settings.reasoning_effort):
            level = settings.reasoning_effort or caps.provider_default
            tokens += THINKING_BUDGET.get(level, THINKING_BUDGET["medium"])
        return min(settings.max_tokens or tokens, tokens)

    def _judge(self, judge: JudgePlan, item: Item, text: str | None, unjudged: bool) -> None:
        """Count the item's judge calls: three checks per judge and sample, less those with a verdict or a stored call."""
        if unjudged or (text is None and self.plan.respondent is None):
            return  # never judged (cut off), or judge only with no response yet
        row = self.done.response(item)
        every = [(m, check, k) for m in range(len(judge.members)) for check in CHECKS for k in range(judge.samples)]
        left = self.done.asks_left(row.id) if row is not None else every
        self.result.judge_cached += len(every) - len(left)
        # the judge sees the response, or a stand-in of similar length before one exists
        story = text if text is not None else _stand_in(item)
        for member, check, sample in left:
            spec, prompts, settings = judge.members[member].spec, judge.prompts, judge.members[member].settings
            messages = prompts.messages(check, item.scenario, story, cache=judge.prompt_cache)
            if text is not None and self._stored(self.plan.providers[spec], messages, settings, sample) is not None:
                self.result.judge_cached += 1
                continue
            self.result.judge_calls += 1
            tokens = verdict_tokens(self.plan.providers[spec].capabilities, settings)
            self.pricer.add(spec, messages, tokens, batch=judge.batch_poll_s is not None)


def _stored_work(store: Store | None, plan: RunPlan) -> StoredWork:
    """What the run dir's run holds for this plan: nothing when it is absent or evaluates other data."""
    row = store.latest_run() if store is not None else None
    if store is None or row is None or run_config(store.path, row).get("data_fingerprint") != plan.data_fingerprint:
        return StoredWork(None, None, None)
    judge = plan.judge
    return StoredWork(store, row.id, judge.ref if judge else None, judge.settings.temperature if judge else None)


def estimate(plan: RunPlan) -> RunSummary:
    """The dry-run answer for a plan: nothing is called and nothing is written."""
    prices = load_prices(plan.config.prices)
    store_path = plan.run_dir / STORE_NAME
    store = Store(store_path) if store_path.is_file() else None  # never create a run dir on a dry run
    try:
        caller = Caller(store, prices=prices) if store is not None else None
        counted = _DryRun(plan, _stored_work(store, plan), caller, prices).count()
    finally:
        if store is not None:
            store.close()
    return RunSummary(
        run_dir=plan.run_dir,
        state="dry-run",
        models=list(plan.config.models),
        judge=plan.judge.spec if plan.judge else None,
        judge_prompts=plan.config.judge_prompts if plan.judge else None,
        dry_run=counted,
        notices=list(plan.notices),  # what the run would say before it starts, the dry run says too
    )


def _stand_in(item: Item) -> str:
    return item.scenario.illustrative_answer or item.scenario.story
