"""The engine: generate → judge per item, resumable from the store; `evaluate`, `generate`, `judge_run`."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, Protocol

from cobe.core.errors import BudgetExceeded, InputError
from cobe.dataset.schema import Scenario
from cobe.judge.checker import Judge
from cobe.judge.checks import CHECKS
from cobe.judge.prompt_sets import load_judge_prompts
from cobe.models.base import GenerateConfig, Provider
from cobe.models.registry import get_provider
from cobe.prompts.render import respondent_messages, select_templates, story_to_judge
from cobe.prompts.templates import Template
from cobe.run.batch import BatchJudge, BatchRequest, batch_request, check_batch_spec
from cobe.run.caller import Caller
from cobe.run.config import EMBEDDED_MODEL, SMOKE_NOTICE, EvalConfig, RunSummary
from cobe.run.cost import Budget, load_prices
from cobe.run.export import Item, JudgeRef, write_exports
from cobe.run.rundir import data_fingerprint, default_run_dir, find_store, open_run, open_run_store
from cobe.run.scheduler import Scheduler
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


def load_scenarios(config: EvalConfig) -> list[Scenario]:
    """The scenarios of `config.data`, cut to `config.limit`."""
    from cobe.dataset.loaders import load_dataset  # the loader pulls in every file shape; only when needed

    scenarios = list(load_dataset(config.data).scenarios)
    return scenarios[: config.limit] if config.limit else scenarios


def build_items(
    models: list[str], scenarios: list[Scenario], templates: list[Template]
) -> tuple[list[Item], list, dict[str, int]]:
    """Every model × scenario × template whose prompt the scenario can fill, with its messages,
    and per template the number of scenarios skipped because they lack the fields it needs."""
    chats, skipped = [], {}
    for scenario in scenarios:
        for template in templates:
            chat = respondent_messages(scenario, template)
            if chat is None:  # tiers 2-4 need intervention / original_condition
                skipped[template.name] = skipped.get(template.name, 0) + 1
            else:
                chats.append((scenario, template, chat))
    items = [
        Item(model, scenario, template, chat[-1].content) for model in models for scenario, template, chat in chats
    ]
    messages = [chat for _ in models for _, _, chat in chats]
    return items, messages, skipped


def skip_notice(skipped: dict[str, int]) -> list[str]:
    """A line saying which templates skipped how many scenarios, if any did."""
    if not skipped:
        return []
    detail = ", ".join(f"{name}: {count}" for name, count in skipped.items())
    return [
        f"skipped {sum(skipped.values())} scenario × template pairs whose scenario lacks the fields "
        f"the template needs (intervention, original_condition): {detail}"
    ]


def _providers(specs: list[str]) -> dict[str, Provider]:
    """One provider per distinct spec, so a model judging itself shares one connection pool and lane."""
    out: dict[str, Provider] = {}
    for spec in specs:
        if spec not in out:
            out[spec] = get_provider(spec)
    return out


class Session:
    """One command on one run directory: the pipeline, its bookkeeping and its exports."""

    def __init__(
        self,
        *,
        command: str,
        run_dir: Path,
        store: Store,
        run_id: str,
        items: list[Item],
        messages: list,
        providers: dict[str, Provider],
        caller: Caller,
        respondent: GenerateConfig | None,
        judge: Judge | None,
        judge_ref: JudgeRef | None,
        progress: Progress | None,
        notices: list[str],
        extra: dict[str, Any],
        batch_poll: float | None = None,
    ) -> None:
        self.command, self.run_dir, self.store, self.run_id = command, run_dir, store, run_id
        self.items, self.messages, self.providers, self.caller = items, messages, providers, caller
        self.respondent, self.judge, self.judge_ref = respondent, judge, judge_ref
        self.progress = progress or _NoProgress()
        self.notices, self.extra = notices, extra
        self.stopped: BudgetExceeded | None = None
        self.batch: BatchJudge | None = None
        if judge is not None and batch_poll is not None:
            self.batch = BatchJudge(caller, judge.provider, judge.settings, batch_poll, self.progress, notices)

    async def run(self) -> RunSummary:
        """Run the pipeline; on any ending (done, budget, Ctrl-C) record the state and rewrite the exports."""
        start = time.perf_counter()
        session_id = self.store.start_session(self.run_id, self.command)
        state = "interrupted"
        try:
            await self._pipeline()
            state = "stopped-budget" if self.stopped else "complete"
        finally:
            self.responses = self.verdicts = {}  # free the preloaded rows before the exports reread them
            self.messages = []
            wall = time.perf_counter() - start
            stats = self.caller.stats_dict()
            self.store.set_state(self.run_id, state)
            self.store.finish_session(session_id, state, stats | {"wall_s": wall})
            for provider in self.providers.values():  # settings a provider's API no longer takes
                if ignored := sorted(getattr(provider, "ignored_settings", ())):
                    self.notices.append(
                        f"{provider.spec} does not accept {', '.join(ignored)}; sent without it "
                        "(the setting stays in the call's cache key and record)"
                    )
            extra = self.extra | {
                "state": state,
                "command": {"name": self.command, "calls": stats, "wall_s": round(wall, 3)},
                "updated": now(),
            }
            summary = write_exports(
                self.run_dir, self.store, self.run_id, self.items, self.judge_ref, extra, self.notices
            )
            await asyncio.gather(*(p.aclose() for p in self.providers.values()), return_exceptions=True)
            self.store.close()
        if self.stopped:
            raise self.stopped
        return RunSummary(
            run_dir=self.run_dir,
            run_id=self.run_id,
            state=state,
            models=sorted({i.model for i in self.items}),
            judge=self.judge_ref.spec if self.judge_ref else None,
            judge_prompts=self.judge_ref.prompts if self.judge_ref else None,
            summary=summary,
            stats=stats,
            wall_s=wall,
            notices=self.notices,
        )

    async def _pipeline(self) -> None:
        self.responses = self.store.responses(self.run_id)
        self.verdicts = (
            self.store.verdicts(self.run_id, self.judge_ref.spec, self.judge_ref.fingerprint) if self.judge_ref else {}
        )
        done_gen = sum(1 for i in self.items if self._finished_response(i) is not None)
        if self.respondent is not None:
            self.progress.start("generate", len(self.items), done_gen)
        if self.judge is not None:
            done_judge = sum(1 for i in self.items if self._judged(i))
            self.progress.start("judge", len(self.items) if self.respondent is not None else done_gen, done_judge)
        if self.batch is None:
            await self._work()
            return
        # batch judging: generate everything first, answer the judge calls through one batch,
        # then the normal judging pass finds them stored (re-asks and failures go the normal way)
        if self.respondent is not None:
            await self._work(judge=False)
            if self.stopped:
                return
            self.responses = self.store.responses(self.run_id)
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
        for item in self.items:
            row = self._finished_response(item)
            if row is None:
                continue
            story = story_to_judge(item.template, row["text"] or "")
            for check in CHECKS:
                if (v := self.verdicts.get((row["id"], check))) is None or v["error"] is not None:
                    messages = self.judge.prompts.messages(check, item.scenario, story)
                    out.append(batch_request(self.judge.provider, messages, self.judge.settings))
        return out

    async def _work(self, generate: bool = True, judge: bool = True) -> None:
        """Run every item through `_item` with enough workers to keep each provider's lane busy."""
        work = iter(zip(self.items, self.messages))
        lanes = [self.caller.scheduler.limits(p).concurrency for p in self.providers.values()]
        workers = max(4, min(2048, 2 * max(lanes)))  # enough items in flight to keep every lane busy

        async def worker() -> None:
            for item, messages in work:
                if self.stopped:
                    return
                try:
                    await self._item(item, messages, generate, judge)
                except BudgetExceeded as exc:
                    self.stopped = exc
                    return

        await asyncio.gather(*(worker() for _ in range(workers)))

    def _finished_response(self, item: Item) -> Any:
        row = self.responses.get((item.model, item.scenario.id, item.template.name))
        return row if row is not None and row["error"] is None else None

    def _judged(self, item: Item) -> bool:
        row = self._finished_response(item)
        if row is None:
            return False
        return all((v := self.verdicts.get((row["id"], c))) is not None and v["error"] is None for c in CHECKS)

    async def _item(self, item: Item, messages: list, generate: bool = True, judge: bool = True) -> None:
        """Generate (unless stored), then judge the checks not yet stored, as soon as the response exists."""
        row = self._finished_response(item)
        scenario, template = item.scenario, item.template
        if row is not None:
            response_id, text = row["id"], row["text"]
        elif self.respondent is None or not generate:
            return  # judge-only (or the batch's judging pass): nothing to judge here
        else:
            provider = self.providers[item.model]
            record = await self.caller.call(provider, messages, self.respondent, role="respondent", scenario=scenario)
            response_id = self.store.put_response(
                {
                    "run_id": self.run_id,
                    "model": item.model,
                    "scenario_id": scenario.id,
                    "template": template.name,
                    "call_key": record.key,
                    "prompt": item.prompt,
                    "text": record.text,
                    "error": record.error,
                    "input_tokens": record.input_tokens,
                    "output_tokens": record.output_tokens,
                    "cost_usd": record.cost_usd,
                    "created": now(),
                }
            )
            self.progress.advance("generate", error=record.error is not None)
            if record.error is not None:
                if self.judge is not None:
                    self.progress.advance("judge", error=True)
                return
            text = record.text
        if self.judge is None or not judge:
            return
        todo = tuple(c for c in CHECKS if (v := self.verdicts.get((response_id, c))) is None or v["error"] is not None)
        if not todo:
            return
        results = await self.judge.checks(scenario, story_to_judge(template, text or ""), todo)
        ref, settings, stamp = self.judge_ref, self.judge.settings_json(), now()
        self.store.put_verdicts(
            [
                {
                    "run_id": self.run_id,
                    "response_id": response_id,
                    "judge": ref.spec,
                    "prompt_set": ref.prompts,
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
        self.progress.advance("judge", error=any(r.verdict is None for r in results.values()))


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


def _check_prices(config: EvalConfig, specs: list[str]) -> None:
    """With --max-cost every spec needs a price, or the budget would be a guess."""
    if config.max_cost is None:
        return
    table = load_prices(config.prices)
    unknown = [s for s in specs if table.price(s) is None]
    if unknown:
        raise InputError(f"--max-cost: no price known for {', '.join(unknown)}; add it to a --prices FILE")


def _notices(specs: list[str]) -> list[str]:
    return [SMOKE_NOTICE] if EMBEDDED_MODEL in specs else []


def _session(config: EvalConfig, command: str, with_judge: bool, progress: Progress | None) -> Session | RunSummary:
    """Resolve data, templates, providers and the run dir; a dry run returns its estimate here."""
    if not config.models:
        raise InputError("no model given; pass --model SPEC (repeatable), e.g. --model openai/gpt-5.4")
    if with_judge and not config.judge:
        raise InputError("no judge given; pass --judge SPEC, or use `cobe generate` to generate only")
    if with_judge and config.judge and config.judge_batch:
        check_batch_spec(config.judge)
    scenarios = load_scenarios(config)
    if not scenarios:
        raise InputError(f"{config.data}: no scenarios to evaluate")
    templates = select_templates(config.templates, config.tier)
    prompts = load_judge_prompts(config.judge_prompts) if with_judge else None
    specs = [*config.models, *([config.judge] if with_judge and config.judge else [])]
    _check_prices(config, specs)
    items, messages, skipped = build_items(config.models, scenarios, templates)
    if not items:
        raise InputError("no scenario can fill the chosen templates (tiers 2-4 need intervention fields)")
    run_dir = Path(config.run_dir) if config.run_dir else default_run_dir(config)
    docs = [s.model_dump_json() for s in scenarios]
    stored = config.stored() | {
        "data_fingerprint": data_fingerprint(docs),
        "template_names": [t.name for t in templates],
    }
    if config.dry_run:
        from cobe.run.plan import estimate  # only dry runs need the planner

        providers = _providers(specs)
        return estimate(config, run_dir, stored, items, messages, providers, prompts)
    providers = _providers(specs)
    store, set_aside = open_run_store(run_dir, config.force_new)
    try:
        run_id, _ = open_run(store, config, stored)
        store.put_scenarios(run_id, [(s.id, d) for s, d in zip(scenarios, docs)])
    except BaseException:
        store.close()
        raise
    caller = _caller(store, config)
    judge = judge_ref = None
    if with_judge and prompts is not None and config.judge:
        judge = Judge(caller, providers[config.judge], prompts, config.judge_temperature)
        judge_ref = JudgeRef(config.judge, prompts.name, prompts.fingerprint)
        store.set_judge(run_id, judge_ref.spec, judge_ref.prompts, judge_ref.fingerprint)
    else:
        judge_ref = _stored_judge(store)
    respondent = GenerateConfig(temperature=config.temperature, max_tokens=config.max_tokens)
    extra = {
        "data": config.data,
        "templates": [t.name for t in templates],
        "skipped": skipped,
        "respondent_settings": respondent.model_dump(mode="json"),
    }
    return Session(
        command=command,
        run_dir=run_dir,
        store=store,
        run_id=run_id,
        items=items,
        messages=messages,
        providers=providers,
        caller=caller,
        respondent=respondent,
        judge=judge,
        judge_ref=judge_ref,
        progress=progress,
        notices=_notices(specs) + skip_notice(skipped) + set_aside,
        extra=extra,
        batch_poll=config.batch_poll if config.judge_batch else None,
    )


def _stored_judge(store: Store) -> JudgeRef | None:
    row = store.latest_run()
    if row is None or not row["judge"]:
        return None
    return JudgeRef(row["judge"], row["judge_prompts"], row["judge_fingerprint"])


async def aevaluate(
    config: EvalConfig, progress: Progress | None = None, *, command: str = "eval", with_judge: bool = True
) -> RunSummary:
    """Async form of `evaluate` (and of `generate` with `with_judge=False`)."""
    session = _session(config, command, with_judge, progress)
    if isinstance(session, RunSummary):
        return session
    return await session.run()


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
        row = store.latest_run()
        if row is None:
            raise InputError(f"{run_dir}: the store holds no run")
        stored = json.loads(row["config"])
        config = EvalConfig(
            **{k: v for k, v in options.items() if v is not None},
            judge=judge,
            judge_prompts=judge_prompts,
            models=stored["models"],
            data=stored["data"],
        )
        if config.judge_batch:
            check_batch_spec(judge)
        _check_prices(config, [judge])
        prompts = load_judge_prompts(judge_prompts)
        providers = _providers([judge])
        scenarios = [Scenario.model_validate_json(doc) for doc in store.scenarios(row["id"])]
        templates = select_templates(stored["template_names"])
        items, messages, skipped = build_items(stored["models"], scenarios, templates)
        caller = _caller(store, config)
        judge_ = Judge(caller, providers[judge], prompts, config.judge_temperature)
        ref = JudgeRef(judge, prompts.name, prompts.fingerprint)
        store.set_judge(row["id"], ref.spec, ref.prompts, ref.fingerprint)
        store.set_state(row["id"], "running")
    except BaseException:
        store.close()
        raise
    extra = {"data": stored["data"], "templates": stored["template_names"], "skipped": skipped}
    session = Session(
        command="judge",
        run_dir=run_dir,
        store=store,
        run_id=row["id"],
        items=items,
        messages=messages,
        providers=providers,
        caller=caller,
        respondent=None,
        judge=judge_,
        judge_ref=ref,
        progress=progress,
        notices=_notices([*stored["models"], judge]) + skip_notice(skipped),
        extra=extra,
        batch_poll=config.batch_poll if config.judge_batch else None,
    )
    return await session.run()


def judge_run(
    run_dir: str | Path, judge: str, judge_prompts: str = "default", *, progress: Progress | None = None, **options: Any
) -> RunSummary:
    """Judge a run's stored responses with `judge` (no respondent call); verdicts sit beside earlier judges'."""
    return asyncio.run(ajudge_run(run_dir, judge, judge_prompts, progress=progress, **options))
