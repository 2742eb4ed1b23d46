"""The judge audit's arithmetic: from every probe question's answers (K repeats each) to its tables.

Each question's verdict is the strict majority of its repeats (a tie unscored). Per probe and check: the
share of verdicts as expected, with an exact interval; per probe: the share that passes all three checks
(the paper's rule), and for a probe that must change nothing, the share of scenarios where a verdict differs
from its base probe's; across probes: how often repeats disagree; and, where the judge returned P(T), how
far it holds against the verdicts the probes must get, and against a reference on a run's responses
(`ReferenceCalibration`, gathered by `cobe.report.judge_confidence`). The wording of the card is
`cobe.judge.audit_card`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from cobe.core.results import CHECKS, Verdict
from cobe.judge.audit_probes import BY_NAME, Probe
from cobe.judge.checks import majority, row_status
from cobe.score.reliability import reliability
from cobe.score.repeats import Share, flip_share

ShareDict = dict[str, Any]  # Share.as_dict(): hits, n, share, ci_low, ci_high
#: the last table of the probes' calibration: every check's verdicts together
POOLED = "all checks"


class Answers(BaseModel):
    """One probe question (probe × scenario × check) and each repeat's answer."""

    probe: str
    scenario: str
    check: str
    verdicts: list[Verdict | None]
    p_true: list[float | None] = Field(default_factory=list)
    unscored: list[str] = Field(default_factory=list)  # why a repeat has no verdict, where one has none

    @property
    def verdict(self) -> Verdict | None:
        """The majority of the repeats."""
        return majority(self.verdicts, "repeats")[0]


class ProbeCheckRow(BaseModel):
    """One probe × check: what the judge said, and how far it met the expectation."""

    probe: str
    check: str
    expected: Verdict | None  # None: nothing is expected of this check on its own
    asked: int
    scored: int
    says_t: int
    as_expected: ShareDict | None = None  # hits = verdicts equal to `expected`
    differs: ShareDict | None = None  # a probe that must change nothing: verdicts unlike its base probe's


class ProbeSummary(BaseModel):
    """One probe over every scenario it was built for."""

    probe: str
    words: str
    scenarios: int
    skipped: dict[str, int] = Field(default_factory=dict)  # why it could not be built → scenarios
    passes: ShareDict  # passes all three checks, of the scored
    never_passes: bool = False
    paper_rule: bool = False
    same_as: str | None = None
    differs: ShareDict | None = None  # scenarios where any verdict differs from the base probe's


class Stability(BaseModel):
    """How often K repeats of one question disagree: per check, and on the pass/fail of an answer."""

    repeats: int
    temperature: float | None
    checks: dict[str, ShareDict] = Field(default_factory=dict)
    pass_fail: ShareDict | None = None


class CheckCalibration(BaseModel):
    """A check's P(T) (or a response's P(pass)) against a reference: its reliability table, ECE and Brier."""

    check: str
    items: int
    ece: float | None
    brier: float | None
    bins: list[dict[str, Any]] = Field(default_factory=list)  # the bins that hold verdicts


#: the row of a reference table that sets P(pass), the product of the three P(T), beside the reference's pass/fail
PASS = "pass"


class ReferenceCalibration(BaseModel):
    """The audited judge's P(T) on a run's responses against a reference the run holds: the human majority of its
    rating study, or a verdict set (the published verdicts, a panel's majority, another judge)."""

    reference: str  # the reference in words
    kind: Literal["human", "verdict set"]
    run_dir: str
    judge: str  # the audited judge's verdict set on the run, in words
    rows: int  # responses both scored
    left_out: dict[str, int] = Field(default_factory=dict)  # why the run's other responses are not compared
    tables: list[CheckCalibration] = Field(default_factory=list)  # per check where the reference has them, then pass
    no_p_true: str | None = None  # why there are no tables, said once


def check_calibration(name: str, pairs: Sequence[tuple[float, bool]]) -> CheckCalibration:
    """One table: P(T) (or P(pass)) of each pair against its reference (True: T, or pass)."""
    table = reliability([p for p, _ in pairs], [t for _, t in pairs])
    bins = [vars(b) for b in table.bins if b.items]
    return CheckCalibration(check=name, items=table.items, ece=table.ece, brier=table.brier, bins=bins)


def _share(hits: int, n: int, level: float) -> ShareDict:
    return Share(hits, n, level).as_dict()


def by_question(answers: Iterable[Answers]) -> dict[tuple[str, str, str], Answers]:
    """Every answer under (probe, scenario, check)."""
    return {(a.probe, a.scenario, a.check): a for a in answers}


def probe_rows(
    probe: Probe, table: Mapping[tuple[str, str, str], Answers], ids: Sequence[str], level: float
) -> list[ProbeCheckRow]:
    """The rows of one probe, a check each, over the scenarios it was asked of."""
    rows = []
    for check in CHECKS:
        got = [table[(probe.name, sid, check)].verdict for sid in ids if (probe.name, sid, check) in table]
        scored = [v for v in got if v is not None]
        expected = probe.expected.get(check)
        row = ProbeCheckRow(
            probe=probe.name,
            check=check,
            expected=expected,
            asked=len(got),
            scored=len(scored),
            says_t=scored.count("T"),
        )
        if expected is not None:
            row.as_expected = _share(scored.count(expected), len(scored), level)
        if probe.same_as is not None:
            pairs = _pairs(table, probe, ids, (check,))
            row.differs = _share(sum(1 for a, b in pairs if a != b), len(pairs), level)
        rows.append(row)
    return rows


def _pairs(
    table: Mapping[tuple[str, str, str], Answers], probe: Probe, ids: Sequence[str], checks: Sequence[str]
) -> list[tuple[Verdict, Verdict]]:
    """(this probe's verdict, its base's) for every scenario × check both scored."""
    assert probe.same_as is not None
    out = []
    for sid in ids:
        for check in checks:
            mine, base = table.get((probe.name, sid, check)), table.get((probe.same_as, sid, check))
            if mine is not None and base is not None and mine.verdict is not None and base.verdict is not None:
                out.append((mine.verdict, base.verdict))
    return out


def statuses(table: Mapping[tuple[str, str, str], Answers], probe: str, sid: str) -> str | None:
    """The pass rule on the majority verdicts of one probe of one scenario: passed, failed, or None unscored."""
    verdicts: dict[str, Verdict | None] = {
        c: a.verdict for c in CHECKS if (a := table.get((probe, sid, c))) is not None
    }
    status, _ = row_status(verdicts, None)
    return status if status in ("passed", "failed") else None


def probe_summary(
    probe: Probe,
    table: Mapping[tuple[str, str, str], Answers],
    ids: Sequence[str],
    skipped: Mapping[str, int],
    level: float,
) -> ProbeSummary:
    """One probe's pass share (and, for a probe that must change nothing, how often it changed something)."""
    told = [s for s in (statuses(table, probe.name, sid) for sid in ids) if s is not None]
    summary = ProbeSummary(
        probe=probe.name,
        words=probe.words,
        scenarios=len(ids),
        skipped=dict(skipped),
        passes=_share(told.count("passed"), len(told), level),
        never_passes=probe.never_passes,
        paper_rule=probe.paper_rule,
        same_as=probe.same_as,
    )
    if probe.same_as is not None:
        compared = differing = 0
        for sid in ids:
            pairs = _pairs(table, probe, [sid], CHECKS)
            if len(pairs) == len(CHECKS):  # every check scored under both
                compared += 1
                differing += any(a != b for a, b in pairs)
        summary.differs = _share(differing, compared, level)
    return summary


def stability(answers: Sequence[Answers], repeats: int, temperature: float | None, level: float) -> Stability:
    """Per check, the questions whose repeats disagree; and the answers whose pass/fail differs between repeats."""
    out = Stability(repeats=repeats, temperature=temperature)
    if repeats < 2:
        return out
    for check in CHECKS:
        out.checks[check] = flip_share((a.verdicts for a in answers if a.check == check), level).as_dict()
    grouped: dict[tuple[str, str], dict[str, Answers]] = defaultdict(dict)
    for a in answers:
        grouped[(a.probe, a.scenario)][a.check] = a
    per_repeat = []
    for checks in grouped.values():
        rounds = []
        for k in range(repeats):
            verdicts: dict[str, Verdict | None] = {c: _nth(checks.get(c), k) for c in CHECKS}
            status, _ = row_status(verdicts, None)
            rounds.append(status if status in ("passed", "failed") else None)
        per_repeat.append(rounds)
    out.pass_fail = flip_share(per_repeat, level).as_dict()
    return out


def _nth(answers: Answers | None, k: int) -> Verdict | None:
    return answers.verdicts[k] if answers is not None and k < len(answers.verdicts) else None


def reference(probe: Probe, check: str) -> Verdict | None:
    """The verdict a probe question must get, where it is known beyond the paper's rule: its own expectation,
    or its base probe's for a probe that must change nothing."""
    if probe.paper_rule:
        return None  # the paper's rule accepts it; a human would not: no reference either way
    if check in probe.expected:
        return probe.expected[check]
    base = BY_NAME.get(probe.same_as) if probe.same_as else None
    return base.expected.get(check) if base is not None else None


def calibration(answers: Sequence[Answers]) -> list[CheckCalibration]:
    """Each check's P(T) (every repeat with one) against the probes' reference verdicts, then all checks pooled;
    [] when the judge returned no P(T) at all."""
    pairs: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for a in answers:
        truth = reference(BY_NAME[a.probe], a.check)
        if truth is None:
            continue
        for p in a.p_true:
            if p is not None:
                pairs[a.check].append((p, truth == "T"))
    if not pairs:
        return []
    pooled = [pair for check in CHECKS for pair in pairs.get(check, [])]
    return [check_calibration(c, pairs[c]) for c in CHECKS if pairs.get(c)] + [check_calibration(POOLED, pooled)]
