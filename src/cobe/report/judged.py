"""Who judged each run of a report or comparison, and the one line that says when they differ.

Ranking a run judged by one judge (or prompt set) against a run judged by another compares judges as
much as models, so `cobe report A B` and `cobe compare A B` refuse it unless asked (`--across-judges`),
and then say on every table how the runs were judged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from cobe.core.errors import InputError
from cobe.core.jsonfile import FileProblem, read_json

SUMMARY_FILE = "summary.json"
#: the flag that lets runs judged differently be ranked together
ACROSS_JUDGES = "--across-judges"


@dataclass(frozen=True, order=True)
class Judged:
    """One run's judge: spec (or panel name), prompt set and the prompt fingerprint where the run recorded it."""

    judge: str | None
    prompts: str | None
    fingerprint: str | None = None

    def __str__(self) -> str:
        if self.judge is None:
            return "no judge"
        shown = f" {self.fingerprint}" if self.fingerprint else ""
        return f"{self.judge} (prompts {self.prompts or '–'}{shown})"

    def same(self, other: Judged) -> bool:
        """Alike: one judge and prompt set; fingerprints count only where both runs recorded one."""
        if (self.judge, self.prompts) != (other.judge, other.prompts):
            return False
        return self.fingerprint is None or other.fingerprint is None or self.fingerprint == other.fingerprint


def _fingerprint(directory: Path, judge: str | None) -> str | None:
    """The judge fingerprint a run's summary.json records for `judge`, or None."""
    path = directory / SUMMARY_FILE
    if judge is None or not path.is_file():
        return None
    try:
        data = read_json(path, "a run summary (JSON)")
    except FileProblem:
        return None
    if not isinstance(data, dict) or data.get("judge") != judge:
        return None
    found = data.get("judge_fingerprint")
    return str(found) if found else None


def run_judges(frame: pd.DataFrame) -> dict[str, list[Judged]]:
    """Each run directory of a results frame (its `source` column) → the judges its rows name."""
    if frame.empty:
        return {}
    columns = [c for c in ("judge", "judge_prompts") if c in frame.columns]
    found: dict[str, list[Judged]] = {}
    for source, part in frame.groupby("source", sort=False):
        pairs = part[columns].drop_duplicates().itertuples(index=False) if columns else [()]
        judges = []
        for pair in pairs:
            judge = _text(pair[0]) if len(pair) > 0 else None
            prompts = _text(pair[1]) if len(pair) > 1 else None
            judges.append(Judged(judge, prompts, _fingerprint(Path(str(source)), judge)))
        found[str(source)] = sorted(set(judges), key=lambda j: (str(j.judge), str(j.prompts), str(j.fingerprint)))
    return found


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def judge_difference(judges: dict[str, list[Judged]]) -> str | None:
    """None when every run was judged alike; else one line naming each run's judge."""
    every = [j for listed in judges.values() for j in listed]
    if all(j.same(every[0]) for j in every[1:]):
        return None
    named = "; ".join(f"{run}: {', '.join(str(j) for j in listed)}" for run, listed in judges.items())
    return f"the runs were judged differently ({named})"


def require_alike(judges: dict[str, list[Judged]], across: bool, what: str = "ranking") -> str | None:
    """The difference line where runs were judged differently and `across` allows it; an InputError naming
    the judges (exit 2) where it does not; None when they were judged alike."""
    difference = judge_difference(judges)
    if difference is None or across:
        return difference
    raise InputError(
        f"{difference}: a {what} across judges measures the judges as much as the models; "
        f"judge them alike (`cobe judge RUN --judge SPEC`) or pass {ACROSS_JUDGES}"
    )


def judges_of(paths: Sequence[str | Path], frames: Iterable[pd.DataFrame]) -> dict[str, list[Judged]]:
    """Each given run → its judges, from frames loaded one run at a time (as `cobe compare` loads them)."""
    out: dict[str, list[Judged]] = {}
    for path, frame in zip(paths, frames):
        for judged in run_judges(frame).values():
            out.setdefault(str(path), []).extend(judged)
    return out
