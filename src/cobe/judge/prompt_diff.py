"""`cobe judges diff`: how many verdicts flip when a run is judged with a second prompt set.

It reads the verdicts the store already holds for one judge (or panel) under each prompt set and
compares them response by response. With judges named explicitly it first has what either set lacks
judged by `rejudge` (the run pipeline's re-judge, `cobe.run.rejudge`, which keeps the run's exports
showing the judge they showed); without, it says in one line what is missing and calls nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from cobe.core.errors import InputError
from cobe.core.results import Verdict
from cobe.judge.judge_plan import JudgeRef, judge_ref, stored_ref
from cobe.judge.panel_analysis import verdict_diff
from cobe.judge.prompt_sets import JudgePromptSet, load_judge_prompts
from cobe.judge.shown import ShownVerdicts
from cobe.judge.specs import split_specs
from cobe.prompts.render import judged_text
from cobe.prompts.templates import Template
from cobe.store.damage import DamagedStore, excerpt, run_config
from cobe.store.directory import find_store
from cobe.store.store import Store


@dataclass
class JudgeDiff:
    """The verdicts of one judge under two prompt sets, compared: per check and overall."""

    run_dir: Path
    judge: str  # the judge's spec, or the panel's name
    samples: int
    prompts: tuple[str, str]
    responses: int  # responses a judge is shown (no respondent error, not cut off)
    table: pd.DataFrame  # cobe.judge.panel_analysis.verdict_diff: target, compared, flips, flip_rate, ...
    judged: dict[str, Any]  # this command's judging per prompt set: calls made, or {} when nothing was missing

    def records(self) -> list[dict[str, Any]]:
        """The comparison table as plain records (NaN as None)."""
        rows = self.table.to_dict("records")
        return [{str(k): (None if isinstance(v, float) and v != v else v) for k, v in r.items()} for r in rows]

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON for --json."""
        return {
            "run_dir": str(self.run_dir),
            "judge": self.judge,
            "samples": self.samples,
            "prompts": list(self.prompts),
            "responses": self.responses,
            "diff": self.records(),
            "judged": self.judged,
        }


def _prompt_sets(prompts: Sequence[str] | str) -> tuple[JudgePromptSet, JudgePromptSet]:
    names = [p.strip() for p in (prompts.split(",") if isinstance(prompts, str) else prompts) if p.strip()]
    if len(names) != 2 or names[0] == names[1]:
        raise InputError(f"--prompts {','.join(names) or '(none)'}: expected two prompt sets, e.g. paper,contextual")
    first, second = load_judge_prompts(names[0]), load_judge_prompts(names[1])
    return first, second


def _judges(
    store: Store, run_dir: Path, judge: str | Sequence[str] | None, samples: int | None
) -> tuple[list[str], int]:
    """The judge specs and samples to compare: the ones named, else those the run's exports show."""
    if judge:
        return split_specs([judge] if isinstance(judge, str) else list(judge)), samples or 1
    row = store.latest_run()
    if row is None or not row.judge:
        raise InputError(f"{run_dir}: no judge has judged this run yet; name one with --judge SPEC")
    try:
        shown = stored_ref(row.judge, row.judge_prompts or "", row.judge_fingerprint or "", row.judge_members)
    except ValueError as exc:
        raise DamagedStore(store.path, f"runs.judge_members is {excerpt(row.judge_members)}: {exc}") from None
    return [j.spec for j in shown.judges], samples or shown.samples


def _ref(specs: list[str], prompts: JudgePromptSet, samples: int) -> JudgeRef:
    return judge_ref([JudgeRef(spec, prompts.name, prompts.fingerprint) for spec in specs], samples)


class _Stored:
    """The responses a judge is shown and the verdicts each prompt set's judging holds on them."""

    def __init__(self, run_dir: Path, refs: tuple[JudgeRef, JudgeRef]) -> None:
        store = Store(find_store(run_dir))
        try:
            row = store.latest_run()
            if row is None:
                raise InputError(f"{run_dir}: the store holds no run")
            names = run_config(store.path, row)["template_names"]
            templates = {t.name: t for t in _templates(names)}
            self.response_ids = [
                r.id
                for r in store.responses(row.id).values()
                if r.error is None
                and r.template in templates
                and judged_text(templates[r.template], r.text or "", r.finish_reason).text is not None
            ]
            shown = [ShownVerdicts(store, row.id, ref) for ref in refs]
            self.verdicts = [{rid: s.of(rid) for rid in self.response_ids} for s in shown]
        finally:
            store.close()

    def missing(self, which: int) -> int:
        """Responses that prompt set's judging has not fully judged (a judge, check or sample missing)."""
        return sum(not v.complete for v in self.verdicts[which].values())

    def pairs(self) -> list[tuple[dict[str, Verdict | None], dict[str, Verdict | None]]]:
        """(verdicts under the first set, under the second) of every response both have judged."""
        first, second = self.verdicts
        return [
            (first[r].verdicts, second[r].verdicts)
            for r in self.response_ids
            if first[r].complete and second[r].complete
        ]


def _templates(names: list[str]) -> list[Template]:
    from cobe.prompts.render import select_templates

    return select_templates(names) if names else []


#: judges a run's missing verdicts: (judge specs, prompt set name, samples) → the command's judge call counts
Rejudge = Callable[[list[str], str, int], Awaitable[dict[str, Any]]]


async def compare_prompt_sets(
    run_dir: str | Path,
    prompts: Sequence[str] | str = ("paper", "contextual"),
    judge: str | Sequence[str] | None = None,
    *,
    judge_samples: int | None = None,
    rejudge: Rejudge | None = None,
) -> JudgeDiff:
    """Compare a run's verdicts under two judge prompt sets (per check: compared, flips, pass rates).

    `judge` names the judge (or panel), and what either set lacks is first judged through `rejudge`;
    without `judge` the run's own judge is compared, and anything missing is reported in one line instead.
    """
    run_dir = Path(run_dir)
    sets = _prompt_sets(prompts)
    store = Store(find_store(run_dir))
    try:
        specs, samples = _judges(store, run_dir, judge, judge_samples)
    finally:
        store.close()
    refs = (_ref(specs, sets[0], samples), _ref(specs, sets[1], samples))
    stored = _Stored(run_dir, refs)
    judged: dict[str, Any] = {}
    for which, prompt_set in enumerate(sets):
        left = stored.missing(which)
        if not left:
            continue
        if not judge or rejudge is None:
            raise InputError(
                f"{run_dir}: {left} of {len(stored.response_ids)} responses have no verdicts of {refs[which].spec} "
                f"with prompt set {prompt_set.name}; judge them with `cobe judge {run_dir} "
                + " ".join(f"--judge {s}" for s in specs)
                + f" --judge-prompts {prompt_set.name}`, or name the judge here with --judge to judge them now"
            )
        judged[prompt_set.name] = await rejudge(specs, prompt_set.name, samples)
    if judged:
        stored = _Stored(run_dir, refs)
    return JudgeDiff(
        run_dir=run_dir,
        judge=refs[0].spec,
        samples=samples,
        prompts=(sets[0].name, sets[1].name),
        responses=len(stored.response_ids),
        table=verdict_diff(stored.pairs()),
        judged=judged,
    )
