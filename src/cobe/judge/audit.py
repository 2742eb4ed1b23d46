"""The judge audit (`cobe judges audit`): judge calls only, on probes built from each scenario's own fields
(`cobe.judge.audit_probes`), each check asked `repeats` times, with the card written to the run directory.

Every call goes through a `Caller` on the run directory's store: each repeat is a call of its own (its
sample index is in the key), priced, held to --max-cost, preflighted like a run's, and found again by a
later audit, so a stopped or repeated audit pays for nothing twice. `--dry-run` counts and prices the calls
the store does not hold yet. The tables are `cobe.judge.audit_result`, the card `cobe.judge.audit_card`; a
reference on a run's responses (`ReferenceCalibration`) and the reliability figure's drawing come from the
report layer (`cobe.report.judge_confidence`, `cobe.report.audit_figure`), which the caller hands in.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cobe.calls.caller import Caller
from cobe.calls.cost import Budget, load_prices
from cobe.calls.preflight import Probe as Preflight
from cobe.calls.preflight import needs_preflight, run_preflight
from cobe.calls.pricing import CallPricer, verdict_tokens
from cobe.calls.scheduler import Scheduler
from cobe.core.aio import blocking, settled
from cobe.core.errors import InputError
from cobe.core.files import atomic_write
from cobe.core.lock import directory_lock
from cobe.core.reserve import disk_reserve
from cobe.core.results import CHECKS
from cobe.judge.audit_card import JudgeAudit, audit_markdown, findings
from cobe.judge.audit_probes import SELF_TEST, Pool, Probe, ProbeCase, select_probes
from cobe.judge.audit_result import (
    Answers,
    ReferenceCalibration,
    by_question,
    calibration,
    probe_rows,
    probe_summary,
    stability,
)
from cobe.judge.checker import Judge
from cobe.judge.fact_match import omit_change_sentences
from cobe.judge.judge_plan import JudgePlan, plan_judges
from cobe.judge.panel import JudgePanel
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS
from cobe.judge.selftest import select_scenarios
from cobe.judge.selftest_result import probe_check, self_test_verdict
from cobe.judge.specs import split_specs
from cobe.judge.usable import probe_problem
from cobe.models.capabilities import capabilities
from cobe.models.fitting import effective_settings
from cobe.models.registry import get_provider
from cobe.store.directory import open_run_store
from cobe.store.store import STORE_NAME, Store

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario
    from cobe.models.base import Provider

DEFAULT_N = 20
DEFAULT_REPEATS = 2
AUDIT_JSON, AUDIT_MD, AUDIT_FIGURE = "audit.json", "audit.md", "audit_reliability.svg"
#: draws the card's reliability figure (SVG bytes), or None where no P(T) came back: `cobe.report.audit_figure`
FigureDrawer = Callable[[JudgeAudit], bytes | None]


@dataclass
class AuditPlan:
    """What an audit asks: its judge, the probes of each drawn scenario, and how many times each check."""

    judging: JudgePlan
    data: str
    seed: int
    repeats: int
    probes: list[Probe]
    scenarios: list[Scenario]
    cases: list[ProbeCase]
    skipped: dict[str, Counter[str]] = field(default_factory=dict)  # probe → why it was not built → scenarios
    omission: dict[str, int] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)

    @property
    def spec(self) -> str:
        """The audited judge's spec."""
        return self.judging.members[0].spec

    def questions(self) -> Iterator[tuple[ProbeCase, str, int]]:
        """Every (case, check, repeat) call, case by case."""
        for case in self.cases:
            for check in CHECKS:
                for repeat in range(self.repeats):
                    yield case, check, repeat


def omission_counts(scenarios: Sequence[Scenario]) -> dict[str, int]:
    """How the omission probe's matching went: scenarios with no change fact matched, with nothing left, with
    some change facts unmatched, and with a removed part that also states a preserve fact."""
    counts = Counter[str]()
    for scenario in scenarios:
        omitted = omit_change_sentences(scenario)
        counts["no_match"] += not omitted.removed
        counts["nothing_left"] += bool(omitted.removed) and not omitted.text
        counts["partly"] += bool(omitted.removed and omitted.unmatched)
        counts["preserve_touched"] += omitted.preserve_touched
    return {key: counts[key] for key in ("no_match", "nothing_left", "partly", "preserve_touched")}


def plan_audit(
    judge: str,
    judge_prompts: str = DEFAULT_JUDGE_PROMPTS,
    data: str = "builtin:starter",
    *,
    n: int = DEFAULT_N,
    seed: int = 0,
    repeats: int = DEFAULT_REPEATS,
    temperature: float | None = None,
    probes: Sequence[str] | None = None,
) -> AuditPlan:
    """The audit of one judge on `n` scenarios of `data` (drawn with `seed`), before any call."""
    from cobe.dataset.loaders import spool_dataset  # every file shape's loader, only when data is read

    if repeats < 1:
        raise InputError(f"--repeats {repeats}: expected 1 or more")
    if len(split_specs([judge])) > 1:
        raise InputError(f"--judge {judge}: the audit tests one judge at a time; audit each member of a panel")
    chosen, notices = select_probes(probes)
    judging, _ = plan_judges(judge, judge_prompts, temperature=temperature)  # one ask; repeats are ours
    pool = spool_dataset(data)
    scenarios = select_scenarios(pool, n, seed)
    partners = Pool.of(pool)
    plan = AuditPlan(judging, data, seed, repeats, chosen, scenarios, [], notices=notices)
    for probe in chosen:
        plan.skipped[probe.name] = Counter()
        for scenario in scenarios:
            built = probe.build(scenario, partners)
            if isinstance(built, str):
                plan.skipped[probe.name][built] += 1
            else:
                plan.cases.append(built)
    if any(p.name == "omission" for p in chosen):
        plan.omission = omission_counts(scenarios)
    return plan


async def ask_all(judge: Judge, plan: AuditPlan, concurrency: int) -> list[Answers]:
    """Every probe question, each check `plan.repeats` times (sample k of a check is a call of its own)."""
    gate = asyncio.Semaphore(max(1, concurrency))  # bounds open tasks; the caller's scheduler bounds calls

    async def one(case: ProbeCase, check: str) -> Answers:
        async with gate:
            results = await settled(
                *(judge.check(check, case.scenario, case.answer, sample=k) for k in range(plan.repeats))
            )
        return Answers(
            probe=case.probe,
            scenario=case.scenario.id,
            check=check,
            verdicts=[r.verdict for r in results],
            p_true=[r.p_true for r in results],
            unscored=[r.unscored or "" for r in results] if any(r.unscored for r in results) else [],
        )

    # every question settles before an error is raised: a call in flight when --max-cost stops the others is
    # answered and stored, so the resumed audit does not pay for it again
    return await settled(*(one(case, check) for case in plan.cases for check in CHECKS))


def assemble(
    plan: AuditPlan, answers: list[Answers], level: float = 0.95, reference: ReferenceCalibration | None = None
) -> JudgeAudit:
    """The audit's tables and findings from every question's answers (and the run's reference, where given)."""
    table = by_question(answers)
    ids = {p.name: [c.scenario.id for c in plan.cases if c.probe == p.name] for p in plan.probes}
    rows = [row for probe in plan.probes for row in probe_rows(probe, table, ids[probe.name], level)]
    summaries = [probe_summary(p, table, ids[p.name], plan.skipped.get(p.name, {}), level) for p in plan.probes]
    member = plan.judging.members[0]
    # the temperature the calls carry: None where the model takes none (it answers at its provider's default)
    caps = member.capabilities or capabilities(member.spec)
    temperature = effective_settings(caps, member.settings).get("temperature")
    audit = JudgeAudit(
        judge=plan.spec,
        judge_prompts=plan.judging.prompts.name,
        prompt_fingerprint=plan.judging.prompts.fingerprint,
        data=plan.data,
        seed=plan.seed,
        level=level,
        repeats=plan.repeats,
        temperature=temperature,
        scenarios=[s.id for s in plan.scenarios],
        probes=summaries,
        rows=rows,
        stability=stability(answers, plan.repeats, temperature, level),
        calibration=calibration(answers),
        omission=plan.omission,
        reference=reference,
        self_test=_self_test(plan, table, ids, level),
        notices=list(plan.notices),
        answers=answers,
    )
    if not audit.calibration:
        audit.no_p_true = no_p_true(plan, reference)
    return audit


def _self_test(
    plan: AuditPlan, table: dict[tuple[str, str, str], Answers], ids: dict[str, list[str]], level: float
) -> str:
    """The self-test's verdict on its three probes, where the audit asked them all."""
    asked = [p for p in plan.probes if p.name in SELF_TEST]
    if len(asked) < len(SELF_TEST):
        return ""
    rows = [
        probe_check(p.name, check, expected, [table[(p.name, sid, check)].verdict for sid in ids[p.name]], level)
        for p in asked
        for check, expected in p.expected.items()
    ]
    return self_test_verdict(rows)[0]


def no_p_true(plan: AuditPlan, reference: ReferenceCalibration | None = None) -> str:
    """The one line saying why confidence was not measured: on the probes, and against the run's reference where
    its verdicts carry no P(T) either."""
    member = plan.judging.members[0]
    both = f", on the probes or against {reference.reference}" if reference is not None and not reference.tables else ""
    if not member.settings.logprobs:
        return (
            f"{member.spec} returns no first-token log-probabilities (its API gives none, as Anthropic's does, or the "
            f"prompt set does not ask for them), so how far its confidence holds is not measured{both}"
        )
    return f"{member.spec} returned no P(T) with its verdicts, so how far its confidence holds is not measured{both}"


@dataclass(frozen=True)
class AuditEstimate:
    """What an audit would call (`--dry-run`): calls to make, calls the store answers, their estimated price."""

    run_dir: Path
    judge: str
    scenarios: int
    cases: int
    calls: int
    cached: int  # answered by the run directory's store
    same: int  # the same call as another question of the audit (an empty answer's connectors check, ...)
    estimated_cost_usd: float | None  # None: the judge has no known price
    unpriced: list[str]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {key: str(value) if isinstance(value, Path) else value for key, value in vars(self).items()}

    def lines(self) -> list[str]:
        """The estimate in words."""
        cost = (
            f"${self.estimated_cost_usd:.4f}"
            if self.estimated_cost_usd is not None
            else f"unknown (no price for {', '.join(self.unpriced)}; give one with --prices FILE)"
        )
        return [
            f"Dry run of the judge audit of {self.judge} in {self.run_dir}: {self.cases} probes of {self.scenarios} "
            f"scenarios, three checks each",
            f"  judge calls: {self.calls} to make, {self.cached} from the store, {self.same} the same call as another "
            "question's",
            f"  estimated cost: {cost}",
        ]


def estimate_audit(plan: AuditPlan, run_dir: Path, prices: str | Path | None = None) -> AuditEstimate:
    """Count and price the audit's calls the run directory's store does not hold; nothing is called or written."""
    member = plan.judging.members[0]
    provider = get_provider(member.spec, member.capabilities)
    path = run_dir / STORE_NAME
    store = Store(path) if path.is_file() else None  # a dry run never creates a run directory
    pricer, calls, cached, same = CallPricer(load_prices(prices)), 0, 0, 0
    try:
        caller = Caller(store) if store is not None else None
        tokens = verdict_tokens(provider.capabilities, member.settings)
        asked: set[str] = set()  # the same question twice (an empty answer's connectors check) is one call
        for case, check, repeat in plan.questions():
            # what the judge would send (`Judge.messages`), its head marked for the prompt cache as the judge marks it
            messages = member.prompts.messages(check, case.scenario, case.answer, cache=plan.judging.prompt_cache)
            key = Caller.request(provider, messages, member.settings, sample=repeat)[1]
            if key in asked:
                same += 1
                continue
            asked.add(key)
            if caller is not None and caller.stored(provider, messages, member.settings, sample=repeat) is not None:
                cached += 1
                continue
            calls += 1
            pricer.add(member.spec, messages, tokens)
    finally:
        if store is not None:
            store.close()
    return AuditEstimate(
        run_dir,
        plan.spec,
        len(plan.scenarios),
        len(plan.cases),
        calls,
        cached,
        same,
        pricer.total(),
        sorted(pricer.unpriced),
    )


def _check_price(plan: AuditPlan, prices: str | Path | None, max_cost: float | None) -> None:
    """With --max-cost the judge needs a price, or the budget would be a guess."""
    if max_cost is not None and load_prices(prices).price(plan.spec) is None:
        raise InputError(f"--max-cost: no price known for {plan.spec}; add it to a --prices FILE")


async def arun_audit(
    plan: AuditPlan,
    run_dir: str | Path,
    *,
    prices: str | Path | None = None,
    max_cost: float | None = None,
    preflight: bool = True,
    on_wait: Callable[[str], None] | None = None,
    reference: ReferenceCalibration | None = None,
    figure: FigureDrawer | None = None,
    **scheduler_options: Any,
) -> JudgeAudit:
    """Ask every probe question through a caller on `run_dir`'s store, then write audit.json and audit.md there,
    with `reference` (the judge's P(T) on the run's responses against a reference it holds) in the card, and the
    reliability figure `figure` draws beside it."""
    run_dir = Path(run_dir)
    _check_price(plan, prices, max_cost)
    member = plan.judging.members[0]
    provider = get_provider(member.spec, member.capabilities)  # a judge that cannot be built fails before the store
    try:
        with directory_lock(run_dir, "judges audit", wait=on_wait), disk_reserve(run_dir) as reserve:
            store, notices = open_run_store(run_dir, force_new=False)
            store.reserve = reserve
            try:
                caller = Caller(store, Scheduler(**scheduler_options), load_prices(prices), Budget(max_cost))
                audit = await _audit(plan, caller, provider, preflight, reference)
            finally:
                store.close()
            audit.notices = [*notices, *audit.notices, *caller.notices]
            write_audit(audit, run_dir, figure)
            return audit
    finally:
        await provider.aclose()


async def _audit(
    plan: AuditPlan, caller: Caller, provider: Provider, preflight: bool, reference: ReferenceCalibration | None
) -> JudgeAudit:
    """The calls and the tables, on an open caller."""
    member = plan.judging.members[0]
    stats: dict[str, Any] = {}
    if preflight and needs_preflight(provider):
        await run_preflight(caller, [Preflight(provider, member.settings, "judge")], stats, check=probe_problem)
    panel = JudgePanel.from_plan(plan.judging, caller, {member.spec: provider})
    concurrency = 2 * caller.scheduler.limits(provider).concurrency
    answers = await ask_all(panel.members[0], plan, concurrency)
    audit = assemble(plan, answers, reference=reference)
    judged = caller.stats["judge"]
    audit.calls_made, audit.calls_cached, audit.calls_failed = judged.calls_made, judged.calls_cached, judged.errors
    audit.cost_usd = round(judged.cost_usd + stats.get("preflight", {}).get("cost_usd", 0.0), 6)
    audit.findings = findings(audit)
    return audit


def write_audit(audit: JudgeAudit, run_dir: Path, figure: FigureDrawer | None = None) -> None:
    """audit.json (every table and answer), audit.md (the card) and, where `figure` draws one, the reliability
    figure in `run_dir`; an earlier audit's figure that this one has no P(T) for is removed."""
    drawn = figure(audit) if figure is not None else None
    audit.figure = AUDIT_FIGURE if drawn is not None else None
    if drawn is not None:
        atomic_write(run_dir / AUDIT_FIGURE, drawn.decode("utf-8"), shared=True)  # SVG is text
    else:
        (run_dir / AUDIT_FIGURE).unlink(missing_ok=True)
    atomic_write(run_dir / AUDIT_JSON, audit.model_dump_json(indent=1) + "\n", shared=True)
    atomic_write(run_dir / AUDIT_MD, "\n".join(audit_markdown(audit)) + "\n", shared=True)


run_audit = blocking(
    arun_audit,
    """Run a planned judge audit (`plan_audit`) in `run_dir`: judge calls only, cached in its store, the card
    written beside it as audit.json and audit.md. Another command using the directory is waited for (`on_wait`
    gets one line saying so).""",
)
