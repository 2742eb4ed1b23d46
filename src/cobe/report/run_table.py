"""The table a run command ends with (`cobe eval`, `generate`, `judge`): per model the accuracy (± std, or
pooled: cobe.score.rule), its 95% CI, passed / failed / unscored / errors and the judge; then the commonest reasons rows were left
unscored or errored, the retries and rate-limit waits, the cost, the wall time and the report's path.
The CLI prints it as a table, or with --json as the same content for scripts.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from cobe.core.errors import InputError
from cobe.report.load import RESULTS_FILE, TEXT_COLUMNS, load_runs
from cobe.report.tables import leaderboard
from cobe.run.config import RunSummary
from cobe.score.accuracy import epoch_spread, several_epochs
from cobe.score.rule import MEAN_RULE

#: reasons the table lists at most
TOP_REASONS = 5
#: the roles whose calls a run pays for
PAID_ROLES = ("preflight", "respondent", "judge", "judge-batch")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


@dataclass
class ModelLine:
    """One model's row of the table."""

    model: str
    accuracy: float | None
    std: float | None
    ci_low: float | None
    ci_high: float | None
    passed: int
    failed: int
    unscored: int
    errors: int
    pending: int
    epochs: int = 1
    epoch_std: float | None = None  # the sample std of the epochs' accuracies (--epochs K)
    # "scenarios" where the phrasings were asked of different scenarios: the accuracy is then pooled (no ±)
    std_over: str = "phrasings"
    rule: str = MEAN_RULE  # how the accuracy was taken (cobe.score.rule)
    ci_method: str | None = None  # "bootstrap", or "exact" where too few core examples were scored to draw


@dataclass
class RunTable:
    """Everything the end of a run says, as data."""

    run_dir: str
    state: str
    judge: str | None
    judge_prompts: str | None
    models: list[ModelLine]
    reasons: list[dict[str, Any]]  # {"status", "reason", "count"}, commonest first
    calls: dict[str, dict[str, Any]]  # role → calls made, from the store, failed, tokens, cost
    retries: int
    rate_limited: int
    retry_wait_s: float
    cost_usd: float
    wall_s: float
    items: int
    unfinished: int
    report: str | None = None
    judge_fingerprint: str | None = None  # the prompt fingerprint (or a panel's) behind every verdict shown
    replaced: str | None = None  # the verdict set this command's judge took the place of
    notices: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The table as JSON-ready data (`--json`)."""
        return asdict(self)


def _num(value: Any) -> float | None:
    if value is None:
        return None
    number = float(value)
    return None if math.isnan(number) else round(number, 4)


def top_reasons(frame: pd.DataFrame, limit: int = TOP_REASONS) -> list[dict[str, Any]]:
    """The commonest reasons rows were errored (the respondent's call failed) or unscored, with their counts.

    Reasons count by kind, not by instance (quoted text, such as an unparseable verdict's words, is set aside),
    so one cause counts once however its rows worded it; a row counts once per distinct kind it holds. Each kind
    is shown by its commonest instance, the reply itself escaped on one line (`no T/F verdict in: '\\n\\n<answer>\\n'`),
    with `others` the count of its rows that said something else.
    """
    counts: Counter[tuple[str, str]] = Counter()
    instances: dict[tuple[str, str], Counter[str]] = {}
    for rec in frame.to_dict("records"):
        status = rec.get("status")
        if status == "error":
            reasons = {str(rec.get("response_error") or "respondent call failed")}
        elif status == "unscored":
            # a reply never judged (cut off) carries its reason on every check, like any other
            reasons = {str(r) for r in (rec.get("unscored") or {}).values() if r} or {"a verdict is missing"}
        else:
            continue
        kinds: dict[str, str] = {}
        for reason in sorted(reasons):
            kinds.setdefault(_kind(reason), reason)  # one instance per kind and row
        for kind, reason in kinds.items():
            counts[(str(status), kind)] += 1
            instances.setdefault((str(status), kind), Counter())[_cut(reason)] += 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    out = []
    for (status, kind), count in ranked:
        shown, times = instances[(status, kind)].most_common(1)[0]
        out.append({"status": status, "reason": shown, "count": count, "others": count - times})
    return out


def _kind(reason: str) -> str:
    return _cut(_QUOTED.sub("'…'", str(reason)))


def _cut(reason: str) -> str:
    text = " ".join(str(reason).split())
    return text if len(text) <= 160 else text[:157] + "..."


def _lines_from_rows(frame: pd.DataFrame) -> list[ModelLine]:
    board = leaderboard(frame.assign(label=frame["model"]))
    spread = epoch_spread(frame) if several_epochs(frame) else None
    lines = []
    for rec in board.to_dict("records"):
        pending = int(rec["n"] - rec["scored"] - rec["unscored"] - rec["errors"])
        line = ModelLine(
            model=str(rec["model"]),
            accuracy=_num(rec["accuracy"]),
            std=_num(rec["std"]),
            ci_low=_num(rec["ci_low"]),
            ci_high=_num(rec["ci_high"]),
            passed=int(rec["passes"]),
            failed=int(rec["scored"] - rec["passes"]),
            unscored=int(rec["unscored"]),
            errors=int(rec["errors"]),
            pending=pending,
            std_over=str(rec["std_over"]),
            rule=str(rec["rule"]),
            ci_method=rec["ci_method"],
        )
        if spread is not None:
            mine = spread[spread["model"] == line.model].iloc[0]
            line.epochs, line.epoch_std = int(mine["epochs"]), _num(mine["epoch_std"])
        lines.append(line)
    return lines


def _lines_from_summary(models: dict[str, dict[str, Any]]) -> list[ModelLine]:
    # the exports could not be read (a full disk): summary.json's figures, without an interval
    return [
        ModelLine(
            model=model,
            accuracy=_num(m.get("accuracy")),
            std=_num(m.get("std")),
            ci_low=None,
            ci_high=None,
            passed=int(m.get("passes") or 0),
            failed=int((m.get("scored") or 0) - (m.get("passes") or 0)),
            unscored=int(m.get("unscored") or 0),
            errors=int(m.get("errors") or 0),
            pending=int(m.get("pending") or 0),
            std_over=str(m.get("std_over") or "phrasings"),
            rule=str(m.get("rule") or MEAN_RULE),
        )
        for model, m in models.items()
    ]


def run_table(summary: RunSummary, report: Path | None = None) -> RunTable:
    """The end-of-run table of a command's summary, read from its run directory's results.jsonl."""
    results = Path(summary.run_dir) / RESULTS_FILE
    frame: pd.DataFrame | None = None
    if results.is_file() and results.stat().st_size:
        try:
            frame = load_runs([summary.run_dir], drop=TEXT_COLUMNS).frame  # counts only: no texts held
        except InputError:
            frame = None  # a half-written export: the summary's figures below
    if frame is not None and not frame.empty:
        models, reasons = _lines_from_rows(frame), top_reasons(frame)
    else:
        models, reasons = _lines_from_summary(summary.summary.get("models", {})), []
    stats = summary.stats
    return RunTable(
        run_dir=str(summary.run_dir),
        state=summary.state,
        judge=summary.judge,
        judge_prompts=summary.judge_prompts,
        models=models,
        reasons=reasons,
        calls={role: stats[role] for role in PAID_ROLES if role in stats},
        retries=int(stats.get("retries", 0)),
        rate_limited=int(stats.get("rate_limited", 0)),
        retry_wait_s=float(stats.get("retry_wait_s", 0.0)),
        cost_usd=round(sum(float(stats[r].get("cost_usd") or 0.0) for r in PAID_ROLES if r in stats), 6),
        wall_s=round(summary.wall_s, 3),
        items=summary.items,
        unfinished=summary.unfinished,
        report=str(report) if report is not None else None,
        judge_fingerprint=summary.summary.get("judge_fingerprint"),
        replaced=summary.replaced,
        notices=list(summary.notices),
    )
