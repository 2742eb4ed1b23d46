"""The engine: a plan's items through generate → judge, resumable from the store; `evaluate`, `generate`, `judge_run`."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, Protocol

from cobe.core.errors import BudgetExceeded
from cobe.dataset.schema import Scenario
from cobe.judge.checker import CheckResult, Judge
from cobe.models.base import CallRecord
from cobe.prompts.render import story_to_judge
from cobe.run.batch import BatchJudge, BatchRequest, batch_request
from cobe.run.caller import Caller
from cobe.run.config import EvalConfig, RunSummary
from cobe.run.cost import Budget, load_prices
from cobe.run.export import write_exports
from cobe.run.plan import Item, JudgeRef, RunPlan, plan_rejudge, plan_run
from cobe.run.resume import StoredWork
from cobe.run.rundir import find_store, open_run, open_run_store
from cobe.run.scheduler import Scheduler
from cobe.run.selftest import check_pool, run_self_test
from cobe.run.store import Store, now


class Progress(Protocol):
    """What the engine reports while it works; the CLI draws it, the API may ignore it."""

    def start(self, stage: str, total: int, done: int) -> None:
        """A stage (generate / judge) has `total` items, `done` of them already in the store."""

    def advance(self, stage: str, error: bool = False) -> None:
        """One more item of a stage finished (with an error or unscored check when `error`)."""


class _NoProgress:
    def start(self, stage: str, total: int, done: int) -> None:
        pass

    def advance(self, stage: str, error: bool = False) -> None:
        pass


class Session:
    """One command carrying out its plan on one run: the pipeline, its bookkeeping and its exports."""

    def __init__(
        self, plan: RunPlan, store: Store, run_id: str, caller: Caller, progress: Progress | None = None
    ) -> None:
        self.plan, self.store, self.run_id, self.caller = plan, store, run_id, caller
        self.progress: Progress = progress or _NoProgress()
        self.notices = list(plan.notices)
        self.stopped: BudgetExceeded | None = None
        self.judge: Judge | None = None
        self.batch: BatchJudge | None = None
        if (judge := plan.judge) is not None:
            provider = plan.providers[judge.spec]
            self.judge = Judge(caller, provider, judge.prompts, judge.settings)
            if judge.batch_poll_s is not None:
                self.batch = BatchJudge(
                    caller, provider, judge.settings, judge.batch_poll_s, self.progress, self.notices
                )
        # the verdicts the exports show: this command's judge, else the one the run last used
        self.shown_judge = judge.ref if judge else _stored_judge(store)
        self.done = StoredWork(None, None, None)
        self.check_pool: list[Scenario] = []  # --judge-check: the scenarios the self-test draws from
        self.judge_check: dict[str, Any] | None = None

    async def run(self) -> RunSummary:
        """Run the pipeline; on any ending (done, budget, Ctrl-C) record the state and rewrite the exports."""
        start = time.perf_counter()
        session_id = self.store.start_session(self.run_id, self.plan.command)
        state = "interrupted"
        try:
            await self._judge_check()
            await self._pipeline()
            state = "stopped-budget" if self.stopped else "complete"
        finally:
            self.done.forget()  # free the preloaded rows before the exports reread them
            wall = time.perf_counter() - start
            stats = self.caller.stats_dict()
            self.store.set_state(self.run_id, state)
            self.store.finish_session(session_id, state, stats | {"wall_s": wall})
            self._note_ignored_settings()
            fields = self.plan.summary_fields() | {
                "state": state,
                "command": {"name": self.plan.command, "calls": stats, "wall_s": round(wall, 3)},
                "updated": now(),
            }
            if self.judge_check is not None:
                fields["judge_check"] = self.judge_check
            summary = write_exports(
                self.plan.run_dir, self.store, self.run_id, self.plan.items, self.shown_judge, fields, self.notices
            )
            await asyncio.gather(*(p.aclose() for p in self.plan.providers.values()), return_exceptions=True)
            self.store.close()
        if self.stopped:
            raise self.stopped
        return RunSummary(
            run_dir=self.plan.run_dir,
            run_id=self.run_id,
            state=state,
            models=sorted({i.model for i in self.plan.items}),
            judge=self.shown_judge.spec if self.shown_judge else None,
            judge_prompts=self.shown_judge.prompt_set if self.shown_judge else None,
            summary=summary,
            stats=stats,
            wall_s=wall,
            notices=self.notices,
        )

    async def _judge_check(self) -> None:
        """--judge-check N: the judge's self-test first, through a caller of its own on the run's store."""
        judge, n = self.plan.judge, self.plan.config.judge_check
        if judge is None or not n or not self.check_pool:
            return
        caller = Caller(self.store, self.caller.scheduler, self.caller.prices, self.caller.budget)
        provider = self.plan.providers[judge.spec]
        result = await run_self_test(
            caller, provider, judge.prompts, judge.settings, self.check_pool, data=self.plan.config.data, n=n
        )
        self.judge_check = result.model_dump(mode="json")

    def _note_ignored_settings(self) -> None:
        for provider in self.plan.providers.values():  # settings a provider's API no longer takes
            if ignored := sorted(getattr(provider, "ignored_settings", ())):
                self.notices.append(
                    f"{provider.spec} does not accept {', '.join(ignored)}; sent without it "
                    "(the setting stays in the call's cache key and record)"
                )

    async def _pipeline(self) -> None:
        plan = self.plan
        self.done = StoredWork(self.store, self.run_id, plan.judge.ref if plan.judge else None)
        generated = sum(1 for i in plan.items if self.done.response(i) is not None)
        if plan.respondent is not None:
            self.progress.start("generate", len(plan.items), generated)
        if plan.judge is not None:
            judged = sum(1 for i in plan.items if self.done.judged(i))
            self.progress.start("judge", len(plan.items) if plan.respondent is not None else generated, judged)
        if self.batch is None:
            await self._work()
            return
        # batch judging: generate everything first, answer the judge calls through one batch,
        # then the normal judging pass finds them stored (re-asks and failures go the normal way)
        if plan.respondent is not None:
            await self._work(judge=False)
            if self.stopped:
                return
            self.done.reload_responses()
        try:
            await self.batch.run(self._batch_requests())
        except BudgetExceeded as exc:
            self.stopped = exc
            return
        await self._work(generate=False)

    def _batch_requests(self) -> list[BatchRequest]:
        """The first ask of every judge check not yet stored, for items whose response exists."""
        assert self.judge is not None
        out = []
        for item in self.plan.items:
            response_row = self.done.response(item)
            if response_row is None:
                continue
            shown = story_to_judge(item.template, response_row["text"] or "")
            for check in self.done.checks_left(response_row["id"]):
                messages = self.judge.prompts.messages(check, item.scenario, shown)
                out.append(batch_request(self.judge.provider, messages, self.judge.settings))
        return out

    async def _work(self, generate: bool = True, judge: bool = True) -> None:
        """Run every item through `_item` with enough workers to keep each provider's lane busy."""
        work = iter(self.plan.items)
        lanes = [self.caller.scheduler.limits(p).concurrency for p in self.plan.providers.values()]
        workers = max(4, min(2048, 2 * max(lanes)))  # enough items in flight to keep every lane busy

        async def worker() -> None:
            for item in work:
                if self.stopped:
                    return
                try:
                    await self._item(item, generate, judge)
                except BudgetExceeded as exc:
                    self.stopped = exc
                    return

        await asyncio.gather(*(worker() for _ in range(workers)))

    async def _item(self, item: Item, generate: bool = True, judge: bool = True) -> None:
        """Generate (unless stored), then judge the checks not yet stored, as soon as the response exists."""
        response_row = self.done.response(item)
        if response_row is not None:
            response_id, text = int(response_row["id"]), response_row["text"]
        elif self.plan.respondent is None or not generate:
            return  # judge-only (or the batch's judging pass): nothing to judge here
        else:
            call = await self.caller.call(
                self.plan.providers[item.model],
                list(item.messages),
                self.plan.respondent,
                role="respondent",
                scenario=item.scenario,
            )
            response_id = self._store_response(item, call)
            self.progress.advance("generate", error=call.error is not None)
            if call.error is not None:
                if self.judge is not None:
                    self.progress.advance("judge", error=True)
                return
            text = call.text
        if self.judge is None or not judge:
            return
        checks = self.done.checks_left(response_id)
        if not checks:
            return
        results = await self.judge.checks(item.scenario, story_to_judge(item.template, text or ""), checks)
        self._store_verdicts(response_id, results)
        self.progress.advance("judge", error=any(r.verdict is None for r in results.values()))

    def _store_response(self, item: Item, call: CallRecord) -> int:
        """Commit the respondent's answer (or its error) for an item; returns the response id."""
        return self.store.put_response(
            {
                "run_id": self.run_id,
                "model": item.model,
                "scenario_id": item.scenario.id,
                "template": item.template.name,
                "call_key": call.key,
                "prompt": item.prompt,
                "text": call.text,
                "error": call.error,
                "input_tokens": call.input_tokens,
                "output_tokens": call.output_tokens,
                "cost_usd": call.cost_usd,
                "created": now(),
            }
        )

    def _store_verdicts(self, response_id: int, results: dict[str, CheckResult]) -> None:
        """Commit the checks of one response in one transaction."""
        assert self.judge is not None and self.plan.judge is not None
        ref, settings, stamp = self.plan.judge.ref, self.judge.settings_json(), now()
        self.store.put_verdicts(
            [
                {
                    "run_id": self.run_id,
                    "response_id": response_id,
                    "judge": ref.spec,
                    "prompt_set": ref.prompt_set,
                    "prompt_fingerprint": ref.fingerprint,
                    "check_name": check,
                    "verdict": r.verdict,
                    "raw": r.raw,
                    "p_true": r.p_true,
                    "unscored_reason": r.unscored,
                    "error": r.error,
                    "judge_settings": settings,
                    "call_key": r.call_key,
                    "input_tokens": r.input_tokens,
                    "output_tokens": r.output_tokens,
                    "cost_usd": r.cost_usd,
                    "created": stamp,
                }
                for check, r in results.items()
            ]
        )


def _caller(store: Store, config: EvalConfig) -> Caller:
    scheduler = Scheduler(
        concurrency=config.concurrency,
        rpm=config.rpm,
        tpm=config.tpm,
        timeout=config.timeout,
        max_retries=config.max_retries,
        backoff=config.retry_backoff,
    )
    return Caller(store, scheduler, load_prices(config.prices), Budget(config.max_cost))


def _stored_judge(store: Store) -> JudgeRef | None:
    row = store.latest_run()
    if row is None or not row["judge"]:
        return None
    return JudgeRef(row["judge"], row["judge_prompts"], row["judge_fingerprint"])


def open_session(plan: RunPlan, store: Store, progress: Progress | None = None) -> Session:
    """The session of a plan on its store: the run opened (or resumed), its scenarios and judge recorded.

    The store is closed if anything here fails; once the session exists, `Session.run` closes it.
    """
    try:
        if plan.run_id is None:
            run_id, _ = open_run(store, plan.config, plan.stored_config)
            store.put_scenarios(run_id, [(s.id, doc) for s, doc in zip(plan.scenarios, plan.scenario_json)])
        else:
            run_id = plan.run_id
        caller = _caller(store, plan.config)
        if plan.judge is not None:
            ref = plan.judge.ref
            store.set_judge(run_id, ref.spec, ref.prompt_set, ref.fingerprint)
        if plan.run_id is not None:
            store.set_state(run_id, "running")
        return Session(plan, store, run_id, caller, progress)
    except BaseException:
        store.close()
        raise


async def run_plan(plan: RunPlan, progress: Progress | None = None) -> RunSummary:
    """Carry out a plan: its estimate for a dry run, else the session on its run directory's store."""
    if plan.config.dry_run:
        from cobe.run.estimate import estimate  # only dry runs need the estimator

        return estimate(plan)
    pool = check_pool(plan.config.data, plan.config.judge_check) if plan.judge is not None else []
    store, set_aside = open_run_store(plan.run_dir, plan.config.force_new)
    session = open_session(plan, store, progress)
    session.notices.extend(set_aside)
    session.check_pool = pool
    return await session.run()


async def aevaluate(
    config: EvalConfig, progress: Progress | None = None, *, command: str = "eval", with_judge: bool = True
) -> RunSummary:
    """Async form of `evaluate` (and of `generate` with `with_judge=False`)."""
    return await run_plan(plan_run(config, command, with_judge=with_judge), progress)


def evaluate(config: EvalConfig, progress: Progress | None = None) -> RunSummary:
    """Generate every response and judge it; re-running the same config resumes and redoes nothing finished."""
    return asyncio.run(aevaluate(config, progress))


def generate(config: EvalConfig, progress: Progress | None = None) -> RunSummary:
    """Generate responses only; judge them later with `judge_run`."""
    return asyncio.run(aevaluate(config, progress, command="generate", with_judge=False))


async def ajudge_run(
    run_dir: str | Path, judge: str, judge_prompts: str = "default", *, progress: Progress | None = None, **options: Any
) -> RunSummary:
    """Async form of `judge_run`."""
    run_dir = Path(run_dir)
    store = Store(find_store(run_dir))
    try:
        plan = plan_rejudge(store, run_dir, judge, judge_prompts, options)
    except BaseException:
        store.close()
        raise
    return await open_session(plan, store, progress).run()


def judge_run(
    run_dir: str | Path, judge: str, judge_prompts: str = "default", *, progress: Progress | None = None, **options: Any
) -> RunSummary:
    """Judge a run's stored responses with `judge` (no respondent call); verdicts sit beside earlier judges'."""
    return asyncio.run(ajudge_run(run_dir, judge, judge_prompts, progress=progress, **options))
