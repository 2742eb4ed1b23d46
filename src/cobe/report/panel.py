"""The report's judge section: each judge's accuracy beside its panel's, agreement among the judges per
check, the flip rate of repeated samples, and a warning for every judge that grades its own kind."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from cobe.judge.panel import self_preference
from cobe.judge.panel_analysis import PANEL, flip_rates, judge_accuracy, judge_agreement, judges_of

#: the tables this section adds to a report, by name, in the order it shows them
PANEL_TABLES: tuple[str, ...] = ("judges", "judge_agreement", "judge_flips", "self_preference")
NOTE = (
    "Each check's verdict is the strict majority of the judges that gave a parseable verdict (a judge asked "
    "several times: the majority of its samples); a tie, or no verdict at all, is unscored. Each judge's "
    "accuracy is the paper's arithmetic on its own verdicts, beside the panel's."
)
AGREEMENT_NOTE = (
    "Agreement among the judges per check and on the overall pass/fail: items = responses two or more judges "
    "scored; unanimous = share of those all judges scored where they all agree; Fleiss' kappa over the fully "
    "scored items, Krippendorff's alpha (nominal) with missing verdicts allowed."
)
FLIP_NOTE = "Verdict flip rate: the share of (response, check) pairs whose samples disagree (two or more parseable)."
SELF_PREFERENCE_NOTE = (
    "A judge grading a respondent of its own provider family, or the same model, may favour it (self-preference)."
)


def judges_per_row(df: pd.DataFrame) -> list[list[str]]:
    """The judges behind each row: a panel's members, else the row's one judge."""
    members = df["member_verdicts"] if "member_verdicts" in df.columns else pd.Series([None] * len(df), index=df.index)
    judge = df["judge"] if "judge" in df.columns else pd.Series([None] * len(df), index=df.index)
    return [
        list(m) if isinstance(m, dict) and m else ([j] if isinstance(j, str) else []) for m, j in zip(members, judge)
    ]


def self_preference_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (judge, respondent) pair in the runs where the judge may favour its own kind."""
    columns = ["judge", "model", "reason"]
    if df.empty:
        return pd.DataFrame(columns=columns)
    pairs = dict.fromkeys((judge, model) for judges, model in zip(judges_per_row(df), df["model"]) for judge in judges)
    rows = [
        {"judge": judge, "model": model, "reason": reason}
        for judge, model in pairs
        if (reason := self_preference(judge, model)) is not None
    ]
    return pd.DataFrame(rows, columns=columns)


def _judged_by_panels(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of the runs whose rows carry member verdicts (a panel's, or a sampled judge's)."""
    if "run" not in df.columns or "member_verdicts" not in df.columns:
        return df
    has = df["member_verdicts"].map(lambda m: isinstance(m, dict) and bool(m))
    return df[df["run"].isin(set(df.loc[has, "run"]))]


def panel_tables(main: pd.DataFrame, every: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The tables of this section that have something to show: per-judge accuracy on the leaderboard's rows
    (`main`), agreement and flip rates on every row, and self-preference warnings."""
    tables: dict[str, pd.DataFrame] = {}
    if judges_of(every):
        tables["judges"] = judge_accuracy(_judged_by_panels(main), by=["label"])
        agreement = judge_agreement(every)
        if not agreement.empty:
            tables["judge_agreement"] = agreement
        flips = flip_rates(every)
        if not flips.empty:
            tables["judge_flips"] = flips
    warnings = self_preference_table(every)
    if not warnings.empty:
        tables["self_preference"] = warnings
    return tables


def _clean(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    return None if isinstance(value, float) and math.isnan(value) else value


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): _clean(v) for k, v in row.items()} for row in table.to_dict("records")]


def accuracy_grid(table: pd.DataFrame) -> tuple[list[str], list[dict[str, Any]]]:
    """(judge columns, one row per model label with each judge's accuracy, scored and unscored) for display."""
    judges = list(dict.fromkeys([PANEL, *table["judge"]]))
    rows: dict[str, dict[str, Any]] = {}
    for rec in _records(table):
        rows.setdefault(rec["label"], {"label": rec["label"], "cells": {}})["cells"][rec["judge"]] = rec
    return judges, list(rows.values())


def panel_payload(tables: dict[str, pd.DataFrame]) -> dict[str, Any] | None:
    """What report.html's judge section shows, or None when the report has nothing for it."""
    if not any(name in tables for name in PANEL_TABLES):
        return None
    payload: dict[str, Any] = {
        "note": NOTE,
        "agreement_note": AGREEMENT_NOTE,
        "flip_note": FLIP_NOTE,
        "self_preference_note": SELF_PREFERENCE_NOTE,
        "judges": [],
        "rows": [],
        "agreement": _records(tables["judge_agreement"]) if "judge_agreement" in tables else [],
        "flips": _records(tables["judge_flips"]) if "judge_flips" in tables else [],
        "self_preference": _records(tables["self_preference"]) if "self_preference" in tables else [],
    }
    if "judges" in tables:
        payload["judges"], payload["rows"] = accuracy_grid(tables["judges"])
    return payload


def _cell(value: Any, digits: int = 2) -> str:
    value = _clean(value)
    if value is None:
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value).replace("|", "\\|")


def panel_markdown(tables: dict[str, pd.DataFrame]) -> list[str]:
    """report.md's judge section (no lines when the report has nothing for it)."""
    payload = panel_payload(tables)
    if payload is None:
        return []
    parts = ["", "## Judges"]
    if payload["rows"]:
        judges = payload["judges"]
        parts += ["", NOTE, "", "| model | " + " | ".join(f"`{j}`" for j in judges) + " |"]
        parts.append("|---|" + "---:|" * len(judges))
        for row in payload["rows"]:
            cells = [_cell((row["cells"].get(j) or {}).get("accuracy")) for j in judges]
            parts.append(f"| {_cell(row['label'])} | " + " | ".join(cells) + " |")
    if payload["agreement"]:
        parts += ["", AGREEMENT_NOTE, "", "| target | items | unanimous % | Fleiss' κ | Krippendorff's α |"]
        parts.append("|---|---:|---:|---:|---:|")
        for a in payload["agreement"]:
            parts.append(
                f"| {a['target']} | {a['items']} | {_cell(a['unanimous'], 1)} | {_cell(a['fleiss_kappa'], 3)} "
                f"| {_cell(a['krippendorff_alpha'], 3)} |"
            )
    if payload["flips"]:
        parts += ["", FLIP_NOTE, "", "| judge | check | pairs | flips | flip rate % |", "|---|---|---:|---:|---:|"]
        for f in payload["flips"]:
            parts.append(
                f"| `{f['judge']}` | {f['check']} | {f['pairs']} | {f['flips']} | {_cell(f['flip_rate'], 1)} |"
            )
    if payload["self_preference"]:
        parts += ["", SELF_PREFERENCE_NOTE, ""]
        parts += [
            f"- **Warning:** `{w['judge']}` grades `{w['model']}`: {w['reason']}." for w in payload["self_preference"]
        ]
    return parts
