"""The judge self-test: judge calls only, on three probes whose right verdicts are known.

The unchanged story must fail the change check, the illustrative rewrite must pass all three checks, and
another core example's illustrative rewrite must fail the preserve check: the judge audit's first three probes
(`cobe.judge.audit_probes`, the same answers `baseline/identity`, `baseline/illustrative` and
`baseline/swapped` give a run), built from the data, never by a respondent call; the judge's calls go
through a `Caller`, so they are cached like any call. The counting and the verdict
in plain words live in `cobe.judge.selftest_result`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cobe.calls.caller import Caller
from cobe.calls.preflight import Probe as Preflight
from cobe.calls.preflight import needs_preflight, run_preflight
from cobe.calls.scheduler import Scheduler
from cobe.core.aio import blocking, settled
from cobe.core.errors import InputError
from cobe.core.files import cache_store
from cobe.core.lock import directory_lock
from cobe.dataset.sample import sample_positions
from cobe.judge.audit_probes import BY_NAME, SELF_TEST, Pool, Probe
from cobe.judge.checker import CheckResult
from cobe.judge.judge_plan import JudgePlan, plan_judges
from cobe.judge.panel import JudgePanel
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS, JudgePromptSet
from cobe.judge.selftest_result import SelfTest, probe_check, self_test_verdict
from cobe.judge.specs import split_specs
from cobe.judge.usable import probe_problem, reask
from cobe.models.base import Provider
from cobe.models.model_args import ModelArgs
from cobe.models.registry import get_provider
from cobe.store.store import STORE_NAME

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

DEFAULT_N = 20


#: the self-test's probes, the judge audit's first three (`cobe.judge.audit_probes`), asked only the checks they
#: must pass or fail
PROBES: tuple[Probe, ...] = tuple(BY_NAME[name] for name in SELF_TEST)


#: the stage the self-test reports its progress under
STAGE = "judge-check"


class StageProgress(Protocol):
    """What the self-test tells of its progress: the part of `cobe.core.progress.Progress` it uses."""

    def start(self, stage: str, total: int, done: int) -> None:
        """A stage of `total` items, `done` of them already done."""

    def advance(self, stage: str, error: bool = False) -> None:
        """One more item done (`error`: without a usable verdict)."""


class ChecksJudge(Protocol):
    """Anything that answers checks of one response: a `Judge`, or a panel of them."""

    async def checks(self, scenario: Scenario, response: str, checks: tuple[str, ...]) -> dict[str, CheckResult]:
        """The verdicts of the given checks."""
        ...


def select_scenarios(scenarios: Sequence[Scenario], n: int, seed: int) -> list[Scenario]:
    """The `n` scenarios to probe, drawn with `seed` among those with an illustrative answer (the ones swapped
    answers come from too), in one pass that parses each scenario once and keeps only the drawn ones."""
    if n < 1:
        raise InputError(f"--n {n}: expected at least one scenario")
    eligible: list[int] = []
    keys: list[tuple[int, int]] = []
    for position, scenario in enumerate(scenarios):
        if scenario.illustrative_answer and scenario.illustrative_answer.strip():
            eligible.append(position)
            keys.append((scenario.core_id, scenario.variation))
    if len({core for core, _ in keys}) < 2:
        raise InputError(
            "the judge self-test needs scenarios with an illustrative answer from at least two core examples; "
            f"the data has {len(eligible)} such scenario(s)"
        )
    return [scenarios[eligible[i]] for i in sample_positions(keys, n, seed)]


def check_pool(data: str, n: int | None) -> Sequence[Scenario]:
    """The scenarios of `data` a run's `--judge-check n` draws from (all of them, not only --limit's),
    checked fit for the self-test before the run starts; [] without a self-test. They wait on disk, so
    the run does not hold them while it works."""
    if not n:
        return []
    from cobe.dataset.loaders import spool_dataset  # the loader pulls in every file shape; only when needed

    pool = spool_dataset(data)
    select_scenarios(pool, n, 0)
    return pool


async def self_test(
    judge: ChecksJudge,
    scenarios: Sequence[Scenario],
    *,
    judge_name: str,
    prompts: JudgePromptSet,
    data: str,
    n: int = DEFAULT_N,
    seed: int = 0,
    level: float = 0.95,
    concurrency: int = 8,
    progress: StageProgress | None = None,
) -> SelfTest:
    """Ask `judge` the probes' checks on `n` of `scenarios` and count how often it gave the expected verdict;
    `progress` hears of each probe × scenario as it ends (stage `judge-check`)."""
    chosen = select_scenarios(scenarios, n, seed)
    pool = Pool.of(scenarios)
    gate = asyncio.Semaphore(max(1, concurrency))  # bounds open tasks; the caller's scheduler bounds calls

    async def ask(probe: Probe, scenario: Scenario) -> dict[str, CheckResult]:
        case = probe.build(scenario, pool)
        if isinstance(case, str):  # every drawn scenario has an illustrative answer and a partner
            raise InputError(f"scenario {scenario.id}: {case}")
        async with gate:
            results = await judge.checks(case.scenario, case.answer, tuple(probe.expected))
        if progress is not None:
            progress.advance(STAGE, error=any(r.verdict is None for r in results.values()))
        return results

    # scenario by scenario: a local model then re-reads little, the probes of one scenario sharing its text
    jobs = [(probe, scenario) for scenario in chosen for probe in PROBES]
    if progress is not None:
        progress.start(STAGE, len(jobs), 0)
    answers = await settled(*(ask(probe, scenario) for probe, scenario in jobs))
    verdicts: dict[tuple[str, str], list[str | None]] = {}
    for (probe, _), results in zip(jobs, answers):
        for check, result in results.items():
            verdicts.setdefault((probe.name, check), []).append(result.verdict)
    rows = [
        probe_check(probe.name, check, expected, verdicts.get((probe.name, check), []), level)
        for probe in PROBES
        for check, expected in probe.expected.items()
    ]
    line, ok = self_test_verdict(rows)
    return SelfTest(
        judge=judge_name,
        judge_prompts=prompts.name,
        prompt_fingerprint=prompts.fingerprint,
        data=data,
        scenarios=[s.id for s in chosen],
        seed=seed,
        level=level,
        checks=rows,
        verdict=line,
        as_expected=ok,
    )


async def run_self_test(
    caller: Caller,
    judging: JudgePlan,
    providers: Mapping[str, Provider] | None,
    scenarios: Sequence[Scenario],
    *,
    data: str,
    n: int = DEFAULT_N,
    seed: int = 0,
    progress: StageProgress | None = None,
) -> SelfTest:
    """The self-test of a command's judging (one judge, or a panel whose strict majority is tested, each
    member asked `samples` times) through `caller`; give it a caller of its own (it may share a run's
    store and scheduler) to keep its calls out of a run's judge counts. `providers` lends the ones the
    command already holds."""
    panel = JudgePanel.from_plan(judging, caller, providers)
    # a judge whose reply to the preflight holds no T or F (a base model asked through chat, say) stops the
    # self-test before its calls are spent, in the line a run's preflight gives
    probes = [Preflight(m.provider, m.settings, "judge") for m in panel.members if needs_preflight(m.provider)]
    stats = caller.stats["judge"]
    made, cached, failed = stats.calls_made, stats.calls_cached, stats.errors
    concurrency = 2 * max(caller.scheduler.limits(member.provider).concurrency for member in panel.members)
    try:
        await run_preflight(caller, probes, {}, check=probe_problem)
        result = await self_test(
            panel,
            scenarios,
            judge_name=judging.spec,
            prompts=judging.prompts,
            data=data,
            n=n,
            seed=seed,
            concurrency=concurrency,
            progress=progress,
        )
    finally:
        await panel.aclose()
    return result.model_copy(
        update={
            "samples": judging.samples,
            "calls_made": stats.calls_made - made,
            "calls_cached": stats.calls_cached - cached,
            "calls_failed": stats.errors - failed,
        }
    )


async def ajudge_check(
    judge: str | Sequence[str],
    judge_prompts: str = DEFAULT_JUDGE_PROMPTS,
    data: str = "builtin:starter",
    *,
    n: int = DEFAULT_N,
    seed: int = 0,
    run_dir: str | Path | None = None,
    temperature: float | None = None,
    samples: int = 1,
    on_wait: Callable[[str], None] | None = None,
    reask_unscored: bool = False,
    progress: StageProgress | None = None,
    model_args: Sequence[str] = (),
    **scheduler_options: Any,
) -> SelfTest:
    """Async form of `judge_check`."""
    from cobe.dataset.loaders import spool_dataset
    from cobe.store.directory import open_run_store

    models = ModelArgs.parse(model_args)  # -M SPEC:FIELD=VALUE: a judge's settings or its capability row
    unknown = sorted(set(models.specs()) - set(split_specs([judge] if isinstance(judge, str) else judge)))
    if unknown:
        raise InputError(f"--model-arg {unknown[0]}: names no judge of the command; expected one of its --judge specs")
    judging, _ = plan_judges(judge, judge_prompts, temperature=temperature, samples=samples, models=models)
    scenarios = spool_dataset(data)
    select_scenarios(scenarios, n, seed)  # bad data or --n fails before a provider or a store is opened
    providers: dict[str, Provider] = {}
    try:
        for member in judging.members:  # a judge that cannot be built fails before the store is opened
            providers[member.spec] = get_provider(member.spec, models.capabilities(member.spec))
        path = Path(run_dir) / STORE_NAME if run_dir is not None else cache_store("judge-check")
        # one self-test at a time per cache: a second one waits, then finds the first one's answers stored
        with directory_lock(path.parent, "judges check", wait=on_wait or _quietly):
            store, _ = open_run_store(path.parent, force_new=False)
            try:
                # --reask-unscored: a stored verdict that is neither T nor F is asked again, its row kept
                caller = Caller(store, Scheduler(**scheduler_options), reask=reask if reask_unscored else None)
                test = await run_self_test(
                    caller, judging, providers, scenarios, data=data, n=n, seed=seed, progress=progress
                )
                return test.model_copy(update={"notices": list(caller.notices)})
            finally:
                store.close()
    finally:
        await asyncio.gather(*(p.aclose() for p in providers.values()), return_exceptions=True)


def _quietly(line: str) -> None:
    """Wait without saying so (the API's default; the CLI prints the line)."""


judge_check = blocking(
    ajudge_check,
    """Self-test a judge, or a panel's majority (`judge` a list), on `n` scenarios of `data`: judge calls
    only, cached in `run_dir`'s store or a cache dir, each judge asked as `model_args` (SPEC:FIELD=VALUE) say.
    Another command using that store is waited for (`on_wait` gets one line saying so), so two self-tests never
    pay for the same call twice; `progress` hears of each probe as it is judged.""",
)
