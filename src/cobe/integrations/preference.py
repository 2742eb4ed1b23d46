"""Preference pairs for DPO from judged runs: a passing and a failing response to the same query.

Every (scenario, template) that has at least one response passing all three checks and one
failing at least one gives one pair per passing × failing response, across the models and runs
given. Unscored and errored responses take no part: they are neither chosen nor rejected. The
file is JSON lines in the standard preference format (`prompt`, `chosen`, `rejected`) that
`datasets.load_dataset("json", data_files=...)` reads and TRL's DPO trainer takes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError
from cobe.core.files import atomic_open
from cobe.judge import CHECKS
from cobe.report.load import read_results, results_path


@dataclass
class PreferenceExport:
    """What `export_preference` wrote."""

    out: Path
    pairs: int
    queries: int  # scenario × template groups that gave at least one pair


def asked(row: dict[str, Any]) -> str:
    """The prompt the respondent was asked: as stored, else, for a tier-1 row imported without one (`cobe import
    --from verdicts --data`), the story and the dataset's query, exactly as cobe sends tier 1 (`respondent_messages`)."""
    if row.get("prompt"):
        return str(row["prompt"])
    if row.get("tier", 1) == 1 and row.get("story") and row.get("query"):
        return f"{row['story']}\n\n{row['query']}"
    return ""


def preference_pairs(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chosen/rejected pairs among result rows, in the rows' order."""
    groups: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = {}
    for row in rows:
        if row["status"] in ("passed", "failed") and row.get("response") is not None:
            group = groups.setdefault((row["scenario_id"], row["template"]), {"passed": [], "failed": []})
            group[row["status"]].append(row)
    pairs = []
    for (scenario_id, template), group in groups.items():
        for chosen in group["passed"]:
            for rejected in group["failed"]:
                pairs.append(
                    {
                        "prompt": asked(chosen) or asked(rejected),
                        "chosen": chosen["response"],
                        "rejected": rejected["response"],
                        "scenario_id": scenario_id,
                        "template": template,
                        "chosen_model": chosen["model"],
                        "rejected_model": rejected["model"],
                        "rejected_failed_checks": [c for c in CHECKS if rejected["verdicts"].get(c) == "F"],
                        "judge": chosen.get("judge"),
                    }
                )
    return pairs


def export_preference(runs: Sequence[str | Path], out: str | Path) -> PreferenceExport:
    """Write the preference pairs of one or many run directories to a JSON-lines file."""
    files = dict.fromkeys(results_path(run).resolve() for run in runs)  # a run named twice counts once
    rows = [row for path in files for row in read_results(path)]
    judges = {row["judge"] for row in rows if row["status"] in ("passed", "failed")}
    if len(judges) > 1:
        raise InputError(
            f"the runs were judged by different judges ({', '.join(sorted(map(str, judges)))}); "
            "pairs must compare verdicts of one judge"
        )
    pairs = preference_pairs(rows)
    unasked = next((p for p in pairs if not p["prompt"]), None)
    if unasked is not None:  # a pair without its prompt cannot train anything
        raise InputError(
            f"scenario {unasked['scenario_id']} template {unasked['template']}: the run holds no prompt or story "
            "for it; import the verdicts with --data naming the dataset, so each pair carries what was asked"
        )
    if not pairs:
        raise InputError(
            "no query has both a passing and a failing response; pairs need several responses to the same "
            "scenario and template (give runs of several models, or a run with several models)"
        )
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(target) as handle:
        for pair in pairs:
            handle.write(json.dumps(pair, ensure_ascii=False) + "\n")
    queries = len({(p["scenario_id"], p["template"]) for p in pairs})
    return PreferenceExport(target, len(pairs), queries)
