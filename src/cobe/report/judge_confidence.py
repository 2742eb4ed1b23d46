"""How far a judge's P(T) on a run's responses holds against a reference the run holds: the human majority of its
rating study, or another verdict set (the source's published verdicts, a panel's majority, another judge).

Everything is read from the run's store, with no model call: the judge's verdicts and the P(T) stored with each
(first-token log-probabilities), and the reference's verdicts as the run's exports would show them
(`cobe.run.export.iter_rows`, as `cobe judges agree` reads them). A response is compared where both scored it.
A reference that gives one verdict per response (a rater's rubric, a site's published verdict) is met with the
judge's P(pass), the product of its three P(T) (`cobe.score.reliability.pass_probability`); one that judged each
check is met check by check as well. The tables are `cobe.judge.audit_result.check_calibration`, the card's.
"""

from __future__ import annotations

import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from cobe.core.errors import InputError
from cobe.core.lock import lock_holder
from cobe.core.results import CHECKS, ResultRow
from cobe.judge.audit_result import PASS, CheckCalibration, ReferenceCalibration, check_calibration
from cobe.judge.judge_plan import JudgeRef
from cobe.run.export import iter_rows
from cobe.run.set_agreement import set_name
from cobe.run.verdict_sets import VerdictSet, choose, verdict_sets
from cobe.score.agreement import human_fail
from cobe.score.reliability import pass_probability
from cobe.store.directory import find_store
from cobe.store.store import ReadOnlyStore, Store

#: why a response of the run is not compared, in the order they are tested
LEFT_OUT = ("errors", "not_judged", "unscored_judge", "not_rated", "no_human_majority", "unscored_reference")
#: a reference's outcome on one response: (passes, its verdict per check), or why it has none
Outcome = tuple[bool, Mapping[str, str | None]] | str


@dataclass(frozen=True)
class HumanReference:
    """A rating study's answers as a reference: where they came from, and each rated item's answers."""

    source: str  # the study, in words (its file)
    answers: Mapping[str, Sequence[str]]  # item key 'scenario_id:template:model' → the raters' answers

    @property
    def name(self) -> str:
        """The reference in words."""
        return f"the human majority of {self.source}"


def _scored(row: ResultRow, unscored: str) -> str | None:
    """Why a row is not compared on this side, or None where it is scored."""
    if row.status == "error":
        return "errors"
    if row.status == "pending":
        return "not_judged"
    return unscored if row.status == "unscored" else None


def _human_outcome(row: ResultRow, human: HumanReference) -> Outcome:
    # a study rates each response of the first epoch once, under its item key (`cobe.annotate.study.item_key`)
    answers = human.answers.get(f"{row.scenario_id}:{row.template}:{row.model}") if row.epoch == 1 else None
    if not answers:
        return "not_rated"
    fails = human_fail(list(answers))
    return "no_human_majority" if fails is None else (not fails, {})


def _set_outcome(row: ResultRow) -> Outcome:
    why = _scored(row, "unscored_reference")
    return why if why is not None else (row.status == "passed", row.verdicts)


class _Pairs:
    """(P, reference says T) pairs per table, and the responses compared or left out."""

    def __init__(self) -> None:
        self.pairs: dict[str, list[tuple[float, bool]]] = defaultdict(list)
        self.rows = 0
        self.left_out: Counter[str] = Counter()

    def add(self, judged: ResultRow, outcome: Outcome) -> None:
        """One response: left out by why, or its checks' and its pass's pairs."""
        why = _scored(judged, "unscored_judge")
        if why is None and isinstance(outcome, str):
            why = outcome
        if why is not None:
            self.left_out[why] += 1
            return
        assert not isinstance(outcome, str)
        passes, verdicts = outcome
        self.rows += 1
        p_true = judged.p_true
        for check in CHECKS:
            p, said = p_true.get(check), verdicts.get(check)
            if p is not None and said is not None:
                self.pairs[check].append((p, said == "T"))
        known = [p for c in CHECKS if (p := p_true.get(c)) is not None]
        if len(known) == len(CHECKS):
            self.pairs[PASS].append((pass_probability(known), passes))

    def tables(self) -> list[CheckCalibration]:
        """A table per check the reference judged, then the pass row."""
        return [check_calibration(name, self.pairs[name]) for name in (*CHECKS, PASS) if self.pairs.get(name)]


def _judge_set(sets: list[VerdictSet], judge: JudgeRef, run_dir: Path) -> VerdictSet:
    """The audited judge's own verdicts on the run (one judge, its prompt set's fingerprint)."""
    for found in sets:
        if not found.ref.combined and (found.ref.spec, found.ref.fingerprint) == (judge.spec, judge.fingerprint):
            return found
    raise InputError(
        f"{run_dir}: holds no verdicts of {judge.spec} (prompts {judge.prompt_set}); judge it with "
        f"`cobe judge {run_dir} --judge {judge.spec}` first (the P(T) it returns are stored with its verdicts, and "
        "the comparison reads them without a call)"
    )


def _outcomes(
    store: Store, run_id: str, items: list, reference: VerdictSet | HumanReference, judged: Iterable[ResultRow]
) -> Iterator[tuple[ResultRow, Outcome]]:
    """Each of the judge's rows with the reference's outcome on it, one response at a time."""
    if isinstance(reference, HumanReference):
        for row in judged:
            yield row, _human_outcome(row, reference)
        return
    for row, other in zip(judged, iter_rows(store, run_id, items, reference.ref), strict=True):
        yield row, _set_outcome(other)


def reference_calibration(
    run_dir: str | Path, judge: JudgeRef, reference: str | HumanReference
) -> ReferenceCalibration:
    """`judge`'s P(T) on `run_dir`'s responses against `reference`: a rating study's answers, or one of the run's
    verdict sets named as `cobe judges agree --reference` names it (number, spec or fingerprint start). Read from
    the store with no call; a reference that shares no scored response with the judge is refused."""
    from cobe.run.plan import plan_exports  # the plan module loads the providers' registry; only when needed

    run_dir = Path(run_dir)
    store = ReadOnlyStore(find_store(run_dir), idle=lock_holder(run_dir) is None)
    try:
        row = store.latest_run()
        if row is None:
            raise InputError(f"{run_dir}: the store holds no run")
        sets = verdict_sets(store, row.id)
        mine = _judge_set(sets, judge, run_dir)
        chosen: VerdictSet | HumanReference = (
            reference
            if isinstance(reference, HumanReference)
            else choose(sets, reference, run_dir, option="--reference")
        )
        if chosen is mine:
            raise InputError(f"--reference {reference}: is the audited judge's own verdict set; name another")
        name = chosen.name if isinstance(chosen, HumanReference) else set_name(chosen.ref)
        items = plan_exports(store, run_dir).items
        pairs = _Pairs()
        for judged, outcome in _outcomes(store, row.id, items, chosen, iter_rows(store, row.id, items, mine.ref)):
            pairs.add(judged, outcome)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{run_dir}: its store cannot be read ({exc})") from None
    finally:
        store.close()
    return _calibration(run_dir, set_name(mine.ref), name, chosen, pairs)


def _calibration(
    run_dir: Path, judge: str, name: str, chosen: VerdictSet | HumanReference, pairs: _Pairs
) -> ReferenceCalibration:
    """The tables, or the line that refuses a reference with nothing in common with the judge."""
    left_out = {why: pairs.left_out[why] for why in LEFT_OUT if pairs.left_out[why]}
    if not pairs.rows:
        why = "; ".join(f"{n} {key.replace('_', ' ')}" for key, n in left_out.items()) or "the run has no response"
        raise InputError(
            f"--reference {name}: shares no response that both it and {judge} scored on {run_dir} ({why}); judge the "
            "responses the reference covers, or name another reference"
        )
    tables = pairs.tables()
    no_p_true = (
        None
        if tables
        else f"{judge} has no P(T) with its verdicts on {run_dir}, so how far its confidence holds against {name} is "
        "not measured"
    )
    return ReferenceCalibration(
        reference=name,
        kind="human" if isinstance(chosen, HumanReference) else "verdict set",
        run_dir=str(run_dir),
        judge=judge,
        rows=pairs.rows,
        left_out=left_out,
        tables=tables,
        no_p_true=no_p_true,
    )
