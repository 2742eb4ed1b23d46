"""A run's verdict sets: every judge (panel, or prompt set) whose verdicts its store holds, which one its
exports show now, and making an earlier one current again without a model call.

Re-judging never overwrites: each judge's verdicts sit beside the others' in the store, under its spec
and prompt fingerprint. The run names the set its exports show (runs.judge …) and remembers every set it
has shown (the `verdict_sets` table, with a panel's members); sets never shown (a panel's members one by
one, the other prompt set of `cobe judges diff`) are read from the verdicts themselves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError
from cobe.core.lock import directory_lock, lock_holder
from cobe.core.reserve import disk_reserve
from cobe.judge.judge_plan import JudgeRef, stored_ref
from cobe.judge.published import is_published
from cobe.models.base import GenerateConfig
from cobe.models.capabilities import ModelCapabilities
from cobe.models.model_args import ModelArgs
from cobe.run.config import RunSummary
from cobe.run.judged_part import JudgedPart, stored_part
from cobe.run.resume import StoredWork
from cobe.store.damage import DamagedStore, excerpt, reading, text_field
from cobe.store.directory import find_store
from cobe.store.rows import RunRow, VerdictSetRow
from cobe.store.store import ReadOnlyStore, Store, now


@dataclass(frozen=True)
class VerdictSet:
    """One judge's (or panel's) verdicts on a run."""

    ref: JudgeRef
    responses: int  # responses every check of which it answered (a panel: the fewest of any member)
    current: bool  # the set the run's exports show
    shown: str | None  # when it last became the run's current set; None: never shown
    part: JudgedPart = field(default_factory=JudgedPart)  # the part of the run it was last asked to judge

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: judge, prompt set, fingerprint, members and samples, counts, current."""
        return {
            "judge": self.ref.spec,
            "judge_prompts": self.ref.prompt_set,
            "judge_fingerprint": self.ref.identity,
            "members": [m.spec for m in self.ref.judges] if self.ref.combined else [],
            "samples": self.ref.samples,
            "responses": self.responses,
            "current": self.current,
            "shown": self.shown,
            "part": None if self.part.whole else self.part.described(),
        }


def stored_judge(store: Store) -> JudgeRef | None:
    """The verdict set the store's run shows now, or None before any judge."""
    row = store.latest_run()
    if row is None or not row.judge:
        return None
    return _stored_ref(store, "runs", row, row.judge_fingerprint, "judge_members", row.judge_members)


def _stored_ref(
    store: Store, table: str, row: RunRow | VerdictSetRow, identity: str | None, members: str, listed: str | None
) -> JudgeRef:
    """A judge as a stored row names it (a run's, or one of its verdict sets': its `identity`, and its `members`
    column `listed`); a damaged row is one line."""
    spec = text_field(store.path, row, table, "judge")
    assert spec is not None  # text_field refuses NULL unless asked
    try:
        return stored_ref(spec, row.judge_prompts or "", identity or "", listed)  # migration 0009 reads NULL as ""
    except ValueError as exc:
        raise DamagedStore(store.path, f"{table}.{members} of {spec} is {excerpt(listed)}: {exc}") from None


def describe_judge(ref: JudgeRef) -> str:
    """A verdict set in words: `spec (prompts NAME)`, with a judge's samples where it has several; a source's own
    set by its name alone."""
    if is_published(ref):
        return ref.spec
    samples = f", {ref.samples} samples" if ref.samples > 1 else ""
    return f"{ref.spec} (prompts {ref.prompt_set}{samples})"


def replaced_notice(before: JudgeRef, after: JudgeRef, run_dir: Path) -> str:
    """The line saying which verdict set a judge replaced as the one the run shows, and how to go back."""
    return (
        f"{run_dir} now shows the verdicts of {describe_judge(after)} instead of {describe_judge(before)}; "
        f"both sets are kept (`cobe runs {run_dir} --verdict-sets` lists them, "
        f"`cobe judge {run_dir} --show {before.spec}` makes the earlier one current again)"
    )


def make_current(
    store: Store, run_id: str, ref: JudgeRef, part: JudgedPart | None = None, *, keep_part: bool = False
) -> JudgeRef | None:
    """Record `ref` as the verdict set the run shows, judged on `part` (None: the whole run; `keep_part`: as it
    was, for a set shown again); returns the set it replaced, where it was another."""
    before = stored_judge(store)
    recorded = part.to_json() if part is not None else None
    store.set_judge(run_id, ref.spec, ref.prompt_set, ref.identity, ref.members_json(), recorded, keep_part=keep_part)
    return before if before is not None and not _same(before, ref) else None


def verdict_sets(store: Store, run_id: str) -> list[VerdictSet]:
    """Every verdict set of a run: the current one first, then those shown before (latest first), then the rest."""
    current = stored_judge(store)
    judged = {(r.judge, r.prompt_fingerprint): r for r in store.judged_sets(run_id)}

    def answered(ref: JudgeRef) -> int:
        counts = [
            judged[(j.spec, j.fingerprint)].responses if (j.spec, j.fingerprint) in judged else 0 for j in ref.judges
        ]
        return min(counts)

    sets: dict[tuple[str, str], VerdictSet] = {}
    for row in store.verdict_sets(run_id):
        ref = _stored_ref(store, "verdict_sets", row, row.identity, "members", row.members)
        shown = text_field(store.path, row, "verdict_sets", "shown")
        part = stored_part(row)
        sets[(ref.spec, ref.identity)] = VerdictSet(ref, answered(ref), _same(ref, current), shown, part)
    for (spec, fingerprint), found in judged.items():
        if (spec, fingerprint) not in sets:
            ref = JudgeRef(spec, found.prompt_set, fingerprint)
            sets[(spec, fingerprint)] = VerdictSet(ref, found.responses, _same(ref, current), None)
    if current is not None and (current.spec, current.identity) not in sets:  # a store made before the list
        sets[(current.spec, current.identity)] = VerdictSet(current, answered(current), True, None)
    latest_first = sorted(sets.values(), key=lambda v: v.shown or "", reverse=True)
    return sorted(latest_first, key=lambda v: (not v.current, v.shown is None))  # a stable sort keeps the order


def _same(ref: JudgeRef, other: JudgeRef | None) -> bool:
    return other is not None and (ref.spec, ref.identity) == (other.spec, other.identity)


def list_verdict_sets(run_dir: str | Path) -> list[VerdictSet]:
    """The verdict sets of a run directory's run (`cobe runs RUN --verdict-sets`), read without writing there."""
    run_dir = Path(run_dir)
    path = find_store(run_dir)
    with reading(path):
        store = ReadOnlyStore(path, idle=lock_holder(run_dir) is None)
        try:
            row = store.latest_run()
            return verdict_sets(store, row.id) if row is not None else []
        finally:
            store.close()


def choose(sets: list[VerdictSet], which: str, run_dir: Path, option: str = "--show") -> VerdictSet:
    """The set `which` (given as `option`) names: its number in the listing, its judge spec, or the start of
    its fingerprint."""
    listing = "; ".join(f"{n} {describe_judge(v.ref)} [{v.ref.identity}]" for n, v in enumerate(sets, 1))
    if not sets:
        raise InputError(f"{run_dir}: no verdict set yet; judge it with `cobe judge {run_dir} --judge SPEC`")
    if which.isascii() and which.isdigit() and 1 <= int(which) <= len(sets):  # "²" is a digit int() refuses
        return sets[int(which) - 1]
    found = [v for v in sets if v.ref.spec == which] or [
        v for v in sets if len(which) >= 4 and v.ref.identity.startswith(which)
    ]
    if len(found) == 1:
        return found[0]
    problem = f"names {len(found)} verdict sets" if found else "names no verdict set"
    raise InputError(f"{option} {which}: {problem} of {run_dir}; give its number or fingerprint from: {listing}")


def show_verdict_set(run_dir: str | Path, which: str) -> RunSummary:
    """Make one of a run's verdict sets the one its exports show, and rewrite them; no model is called."""
    from cobe.run.export import write_exports  # pandas, for the summaries: not on a run's way to its first call
    from cobe.run.plan import plan_exports  # the plan module loads providers' registry; only when needed

    run_dir = Path(run_dir)
    path = find_store(run_dir)
    start = time.perf_counter()
    with directory_lock(run_dir, "judge"), disk_reserve(run_dir) as reserve, reading(path):
        store = Store(path)
        store.reserve = reserve
        try:
            plan = plan_exports(store, run_dir)
            assert plan.run_id is not None  # a stored run's plan names its run
            chosen = choose(verdict_sets(store, plan.run_id), which, run_dir)
            ref = chosen.ref
            before = make_current(store, plan.run_id, ref, keep_part=True)
            plan.recorded_judges = recorded_judges(store, plan.run_id, ref)  # the Settings block keeps its judges
            state = _run_row(store).state
            wall = time.perf_counter() - start
            fields = plan.summary_fields() | {
                "state": state,
                "command": {"name": "judge", "calls": {}, "wall_s": round(wall, 3)},
                "updated": now(),
            }
            notices = list(plan.notices)
            summary = write_exports(run_dir, store, plan.run_id, plan.items, ref, fields, notices)
            state = str(summary.get("state", state))  # the set shown now may measure a model the last did not
            left = StoredWork(store, plan.run_id, ref)
            unfinished = sum(1 for item in plan.items if not left.judged(item))
        finally:
            store.close()
    if before is not None:
        notices.append(replaced_notice(before, ref, run_dir))
    if unfinished:
        notices.append(
            f"{describe_judge(ref)} has not judged {unfinished} of {len(plan.items)} items; "
            f"`cobe judge {run_dir} --judge {ref.spec}` judges them"
        )
    return RunSummary(
        run_dir=run_dir,
        run_id=plan.run_id,
        state=state,
        models=sorted({i.model for i in plan.items}),
        judge=ref.spec,
        judge_prompts=ref.prompt_set,
        summary=summary,
        wall_s=time.perf_counter() - start,
        items=len(plan.items),
        unfinished=unfinished,
        notices=notices,
        replaced=describe_judge(before) if before is not None else None,
    )


def recorded_judges(store: Store, run_id: str, ref: JudgeRef) -> dict[str, tuple[ModelCapabilities, GenerateConfig]]:
    """Each judge of a verdict set as its stored verdicts say it was asked, where that is readable."""
    models = ModelArgs()
    found = {}
    for judge in ref.judges:
        text = store.judge_settings(run_id, judge.spec, judge.fingerprint)
        if text is None or text.strip() == "{}":  # "{}": verdicts imported with no settings (a site's published ones)
            continue
        try:
            found[judge.spec] = (models.capabilities(judge.spec), GenerateConfig.model_validate_json(text))
        except (InputError, ValueError):
            continue  # a judge no row fits any more is left out of the block, never a reason to stop
    return found


def _run_row(store: Store) -> RunRow:
    row = store.latest_run()
    assert row is not None  # the plan found it
    return row
