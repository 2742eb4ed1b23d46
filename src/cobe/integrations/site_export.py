"""`cobe export RUN… --to cobe-site OUT/`: runs written as the project site publishes its own results.

Two files, in the site's shapes (DESIGN.md, "Real CoBe files"), so `cobe import --from cobe-site` and the site
itself read them:

- `eval-statistics.json`: per model, `{correct, wrong, unknown, total, accuracy}` in `overall`, `by_domain` and
  `by_graph` (graph keys spelled as the site spells them, `Chain-like` … `Hydrid`), with `notes` stating the rule:
  accuracy = correct / (correct + wrong), a share to 4 places, from cobe.score's pooled figure;
- `category-examples.json`: up to `examples_per_category` examples per domain and per graph type, each a site
  row (`example_id`, `coreset_id`, `variation_id`, `query_idx`, `original`, `query`, `gold_answer`,
  `should_not_change`, `should_change`) with `model_outputs` → model → `{response, verdict}`; the group key is
  the label, as on the site, so an example carries no domain or graph field.

A passed row is `correct`, a failed one `wrong`, and an unscored, errored or pending one `unknown`: the site's
words. The site's files hold the three phrasings of tier 1 (query_idx 2, 5, 7); rows of other tiers are left
out and counted.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError
from cobe.core.files import atomic_write, check_output, ensure_dir
from cobe.dataset.schema import UNKNOWN_DOMAIN, Scenario
from cobe.dataset.writers import to_site_rows
from cobe.integrations.source import RunExport, load_run

#: the site's spelling of each graph type (`Hydrid` sic), as its files key them
GRAPH_KEYS = {
    "chain": "Chain-like",
    "collider": "Collider-like",
    "correlated": "Correlated",
    "diamond": "Diamond-like",
    "fork": "Fork-like",
    "hybrid": "Hydrid",
}
VERDICT_WORDS = {"passed": "correct", "failed": "wrong"}  # any other status has no verdict: unknown
STATISTICS, EXAMPLES = "eval-statistics.json", "category-examples.json"
EXPORTED_BY = "cobe export --to cobe-site"


@dataclass
class SiteExport:
    """What `export_site` wrote."""

    out: Path
    files: list[Path]
    models: list[str]
    items: int  # rows counted in the totals
    examples: int  # examples in category-examples.json (one example may sit in a domain and a graph type)
    ungrouped: int = 0  # examples with neither a domain nor a graph type: in the totals, in no group
    other_tiers: int = 0  # rows of tiers 2-4, which the site's files do not hold
    notes: list[str] = field(default_factory=list)


def _word(status: str) -> str:
    return VERDICT_WORDS.get(status, "unknown")


def _runs(paths: Sequence[str | Path]) -> list[RunExport]:
    runs: list[RunExport] = []
    owner: dict[str, str] = {}
    for path in paths:
        run = load_run(path)
        for model in run.models:
            if model in owner:
                raise InputError(f"{path}: model {model!r} is also in {owner[model]}; the site's files hold one "
                                 "answer per model and query, so export each model from one run")  # fmt: skip
            owner[model] = str(path)
        runs.append(run)
    return runs


def _counts(rows: list[dict[str, Any]], key: str | None) -> dict[str, dict[str, dict[str, Any]]]:
    """group → model → {correct, wrong, unknown, total, accuracy}; the accuracy is cobe.score's pooled rate."""
    from cobe.score.accuracy import pooled_accuracy, rows_frame

    groups: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for row in rows:
        group = "all" if key is None else _group(row, key)
        if group is not None:
            groups[group][str(row["model"])][_word(str(row["status"]))] += 1
    frame = rows_frame([{**row, "_group": "all" if key is None else _group(row, key)} for row in rows])
    frame = frame[frame["_group"].notna()]
    rates = {
        (str(r["_group"]), str(r["model"])): r["pooled_accuracy"]
        for r in pooled_accuracy(frame, by=["_group", "model"]).to_dict("records")
    }
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for group in sorted(groups):
        for model in sorted(groups[group]):
            words = groups[group][model]
            rate = rates.get((group, model))
            out.setdefault(group, {})[model] = {
                "correct": words["correct"],
                "wrong": words["wrong"],
                "unknown": words["unknown"],
                "total": sum(words.values()),
                "accuracy": None if rate is None or rate != rate else round(rate / 100.0, 4),
            }
    return out


def _group(row: dict[str, Any], key: str) -> str | None:
    value = row.get(key)
    if not isinstance(value, str) or not value or (key == "domain" and value == UNKNOWN_DOMAIN):
        return None  # cobe's word for a scenario without a domain is no domain of the site's
    return GRAPH_KEYS.get(value, value) if key == "graph_type" else value


def statistics(rows: list[dict[str, Any]], runs: list[RunExport]) -> dict[str, Any]:
    """eval-statistics.json of the rows."""
    judges = {model: run.judge.described() for run in runs for model in run.models}
    return {
        "overall": _counts(rows, None)["all"],
        "by_domain": _counts(rows, "domain"),
        "by_graph": _counts(rows, "graph_type"),
        "notes": {
            "accuracy": "correct / (correct + wrong)",
            "unknown": "rows with no verdict: unscored, errored or not yet judged",
            "query_indices": [2, 5, 7],
            "exported_by": EXPORTED_BY,
            "runs": [run.run_id for run in runs],
            "verdicts": judges,
        },
    }


def _example(run: RunExport, row: dict[str, Any]) -> dict[str, Any]:
    """The site row of a result row's scenario and query (from the run's store, else from the row itself)."""
    doc = run.scenarios.get(str(row["scenario_id"]))
    if doc is not None:
        scenario = Scenario.model_validate(doc)
        site = to_site_rows(scenario)[scenario.phrasings.index(str(row["template"]))]
    else:
        index = {"A": 2, "B": 5, "C": 7}.get(str(row["template"]))
        site = {"example_id": row["scenario_id"], "coreset_id": row["core_id"], "variation_id": row["variation"],
                "query_idx": index, "original": row["story"], "query": row["query"], "gold_answer": None,
                "should_not_change": list(row["preserve"]), "should_change": list(row["change"])}  # fmt: skip
    site.pop("domain", None)  # the group key is the label, as on the site
    return site


def examples(runs: list[RunExport], rows_of: dict[str, list[dict[str, Any]]], per_category: int) -> dict[str, Any]:
    """category-examples.json: up to `per_category` examples per domain and per graph type."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    groups: dict[tuple[str, str], set[str]] = {}  # example → ("by_domain" | "by_graph", key)
    for run in runs:
        for row in rows_of[run.run_id]:
            key = (str(row["scenario_id"]), str(row["template"]))
            if key not in found:
                found[key] = _example(run, row) | {"model_outputs": {}}
                groups[key] = set()
            found[key]["model_outputs"][str(row["model"])] = {
                "response": row.get("response") or "",
                "verdict": _word(str(row["status"])),
            }
            for scope, column in (("by_domain", "domain"), ("by_graph", "graph_type")):
                group = _group(row, column)
                if group is not None:
                    groups[key].add(f"{scope}\t{group}")
    nested: dict[str, dict[str, list[dict[str, Any]]]] = {"by_domain": {}, "by_graph": {}}
    order = sorted(found, key=lambda k: (found[k]["coreset_id"], found[k]["variation_id"], found[k]["query_idx"] or 0))
    for key in order:
        for label in sorted(groups[key]):
            scope, group = label.split("\t")
            chosen = nested[scope].setdefault(group, [])
            if len(chosen) < per_category:
                chosen.append(found[key])
    ungrouped = sum(1 for key in found if not groups[key])
    return {"examples_per_category": per_category, **nested, "_ungrouped": ungrouped}


def export_site(runs: Sequence[str | Path], out: str | Path, examples_per_category: int = 10) -> SiteExport:
    """Write `eval-statistics.json` and `category-examples.json` of the runs' tier-1 rows under the folder `out`."""
    if examples_per_category < 1:
        raise InputError(f"--examples-per-category: {examples_per_category}; expected 1 or more")
    loaded = _runs(runs)
    rows_of = {run.run_id: [r for r in run.rows if int(r.get("tier") or 1) == 1] for run in loaded}
    rows = [row for run in loaded for row in rows_of[run.run_id]]
    other_tiers = sum(len(run.rows) for run in loaded) - len(rows)
    if not rows:
        raise InputError(f"{', '.join(map(str, runs))}: no tier-1 rows; the site's files hold phrasings A, B, C only")
    folder = ensure_dir(Path(out), "folder for the site's files")
    targets = [folder / STATISTICS, folder / EXAMPLES]
    for target in targets:
        if target.exists():
            raise InputError(f"{target}: already exists; cobe never replaces a site file, so choose another folder")
        check_output(target, "a site file")
    nested = examples(loaded, rows_of, examples_per_category)
    ungrouped = nested.pop("_ungrouped")
    atomic_write(targets[0], json.dumps(statistics(rows, loaded), indent=2, ensure_ascii=False) + "\n", shared=True)
    atomic_write(targets[1], json.dumps(nested, indent=2, ensure_ascii=False) + "\n", shared=True)
    count = len({id(e) for scope in ("by_domain", "by_graph") for group in nested[scope].values() for e in group})
    result = SiteExport(folder, targets, sorted({str(r["model"]) for r in rows}), len(rows), count, ungrouped,
                        other_tiers)  # fmt: skip
    if ungrouped:
        result.notes.append(f"{ungrouped} examples have neither a domain nor a graph type: counted in the totals' "
                            f"overall, in no group of {EXAMPLES}")  # fmt: skip
    if other_tiers:
        result.notes.append(f"{other_tiers} rows of tiers 2-4 left out: the site's files hold phrasings A, B, C only")
    return result
