"""Which data each run of a report was run on, and the one line that says when runs differ in it.

Ranking a run on one dataset (or one set of scenarios) against a run on another compares the scenarios as
much as the models: a model is not better for having met easier stories. So `cobe report A B` refuses it
unless asked (`--across-data`), and then says on every table what each run was run on. Runs count as on
the same data when they hold the same scenario ids, each with the same story and criteria; the data's name
(summary.json's `data`) only names it in the line.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from cobe.core.errors import InputError
from cobe.core.jsonfile import FileProblem, read_json

SUMMARY_FILE = "summary.json"
#: the flag that lets runs on different data be ranked together
ACROSS_DATA = "--across-data"
#: what a scenario is, as its result rows carry it: two runs agree on a scenario when these agree
_CONTENT = ("story", "preserve", "change")


@dataclass(frozen=True)
class RunData:
    """One run's data: its name (where recorded) and each scenario id → a digest of its story and criteria."""

    name: str | None
    scenarios: dict[str, str]

    def __str__(self) -> str:
        count = len(self.scenarios)
        return f"data {self.name or 'unnamed'}, {count} scenario{'' if count == 1 else 's'}"


def _name(directory: Path) -> str | None:
    """The data a run's summary.json names (`--data` as given), or None."""
    path = directory / SUMMARY_FILE
    if not path.is_file():
        return None
    try:
        data = read_json(path, "a run summary (JSON)")
    except FileProblem:
        return None
    found = data.get("data") if isinstance(data, dict) else None
    return str(found) if found else None


def _digest(content: list[object]) -> str:
    text = json.dumps([c if isinstance(c, (str, list)) else None for c in content], default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run_data(frame: pd.DataFrame) -> dict[str, RunData]:
    """Each run directory of a results frame (its `source` column) → the data its rows were run on."""
    if frame.empty:
        return {}
    found: dict[str, RunData] = {}
    for source, part in frame.groupby("source", sort=False):
        first = part.drop_duplicates("scenario_id")
        # the columns as plain lists: a Series built per row (iterrows) cost a tenth of every run's report
        content = [first[name].tolist() if name in first else [None] * len(first) for name in _CONTENT]
        digests = {str(sid): _digest(told) for sid, *told in zip(first["scenario_id"].tolist(), *content)}
        found[str(source)] = RunData(_name(Path(str(source))), digests)
    return found


def _how(a: RunData, b: RunData) -> str:
    """How two runs' scenarios differ, in a few words."""
    shared = a.scenarios.keys() & b.scenarios.keys()
    changed = sum(a.scenarios[s] != b.scenarios[s] for s in shared)
    if changed:
        return f"{changed} scenario{'' if changed == 1 else 's'} of the same id told differently"
    return f"{len(shared)} scenario{'' if len(shared) == 1 else 's'} in common"


def data_difference(data: dict[str, RunData]) -> str | None:
    """None when every run was run on the same scenarios; else one line naming each run's data."""
    runs = list(data.items())
    first_run, first = runs[0]
    for run, other in runs[1:]:
        if other.scenarios != first.scenarios:
            return f"the runs were run on different data ({first_run}: {first}; {run}: {other}; {_how(first, other)})"
    return None


def require_same_data(data: dict[str, RunData], across: bool, what: str = "ranking") -> str | None:
    """The difference line where runs were run on different data and `across` allows it; an InputError naming
    both (exit 2) where it does not; None when they were run on the same scenarios."""
    difference = data_difference(data) if len(data) > 1 else None
    if difference is None or across:
        return difference
    raise InputError(
        f"{difference}: a {what} across data measures the scenarios as much as the models; "
        f"run the models on the same scenarios (`cobe eval --data ...`) or pass {ACROSS_DATA}"
    )
