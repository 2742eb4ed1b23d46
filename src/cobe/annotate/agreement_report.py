"""Judge–human agreement for a rating study: load labels, join them to a run, report and save.

The arithmetic lives in `cobe.score.agreement`; this module only gathers the inputs (a study file
or a CSV of ratings, plus the run's results.jsonl), lays out the report and writes agreement.json.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cobe.core.errors import InputError
from cobe.core.jsonfile import read_csv
from cobe.core.results import CHECKS, ResultRow
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS

if TYPE_CHECKING:
    from cobe.core.progress import Progress
    from cobe.dataset.schema import Scenario

from cobe.score.agreement import (
    RATER_ANSWER_FAILS,
    agreement_metrics,
    binary_metrics,
    bootstrap_ci,
    majority_label,
)

AGREEMENT_FILE = "agreement.json"
CHECK_CHOICES: tuple[str, ...] = ("overall", *CHECKS)
CI_METRICS: tuple[str, ...] = ("accuracy", "precision", "recall", "f1", "kappa")
_LABELS = {"yes": "Yes", "no": "No", "other": "Other"}


@dataclass(frozen=True)
class HumanLabel:
    """One rater's answer on one item (item = 'scenario_id:template:model')."""

    rater: str
    item: str
    label: str
    comment: str = ""


def row_key(row: ResultRow) -> str:
    """The item key of a run row."""
    return f"{row.scenario_id}:{row.template}:{row.model}"


def labels_from_study(study: str | Path) -> list[HumanLabel]:
    """Every saved answer of a study."""
    from cobe.annotate.store import StudyStore

    return [HumanLabel(r.rater, r.item_key, r.label, r.comment) for r in StudyStore(study).all_ratings()]


def study_panel(study: str | Path) -> list[str]:
    """Every rater of a study, whether or not they have answered yet (the panel a majority is out of)."""
    from cobe.annotate.store import StudyStore

    return [p.name for p in StudyStore(study).principals() if p.role == "rater"]


def _study_near(path: Path, run_dir: Path | None) -> Path | None:
    """A study file that can translate numeric item ids: next to the CSV, or the run's default study."""
    for candidate in [path.parent / "study.sqlite", *([run_dir / "study" / "study.sqlite"] if run_dir else [])]:
        if candidate.is_file():
            return candidate
    return None


def labels_from_csv(path: str | Path, run_dir: str | Path | None = None) -> list[HumanLabel]:
    """Answers from a CSV with columns rater, item, label[, comment]; item is a key or a study item id."""
    path = Path(path)
    header, rows = read_csv(path, "a CSV of ratings (rater, item, label[, comment])")
    records = [record for _, record in rows]
    fields = set(header) if records else set()
    missing = {"rater", "item", "label"} - fields
    if records and missing:
        raise InputError(
            f"{path}: missing column(s) {', '.join(sorted(missing))}; expected rater, item, label, comment"
        )
    ids: dict[str, str] | None = None
    labels: list[HumanLabel] = []
    seen: set[tuple[str, str]] = set()
    for line, record in enumerate(records, start=2):
        rater, item = (record["rater"] or "").strip(), (record["item"] or "").strip()
        label = _LABELS.get((record["label"] or "").strip().lower())
        if not rater or not item:
            raise InputError(f"{path}:{line}: empty rater or item")
        if label is None:
            raise InputError(f"{path}:{line}: label {record['label']!r}: expected Yes, No or Other")
        if item.isdigit():
            if ids is None:
                study = _study_near(path, Path(run_dir) if run_dir else None)
                if study is None:
                    raise InputError(
                        f"{path}:{line}: item {item} is a study item id but no study.sqlite was found next to the CSV or in <RUN>/study; use scenario_id:template:model keys"
                    )
                from cobe.annotate.store import StudyStore

                ids = {str(it.id): it.key for it in StudyStore(study).items()}
            if item not in ids:
                raise InputError(f"{path}:{line}: item {item} is not in the study")
            item = ids[item]
        if (rater, item) in seen:
            raise InputError(f"{path}:{line}: {rater} rated item {item} twice")
        seen.add((rater, item))
        comment = (record.get("comment") or "").strip()
        if comment[:2] in {"'=", "'+", "'-", "'@"}:
            comment = comment[1:]  # undo the export's spreadsheet-safety prefix
        labels.append(HumanLabel(rater, item, label, comment))
    if not labels:
        raise InputError(f"{path}: no ratings in the file")
    return labels


def judge_fails(row: ResultRow, check: str) -> bool | None:
    """Whether the judge failed the row on `check` ('overall' = the pass rule); None when unscored."""
    if check == "overall":
        return None if row.passed is None else not row.passed
    verdict = row.verdicts.get(check)
    return None if verdict is None else verdict == "F"


def agreement_report(
    labels: list[HumanLabel],
    rows: list[ResultRow],
    *,
    check: str = "overall",
    resamples: int = 1000,
    seed: int = 0,
    panel: Sequence[str] = (),
) -> dict[str, Any]:
    """Judge vs. human majority (failure positive) with bootstrap CIs, rater agreement, and the disagreements.

    The majority is out of the whole panel: `panel` (a study's raters) plus anyone who answered, so
    a rater who has not answered an item abstains on it. Items without a majority are listed in
    `no_majority_items` and left out of every figure.
    """
    if check not in CHECK_CHOICES:
        raise InputError(f"--check {check!r}: expected one of {', '.join(CHECK_CHOICES)}")
    rated = _RatedItems.gather(labels, rows, panel)
    items, raters, by_key = rated.items, rated.raters, rated.by_key
    table = [[rated.per_item[item][r].label if r in rated.per_item[item] else None for r in raters] for item in items]
    verdicts = [by_key[item].passed if check == "overall" else by_key[item].verdicts.get(check) for item in items]

    metrics = agreement_metrics(verdicts, table)
    majorities = [majority_label(row_labels) for row_labels in table]
    no_majority: list[dict[str, Any]] = [
        {"item": item, "labels": {r: label for r, label in zip(raters, row_labels) if label is not None}}
        for item, row_labels, majority in zip(items, table, majorities)
        if majority is None
    ]
    split = sum({"Yes", "No"} <= set(entry["labels"].values()) for entry in no_majority)
    metrics.update(
        check=check,
        raters=len(raters),
        ratings=sum(len(v) for v in rated.per_item.values()),
        other_labels=sum(1 for label in labels if label.label == "Other"),
        no_majority_split=split,
        no_majority_abstained=len(no_majority) - split,
        not_in_run=len(rated.not_in_run),
    )
    pairs = [
        (judged, RATER_ANSWER_FAILS[majority])
        for item, majority in zip(items, majorities)
        if majority is not None and (judged := judge_fails(by_key[item], check)) is not None
    ]
    ci = _intervals(pairs, resamples, seed)
    for name, interval in ci.items():  # flat copies too: the HTML report shows only the scalar entries of "metrics"
        metrics[f"{name}_ci_low"], metrics[f"{name}_ci_high"] = interval if interval else (None, None)
    disagreements, by_check = _disagreements(items, majorities, by_key, rated.per_item, raters)
    return {
        "check": check,
        "metrics": metrics,
        "ci": ci,
        "ci_level": 0.95,
        "resamples": resamples,
        "raters": raters,
        "majority_counts": dict(Counter(m or "none" for m in majorities)),
        # left out of every figure above: no Yes/No answer from more than half of the panel
        "no_majority_items": no_majority,
        "items_not_in_run": rated.not_in_run,
        "per_check_disagreements": by_check,
        "disagreements": disagreements,
    }


@dataclass(frozen=True)
class _RatedItems:
    """The human answers per item, joined to the run: which items both hold, who is on the panel."""

    by_key: dict[str, ResultRow]
    per_item: dict[str, dict[str, HumanLabel]]
    raters: list[str]
    items: list[str]  # rated and in the run, sorted
    not_in_run: list[str]

    @classmethod
    def gather(cls, labels: list[HumanLabel], rows: list[ResultRow], panel: Sequence[str]) -> _RatedItems:
        """Group the answers by item; InputError when no rated item is in the run at all."""
        by_key = {row_key(row): row for row in rows}
        raters = sorted({label.rater for label in labels} | set(panel), key=_rater_sort)
        per_item: dict[str, dict[str, HumanLabel]] = {}
        for label in labels:
            per_item.setdefault(label.item, {})[label.rater] = label
        not_in_run = sorted(item for item in per_item if item not in by_key)
        if per_item and len(not_in_run) == len(per_item):
            raise InputError(
                f"none of the {len(per_item)} rated items is in the run (e.g. {not_in_run[0]}); "
                "is --run the study's run?"
            )
        items = sorted(item for item in per_item if item in by_key)
        return cls(by_key, per_item, raters, items, not_in_run)


def _intervals(pairs: list[tuple[bool, bool]], resamples: int, seed: int) -> dict[str, list[float] | None]:
    """A bootstrap 95% CI of each CI_METRICS figure over (judge fails, majority fails) pairs; None without resamples."""
    ci: dict[str, list[float] | None] = {}
    for name in CI_METRICS:

        def metric(sample: Sequence[tuple[bool, bool]], name: str = name) -> float:
            return binary_metrics([j for j, _ in sample], [h for _, h in sample])[name]

        interval = bootstrap_ci(metric, pairs, n_resamples=resamples, seed=seed) if resamples > 0 else None
        ci[name] = list(interval) if interval else None
    return ci


def _rater_sort(name: str) -> tuple[str, int, str]:
    """rater-2 before rater-10."""
    head, _, tail = name.rpartition("-")
    return (head, int(tail), name) if tail.isdigit() else (name, 0, name)


def _disagreements(
    items: list[str],
    majorities: list[str | None],
    by_key: dict[str, ResultRow],
    per_item: dict[str, dict[str, HumanLabel]],
    raters: list[str],
) -> tuple[list[dict[str, Any]], dict[str, dict[str, int]]]:
    """Items where the judge's overall verdict and the human majority differ, and which checks said F there."""
    listed: list[dict[str, Any]] = []
    by_check = {
        direction: {c: 0 for c in CHECKS} | {"items": 0}
        for direction in ("judge_fail_human_pass", "judge_pass_human_fail")
    }
    for item, majority in zip(items, majorities):
        row = by_key[item]
        judged = judge_fails(row, "overall")
        if majority is None or judged is None or judged == RATER_ANSWER_FAILS[majority]:
            continue
        direction = "judge_fail_human_pass" if judged else "judge_pass_human_fail"
        by_check[direction]["items"] += 1
        for c in CHECKS:
            by_check[direction][c] += row.verdicts.get(c) == "F"
        listed.append(
            {
                "item": item,
                "scenario_id": row.scenario_id,
                "template": row.template,
                "model": row.model,
                "direction": direction,
                "story": row.story,
                "query": row.query,
                "response": row.response,
                "preserve": row.preserve,
                "change": row.change,
                "verdicts": {c: row.verdicts.get(c) for c in CHECKS},
                "failed_checks": [c for c in CHECKS if row.verdicts.get(c) == "F"],
                "human_majority": majority,
                "human_labels": {r: per_item[item][r].label for r in raters if r in per_item[item]},
                "human_comments": {
                    r: per_item[item][r].comment for r in raters if r in per_item[item] and per_item[item][r].comment
                },
            }
        )
    return listed, by_check


def write_agreement(run_dir: str | Path, report: dict[str, Any]) -> Path:
    """Save the report as <run>/agreement.json (top-level 'metrics' and 'disagreements') for the HTML report."""
    path = Path(run_dir) / AGREEMENT_FILE
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def scenario_of(row: ResultRow) -> Scenario:
    """The Scenario a judge needs (story, criteria, the one query asked) rebuilt from a run row."""
    from cobe.dataset.schema import FailureMode, Scenario

    modes = [m for m in row.failure_modes if m in FailureMode._value2member_map_]
    return Scenario(
        id=row.scenario_id,
        core_id=row.core_id,
        variation=row.variation,
        domain=row.domain,
        story=row.story,
        queries=[row.query],
        preserve=row.preserve,
        change=row.change,
        graph_type=row.graph_type,
        failure_modes=modes,
        tags=row.tags,
    )


def analyze_judges(
    study: str | Path,
    judges: list[str],
    *,
    judge_prompts: str = DEFAULT_JUDGE_PROMPTS,
    concurrency: int | None = None,
    resamples: int = 1000,
    seed: int = 0,
    timeout: float | None = None,
    progress: Progress | None = None,
) -> list[dict[str, Any]]:
    """Judge a study's rated items with each judge and rank the judges by kappa against the human majority
    (`timeout`: seconds per call attempt; `progress`: told of each item judged, as `judge_responses` tells it).

    Only items with a human majority are judged (the rest could not count anyway). Calls are cached in
    `<study>/judges.sqlite`, so a second analysis of the same judges makes no model call. Price and time
    are per 1000 judged items (three checks each); `unscored_share` is over single check verdicts.
    """
    from cobe.annotate.store import StudyStore
    from cobe.judge.pairs import judge_responses

    if not judges:
        raise InputError("give at least one --judge")
    store = StudyStore(study)
    labels = labels_from_study(store.path)
    if not labels:
        raise InputError(f"{store.path}: the study has no ratings yet")
    panel = study_panel(store.path)
    by_item: dict[str, dict[str, str]] = {}
    for label in labels:
        by_item.setdefault(label.item, {})[label.rater] = label.label
    rows = [ResultRow.model_validate_json(item.row_json) for item in store.items()]
    rows = [row for row in rows if majority_label([by_item.get(row_key(row), {}).get(r) for r in panel]) is not None]
    if not rows:
        raise InputError(f"{store.path}: no item has a human majority yet; nothing to compare judges against")
    pairs = [(scenario_of(row), row.response or "") for row in rows]
    asking: dict[str, Any] = {"concurrency": concurrency, "timeout": timeout, "progress": progress}
    ranked = []
    for spec in judges:
        judged = judge_responses(pairs, spec, judge_prompts, store_path=store.path.parent / "judges.sqlite", **asking)
        rejudged = [
            row.model_copy(update={"verdicts": item.verdicts, "passed": item.passed, "judge": spec})
            for row, item in zip(rows, judged)
        ]
        report = agreement_report(labels, rejudged, resamples=resamples, seed=seed, panel=panel)
        n = len(judged)
        checks = sum(len(item.checks) for item in judged)
        unscored = sum(1 for item in judged for result in item.checks.values() if result.verdict is None)
        totals = judged.totals
        ranked.append(
            {
                "judge": spec,
                "judge_prompts": judge_prompts,
                "items": n,
                **{
                    k: report["metrics"][k]
                    for k in ("kappa", "accuracy", "precision", "recall", "f1", "tp", "fp", "fn", "tn")
                },
                "kappa_ci": report["ci"]["kappa"],
                "kappa_undefined": report["metrics"]["kappa_undefined"],
                "unscored_share": unscored / checks if checks else None,
                "unscored_items": report["metrics"]["judge_unscored"],
                "cost_per_1000": 1000 * totals["cost_usd"] / n if n else None,
                "seconds_per_1000": 1000 * totals["seconds"] / n if n else None,
                "input_tokens": totals["input_tokens"],
                "output_tokens": totals["output_tokens"],
            }
        )
    ranked.sort(key=lambda r: (r["kappa"] is None, -(r["kappa"] or 0.0)))
    for rank, entry in enumerate(ranked, start=1):
        entry["rank"] = rank
    return ranked
