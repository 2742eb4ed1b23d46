"""The engine: a plan's items through generate → judge, resumable from the store; `evaluate`, `generate`, `judge_run`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cobe.calls.caller import Caller
from cobe.calls.cost import Budget, load_prices
from cobe.calls.executor import cluster, parse_executor
from cobe.calls.preflight import run_preflight
from cobe.calls.scheduler import Scheduler
from cobe.core.errors import DiskFull, InputError, RunStopped
from cobe.core.lock import directory_lock
from cobe.core.progress import NoProgress, Progress
from cobe.core.reserve import disk_reserve, is_disk_full, out_of_space
from cobe.dataset.schema import Scenario
from cobe.judge.checker import CheckResult
from cobe.judge.judge_plan import JudgeRef
from cobe.judge.panel import Ask, JudgePanel
from cobe.judge.usable import probe_problem, reask
from cobe.models.base import CallRecord
from cobe.prompts.render import judged_text
from cobe.run.config import EvalConfig, RunSummary
from cobe.run.items import Item
from cobe.run.plan import RunPlan, plan_run
from cobe.run.resume import StoredWork, shown
from cobe.run.rundir import open_run
from cobe.run.verdict_sets import describe_judge, make_current, replaced_notice, stored_judge
from cobe.store.directory import open_run_store
from cobe.store.store import Store, now


class Session:
    """One command carrying out its plan on one run: the pipeline, its bookkeeping and its exports."""

    def __init__(
        self,
        plan: RunPlan,
        store: Store,
        run_id: str,
        caller: Caller,
        progress: Progress | None = None,
        *,
        notices: Sequence[str] = (),
        check_pool: Sequence[Scenario] = (),
        replaced: JudgeRef | None = None,
    ) -> None:
        self.plan, self.store, self.run_id, self.caller = plan, store, run_id, caller
        self.progress: Progress = progress or NoProgress()
        self.notices = [*plan.notices, *notices]  # the plan's, then the set-up's (a store set aside)
        self.stopped: RunStopped | None = None  # a budget or authentication stop
        judge = plan.judge
        # one judge is a panel of one; the plan's providers are lent, and closed with the others in `run`
        self.panel = JudgePanel.from_plan(judge, caller, plan.providers) if judge is not None else None
        # the verdicts the exports show: this command's judge, else the one the run last used
        self.shown_judge = judge.ref if judge and judge.show else stored_judge(store)
        self.done = StoredWork(None, None, None)
        self.judged_at_start: set[tuple[str, str, str, int]] = set()  # items the judge progress counted as done
        self.check_pool = check_pool  # --judge-check: the scenarios the self-test draws from
        self.judge_check: dict[str, Any] | None = None
        self.preflight_stats: dict[str, Any] = {}  # {"preflight": counts} once the preflight asked something
        self.store_failures: dict[str, int] = {}  # error → the run's failed calls that ended with it
        self.replaced = replaced  # the verdict set this command's judge took the place of

    async def run(self) -> RunSummary:
        """Run the pipeline; on any ending (done, budget, Ctrl-C) record the state and rewrite the exports."""
        start = time.perf_counter()
        unfinished = 0
        session_id = self.store.start_session(self.run_id, self.plan.command)
        state = "interrupted"
        try:
            try:
                # the scheduler carries the stages: locally it just awaits them; the Ray executor's sends
                # the calls they park out in waves meanwhile
                # a finished call is committed with its response or verdicts, or at the end of the loop's
                # turn: one commit for the calls that finished together, not one each
                with self.store.calls_by_turn():
                    await self.caller.scheduler.carry(self._stages())
            except RunStopped as exc:  # a full disk met while a batch of answers was committed
                self.stopped = self.stopped or exc
            unfinished = self._unfinished()
            if unfinished:  # read while the store is open: the end-of-run line names the most common one
                judges = [(m.spec, m.prompts.fingerprint) for m in self.plan.judge.members] if self.plan.judge else []
                self.store_failures = self.store.failures(self.run_id, judges)
            state = self.stopped.state if self.stopped else "incomplete" if unfinished else "complete"
        finally:
            wall = time.perf_counter() - start
            stats = self.caller.stats_dict() | self.preflight_stats
            try:
                summary = self._close_out(session_id, state, stats, wall)
                state = str(summary.get("state", state))  # a finished run may have measured nothing of a model
            finally:
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
            items=len(self.plan.items),
            unfinished=unfinished,
            failures=self.store_failures if unfinished else {},
            notices=[*self.notices, *self.caller.notices, *self._replaced()],
            replaced=describe_judge(self.replaced) if self.replaced else None,
        )

    def _replaced(self) -> list[str]:
        """The line naming the verdict set this command's judge replaced (said on screen, not in report.md)."""
        if self.replaced is None or self.shown_judge is None:
            return []
        return [replaced_notice(self.replaced, self.shown_judge, self.plan.run_dir)]

    async def _stages(self) -> None:
        """The preflight, the judge self-test (--judge-check), then the pipeline."""
        try:
            await self._preflight()
            await self._judge_check()
        except RunStopped as exc:  # a refused setting, --max-cost reached, or a provider refuses the key
            self.stopped = exc
        if not self.stopped:
            await self._pipeline()

    def _close_out(self, session_id: int, state: str, stats: dict[str, Any], wall: float) -> dict[str, Any]:
        """Record how the command ended and rewrite the exports; returns summary.json's content.

        On a full disk this is what the store's reserve is for; what it cannot hold is left for the next
        command (the state then reads `interrupted`, the exports stay as they were) and the run stops as
        DiskFull, never with the error of whichever write failed first.
        """
        try:
            self.store.set_state(self.run_id, state)
            self.store.finish_session(session_id, state, stats | {"wall_s": wall})
        except DiskFull as exc:
            self.stopped = self.stopped or exc
        self._note_ignored_settings()
        fields = self.plan.summary_fields() | {
            "state": state,
            "command": {"name": self.plan.command, "calls": stats, "wall_s": round(wall, 3)},
            "updated": now(),
        }
        if self.judge_check is not None:
            fields["judge_check"] = self.judge_check
        # the exports' summaries pull in pandas: imported when the run ends, not before its first call
        from cobe.run.export import write_exports

        try:
            return write_exports(
                self.plan.run_dir, self.store, self.run_id, self.plan.exported, self.shown_judge, fields, self.notices
            )
        except (DiskFull, OSError) as exc:
            if not isinstance(exc, DiskFull) and not is_disk_full(exc):
                raise
            self.stopped = self.stopped or out_of_space(self.plan.run_dir)
            self.notices.append("the exports were not rewritten (no space left); the next command writes them")
            return fields

    async def _preflight(self) -> None:
        """Unless --no-preflight, the plan's probes before any item (`cobe.calls.preflight.run_preflight`)."""
        for provider in self.plan.providers.values():  # a model now behind another server is said even when
            self.caller.note_endpoint(provider)  # every item of the run is answered already
        if not self.plan.config.preflight:
            return
        probes = self.plan.probes()
        if probes:  # a stage of its own: a server that holds the probes still shows the run alive
            self.progress.start("preflight", len(probes), 0)

        def done(failed: bool) -> None:
            self.progress.advance("preflight", error=failed)

        await run_preflight(self.caller, probes, self.preflight_stats, done, probe_problem)

    async def _judge_check(self) -> None:
        """--judge-check N: the self-test of the run's judge (a panel: its majority, as the run shows it)
        first, through a caller of its own on the run's store, so the run's judge counts leave it out."""
        judge, n = self.plan.judge, self.plan.config.judge_check
        if judge is None or not n or not self.check_pool:
            return
        from cobe.judge.selftest import run_self_test  # its probes, only with --judge-check

        caller = self.caller.sibling()
        result = await run_self_test(
            caller, judge, self.plan.providers, self.check_pool, data=self.plan.config.data, n=n, progress=self.progress
        )
        self.judge_check = result.model_dump(mode="json")

    def _note_ignored_settings(self) -> None:
        for provider in self.plan.providers.values():  # settings the model's row says it refuses: never sent
            if refused := sorted(provider.refused_settings):
                self.notices.append(
                    f"{provider.spec} does not take {'; '.join(refused)}: not sent (each call's record in the "
                    "store says what was sent; the setting stays in its cache key)"
                )

    async def _pipeline(self) -> None:
        plan = self.plan
        judge = plan.judge
        self.done = StoredWork(
            self.store,
            self.run_id,
            judge.ref if judge else None,
            judge.settings.temperature if judge else None,
            reask=plan.config.reask_unscored,
        )
        generated = sum(1 for i in plan.items if self.done.response(i) is not None)
        if plan.respondent is not None:
            self.progress.start("generate", len(plan.items), generated)
        if plan.judge is not None:
            self.judged_at_start = {i.work_key for i in plan.items if self.done.judged(i)}
            total = len(plan.items) if plan.respondent is not None else generated
            self.progress.start("judge", total, len(self.judged_at_start))
        if self.panel is None or not self.panel.batches:
            await self._work()
            return
        # batch judging: generate everything first, answer the judge calls through one batch per judge,
        # then the normal judging pass finds them stored (re-asks and failures go the normal way)
        if plan.respondent is not None:
            await self._work(judge=False)
            if self.stopped:
                return
        try:
            await self.panel.prefetch(self._batch_work(), self.progress, self.notices)
        except RunStopped as exc:
            self.stopped = exc
            return
        await self._work(generate=False)

    def _unfinished(self) -> int:
        """Items whose response, or (with a judge) one of whose checks, is not in the store without error."""
        judge = self.plan.judge
        left = StoredWork(
            self.store, self.run_id, judge.ref if judge else None, judge.settings.temperature if judge else None
        )
        if judge is None:
            return sum(1 for item in self.plan.items if left.response(item) is None)
        return sum(1 for item in self.plan.items if not left.judged(item))

    def _batch_work(self) -> Iterator[tuple[Scenario, str, list[Ask]]]:
        """(scenario, what the judge is shown, the questions not yet stored) of every item whose response exists."""
        for item in self.plan.items:
            response_row = self.done.response(item)
            if response_row is None:
                continue
            story = shown(item, response_row).text
            if story is None:
                continue  # unscored without a judge call (cut off by the token limit)
            yield item.scenario, story, self.done.asks_left(response_row.id)

    async def _work(self, generate: bool = True, judge: bool = True) -> None:
        """Run every item through `_item` with enough workers to keep each provider's lane busy."""
        work = iter(self.plan.items)
        lanes = [self.caller.scheduler.limits(p).concurrency for p in self.plan.providers.values()]
        # enough items in flight to keep every lane busy (under the Ray executor: every item, one wave per stage)
        workers = max(4, min(self.caller.scheduler.MAX_ITEMS_IN_FLIGHT, 2 * max(lanes), len(self.plan.items)))

        failed: list[BaseException] = []

        async def worker() -> None:
            for item in work:
                if self.stopped or failed:
                    return
                try:
                    await self._item(item, generate, judge)
                except RunStopped as exc:  # --max-cost reached, the provider refuses the key, a full disk
                    self.stopped = self.stopped or exc
                    return
                except Exception as exc:  # the others stop taking items, and finish (and store) the calls they have
                    failed.append(exc)
                    return

        await asyncio.gather(*(worker() for _ in range(workers)))
        if failed:
            raise failed[0]

    async def _item(self, item: Item, generate: bool = True, judge: bool = True) -> None:
        """Generate (unless stored), then judge the checks not yet stored, as soon as the response exists."""
        response_row = self.done.response(item)
        if response_row is not None:
            response_id, text, finish = response_row.id, response_row.text, response_row.finish_reason
        elif self.plan.respondent is None or not generate:
            return  # judge-only (or the batch's judging pass): nothing to judge here
        else:
            call = await self.caller.call(
                self.plan.providers[item.model],
                list(item.messages),
                self.plan.respondents[item.model],
                role="respondent",
                scenario=item.scenario,
                sample=item.epoch - 1,  # a later epoch asks again on purpose: a key of its own, the first's kept
            )
            response_id = self._store_response(item, call)
            self.progress.advance("generate", error=call.error is not None)
            if call.error is not None:
                if self.panel is not None:
                    self.progress.advance("judge", error=True)
                return
            text, finish = call.text, call.finish_reason
        if self.panel is None or not judge:
            return
        story = judged_text(item.template, text or "", finish).text
        if story is None:  # cut off by the token limit: unscored, and no judge call is made
            if item.work_key not in self.judged_at_start:
                self.progress.advance("judge", error=True)
            return
        asks = self.done.asks_left(response_id)
        if not asks:
            return
        results = await self.panel.ask(item.scenario, story, asks)
        self._store_verdicts(response_id, results)
        self.progress.advance("judge", error=any(r.verdict is None for r in results.values()))

    def _store_response(self, item: Item, call: CallRecord) -> int:
        """Commit the respondent's answer (or its error) for an item; returns the response id."""
        return self.store.put_response(
            {
                "run_id": self.run_id,
                "model": item.model,
                "scenario_id": item.scenario_id,
                "template": item.template.name,
                "epoch": item.epoch,
                "call_key": call.key,
                "prompt": item.prompt,
                "text": call.text,
                "error": call.error,
                "finish_reason": call.finish_reason,
                "input_tokens": call.input_tokens,
                "output_tokens": call.output_tokens,
                "cost_usd": call.cost_usd,
                "created": now(),
            }
        )

    def _store_verdicts(self, response_id: int, results: dict[Ask, CheckResult]) -> None:
        """Commit the answers of one response (every judge, check and sample asked) in one transaction."""
        assert self.panel is not None and self.plan.judge is not None
        members, stamp = self.plan.judge.members, now()
        settings = [judge.settings_json() for judge in self.panel.members]
        self.store.put_verdicts(
            [
                {
                    "run_id": self.run_id,
                    "response_id": response_id,
                    "judge": members[member].spec,
                    "prompt_set": members[member].prompts.name,
                    "prompt_fingerprint": members[member].prompts.fingerprint,
                    "check_name": check,
                    "sample": sample,
                    "verdict": r.verdict,
                    "raw": r.raw,
                    "p_true": r.p_true,
                    "unscored_reason": r.unscored,
                    "error": r.error,
                    "judge_settings": settings[member],
                    "call_key": r.call_key,
                    "input_tokens": r.input_tokens,
                    "output_tokens": r.output_tokens,
                    "cost_usd": r.cost_usd,
                    "created": stamp,
                }
                for (member, check, sample), r in results.items()
            ]
        )


def _caller(store: Store, config: EvalConfig, on_event: Callable[[str], None] | None = None, ray: Any = None) -> Caller:
    """The command's call path; with `ray` (the Ray executor's cluster) its calls leave in waves."""
    options: dict[str, Any] = {
        "on_event": on_event,
        "concurrency": config.concurrency,
        "rpm": config.rpm,
        "tpm": config.tpm,
        "timeout": config.timeout,
        "max_retries": config.max_retries,
        "backoff": config.retry_backoff,
        "max_retry_wait": config.max_retry_wait,
    }
    if ray is None:
        scheduler = Scheduler(**options)
    else:
        from cobe.calls.ray_waves import WaveScheduler  # only the Ray executor needs it

        scheduler = WaveScheduler(ray, store, **options)
    again = reask if config.reask_unscored else None  # --reask-unscored: unusable stored answers are asked again
    return Caller(store, scheduler, load_prices(config.prices), Budget(config.max_cost), reask=again)


@dataclass(frozen=True)
class RunSetUp:
    """What a command holds on its run directory while it runs: the store, Ray's cluster where `--executor ray`
    asks for one, and what opening the store had to say (a store set aside by `--force-new`)."""

    store: Store
    ray: Any = None
    notices: Sequence[str] = ()


@contextmanager
def set_up_run(
    run_dir: Path, command: str, executor: str | None, open_store: Callable[[], tuple[Store, list[str]]]
) -> Iterator[RunSetUp]:
    """The one set-up of every command that writes a run (`evaluate`, `generate`, `judge_run`), held for its whole run.

    Ray missing, or no cluster at the address, is refused before the run directory is touched; then the directory's
    lock (one writer per run directory), the room kept for its last writes on a full disk (`cobe.core.reserve`)
    and the store `open_store` opens, given that room. However the command ends, the store is closed, the
    reserve removed and the lock released.
    """
    with cluster(parse_executor(executor)) as ray, directory_lock(run_dir, command), disk_reserve(run_dir) as reserve:
        store, notices = open_store()
        store.reserve = reserve
        try:
            yield RunSetUp(store, ray, notices)
        finally:
            store.close()


def open_session(
    plan: RunPlan, setup: RunSetUp, progress: Progress | None = None, pool: Sequence[Scenario] = ()
) -> Session:
    """The session of a plan on the store `setup` holds: the run opened (or resumed), its scenarios and judge
    recorded; with `setup.ray`, its calls run on that Ray cluster (`cobe.calls.executor.cluster`)."""
    store = setup.store
    if plan.run_id is None:
        run_id, _ = open_run(store, plan.config, plan.stored_config)
        store.put_scenarios(run_id, zip(plan.scenarios.ids, plan.scenario_json()))
    else:
        run_id = plan.run_id
    caller = _caller(store, plan.config, getattr(progress, "event", None), setup.ray)  # -v: retries as they happen
    if plan.respondent is not None:
        # a stored response is reused by (model, scenario, template): if that template's words have
        # changed since, resuming would mix answers to two different prompts in one run
        changed = StoredWork(store, run_id, None).reworded(plan.items)
        if changed is not None:
            raise InputError(
                f"{plan.run_dir}: its stored responses to template {changed.template.name} answered other "
                f"prompt wording (scenario {changed.scenario_id}); use --force-new or another --run-dir"
            )
    # the set shown before stays in the store: `cobe judge RUN --show` makes it current again
    shows = plan.judge is not None and plan.judge.show
    replaced = make_current(store, run_id, plan.judge.ref, plan.part) if plan.judge is not None and shows else None
    if plan.run_id is not None:
        store.set_state(run_id, "running")
    return Session(plan, store, run_id, caller, progress, notices=setup.notices, check_pool=pool, replaced=replaced)


async def run_plan(plan: RunPlan, progress: Progress | None = None) -> RunSummary:
    """Carry out a plan: its estimate for a dry run, else the session on its run directory's store."""
    if plan.config.dry_run:
        from cobe.run.estimate import estimate  # only dry runs need the estimator

        return estimate(plan)
    load_prices(plan.config.prices)  # a bad --prices file is refused before the run directory is touched
    # --judge-check's data is read (and refused if unfit) before the run directory is touched too
    pool: Sequence[Scenario] = []
    if plan.judge is not None and plan.config.judge_check:
        from cobe.judge.selftest import check_pool  # the self-test's probes, imported only with --judge-check

        pool = check_pool(plan.config.data, plan.config.judge_check)
    force_new = plan.config.force_new
    with set_up_run(
        plan.run_dir, plan.command, plan.config.executor, lambda: open_run_store(plan.run_dir, force_new)
    ) as setup:
        return await open_session(plan, setup, progress, pool).run()


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
