"""`cobe judges agree`: how far each verdict set of a run agrees with a reference set (by default the source's
published verdicts, e.g. `cobe-site (published)`), read from the store with no model call.

A row is one response (model × scenario × template × epoch); what is compared is its overall pass/fail
as the run's exports would show it under each set (`cobe.run.export.iter_rows`): a published verdict as
published, a judge's three checks by the pass rule (one F fails). A row counts only where both sets scored
it; the others are counted by why (unscored by either or both, not yet judged, a respondent error). The
arithmetic is `cobe.score.set_agreement`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError
from cobe.core.lock import lock_holder
from cobe.judge.judge_plan import JudgeRef
from cobe.judge.published import is_published
from cobe.run.export import iter_rows
from cobe.run.items import Item
from cobe.run.verdict_sets import VerdictSet, choose, verdict_sets
from cobe.score.set_agreement import pairs_frame, set_agreement
from cobe.store.directory import find_store
from cobe.store.store import ReadOnlyStore, Store

#: why a row is left out of a comparison, in the order they are tested
LEFT_OUT = ("errors", "not_judged", "unscored_both", "unscored_reference", "unscored_set")
#: differing rows the text output lists per set (--json lists them all)
SHOWN_DIFFERENCES = 10

#: a row's identity and what agreement needs of it: (model, scenario, template, epoch) → (core, status)
Statuses = dict[tuple[str, str, str, int], tuple[int, str]]


def set_name(ref: JudgeRef) -> str:
    """A verdict set in words: a published set by its name, a judge by its spec and prompt set."""
    if is_published(ref):
        return ref.spec
    samples = f", {ref.samples} samples" if ref.samples > 1 else ""
    return f"{ref.spec} (prompts {ref.prompt_set}{samples})"


@dataclass
class SetComparison:
    """One verdict set against the reference: per model and `all`, what was left out, and the rows that differ."""

    verdict_set: VerdictSet
    groups: list[dict[str, Any]]
    left_out: dict[str, int]
    differences: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, every differing row listed."""
        return {
            "verdict_set": set_name(self.verdict_set.ref),
            **self.verdict_set.as_dict(),
            "groups": self.groups,
            "left_out": self.left_out,
            "differences": self.differences,
        }


@dataclass
class SetAgreementReport:
    """Every verdict set of a run against one reference set."""

    run_dir: Path
    reference: VerdictSet
    rows: int  # the run's rows (responses planned)
    comparisons: list[SetComparison] = field(default_factory=list)
    resamples: int = 1000
    seed: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The one JSON object of `cobe judges agree --json`."""
        return {
            "run_dir": str(self.run_dir),
            "reference": set_name(self.reference.ref),
            "reference_set": self.reference.as_dict(),
            "rows": self.rows,
            "compared_on": "overall pass/fail (a judge's checks: one F fails)",
            "accuracy": "passes / compared rows (%)",
            "resamples": self.resamples,
            "seed": self.seed,
            "sets": [c.as_dict() for c in self.comparisons],
        }


@contextmanager
def stored_verdict_sets(run_dir: Path) -> Iterator[tuple[Store, str, list[VerdictSet]]]:
    """A run directory's store opened read-only, with its run's id and verdict sets (what `cobe judges agree` and
    the audit's `--reference` read); a store without a run, or one that cannot be read, is one line."""
    store = ReadOnlyStore(find_store(run_dir), idle=lock_holder(run_dir) is None)
    try:
        row = store.latest_run()
        if row is None:
            raise InputError(f"{run_dir}: the store holds no run")
        yield store, row.id, verdict_sets(store, row.id)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{run_dir}: its store cannot be read ({exc})") from None
    finally:
        store.close()


def _statuses(store: Store, run_id: str, items: list[Item], ref: JudgeRef) -> Statuses:
    return {
        (row.model, row.scenario_id, row.template, row.epoch): (row.core_id, row.status)
        for row in iter_rows(store, run_id, items, ref)
    }


def _why_left_out(reference: str, other: str) -> str | None:
    """Why a row with these two statuses is not compared, or None when both scored it."""
    if "error" in (reference, other):
        return "errors"
    if "pending" in (reference, other):
        return "not_judged"
    ref_unscored, set_unscored = reference == "unscored", other == "unscored"
    if ref_unscored and set_unscored:
        return "unscored_both"
    if ref_unscored:
        return "unscored_reference"
    return "unscored_set" if set_unscored else None


def _compare(reference: Statuses, other: Statuses, verdict_set: VerdictSet, resamples: int, seed: int) -> SetComparison:
    left_out = dict.fromkeys(LEFT_OUT, 0)
    pairs, differences = [], []
    for key, (core, ref_status) in reference.items():
        model, scenario, template, epoch = key
        set_status = other[key][1]
        why = _why_left_out(ref_status, set_status)
        if why is not None:
            left_out[why] += 1
            continue
        ref_pass, set_pass = ref_status == "passed", set_status == "passed"
        pairs.append(
            {"model": model, "scenario_id": scenario, "core_id": core, "reference_pass": ref_pass, "set_pass": set_pass}
        )
        if ref_pass != set_pass:
            differences.append(
                {
                    "model": model,
                    "scenario_id": scenario,
                    "template": template,
                    "epoch": epoch,
                    "reference": ref_status,
                    "set": set_status,
                }
            )
    groups = set_agreement(pairs_frame(pairs), resamples=resamples, seed=seed)
    return SetComparison(verdict_set, groups, left_out, differences)


def _reference(sets: list[VerdictSet], which: str | None, run_dir: Path) -> VerdictSet:
    """The set named by --reference, else the run's one published set."""
    if which is not None:
        return choose(sets, which, run_dir, option="--reference")
    published = [v for v in sets if is_published(v.ref)]
    if len(published) == 1:
        return published[0]
    listing = "; ".join(f"{n} {set_name(v.ref)}" for n, v in enumerate(sets, 1)) or "none"
    found = "no published verdict set" if not published else f"{len(published)} published verdict sets"
    raise InputError(f"{run_dir}: holds {found}; name the reference with --reference SET, one of: {listing}")


def agree_verdict_sets(
    run_dir: str | Path, reference: str | None = None, *, resamples: int = 1000, seed: int = 0
) -> SetAgreementReport:
    """Every verdict set of `run_dir` against `reference` (a set's number, judge spec or fingerprint start;
    default: the run's published set), from the store and without a model call or a write."""
    from cobe.run.plan import plan_exports  # the plan module loads the providers' registry; only when needed

    run_dir = Path(run_dir)
    with stored_verdict_sets(run_dir) as (store, run_id, sets):
        if not sets:
            raise InputError(f"{run_dir}: no verdict set yet; judge it with `cobe judge {run_dir} --judge SPEC`")
        chosen = _reference(sets, reference, run_dir)
        others = [v for v in sets if v is not chosen]
        if not others:
            raise InputError(
                f"{run_dir}: holds no verdict set but the reference {set_name(chosen.ref)}; judge it with "
                f"`cobe judge {run_dir} --judge SPEC` and compare again"
            )
        items = plan_exports(store, run_dir).items
        ref_rows = _statuses(store, run_id, items, chosen.ref)
        report = SetAgreementReport(run_dir, chosen, len(ref_rows), resamples=resamples, seed=seed)
        for other in others:
            statuses = _statuses(store, run_id, items, other.ref)
            report.comparisons.append(_compare(ref_rows, statuses, other, resamples, seed))
        return report
