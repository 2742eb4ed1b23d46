"""How far several judges (or one judge's samples) agree, from result rows: each judge's accuracy beside the
panel's, agreement among the judges per check (Fleiss' kappa, Krippendorff's alpha), the verdict flip rate
of repeated samples, and the verdicts that flip between two prompt sets.

Rows carry `member_verdicts` (judge → check → each sample's verdict); a judge's verdict on a check is the
strict majority of its samples (`cobe.judge.panel.majority`), the same rule a panel applies to its judges.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from cobe.core.results import CHECKS, Verdict
from cobe.judge.checks import majority, row_status
from cobe.score.accuracy import accuracy, rows_frame
from cobe.score.agreement import fleiss_kappa, krippendorff_alpha

#: the judge column's value for the panel's own verdicts
PANEL = "panel"
#: the pass/fail of a whole response, beside the three checks
OVERALL = "overall"
_PASS_LETTER: dict[str, Verdict] = {"passed": "T", "failed": "F"}

Samples = Mapping[str, Sequence[Verdict | None]]  # check → each sample's verdict


def members_of(value: Any) -> dict[str, Samples]:
    """A row's member verdicts; {} where it has none (a missing cell of a frame mixing runs is NaN)."""
    return value if isinstance(value, dict) else {}


def judges_of(df: pd.DataFrame) -> list[str]:
    """The judges named in the rows' member verdicts, in first-seen order."""
    if df.empty or "member_verdicts" not in df.columns:
        return []
    seen: dict[str, None] = {}
    for members in df["member_verdicts"]:
        seen.update(dict.fromkeys(members_of(members)))
    return list(seen)


def judge_verdicts(samples: Samples) -> dict[str, Verdict | None]:
    """One judge's verdict per check: the strict majority of its samples (None on a tie or none)."""
    return {check: majority(samples.get(check, ()), "samples")[0] for check in CHECKS}


def _error(rec: dict[str, Any]) -> str | None:
    """A row's respondent error (a frame may hold NaN where a row has none)."""
    value = rec.get("response_error")
    return value if isinstance(value, str) else None


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    keep = df[df["status"] != "pending"] if "status" in df.columns else df
    return [{str(k): v for k, v in rec.items()} for rec in keep.to_dict("records")]


def member_frame(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """One row per result row and judge, with the status that judge alone gives it, plus the panel's row.

    A response nobody judged (a respondent error, a cut-off reply) keeps its status for every judge,
    so each judge's accuracy has the same denominator as the panel's.
    """
    judges = judges_of(df)
    out: list[dict[str, Any]] = []
    for rec in _records(df):
        base = {key: rec[key] for key in (*by, "template")}
        out.append(base | {"judge": PANEL, "status": rec["status"]})
        members = members_of(rec.get("member_verdicts"))
        for judge in judges:
            if judge not in members:
                out.append(base | {"judge": judge, "status": rec["status"]})
                continue
            status, _ = row_status(judge_verdicts(members[judge]), _error(rec))
            out.append(base | {"judge": judge, "status": status})
    return rows_frame(out)


def judge_accuracy(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Each judge's accuracy (the paper's arithmetic, on its own verdicts) beside the panel's, per group."""
    keys = list(by)
    columns = [*keys, "judge", "accuracy", "std", "phrasings", "n", "scored", "passes", "unscored", "errors"]
    frame = member_frame(df, keys)
    if frame.empty:
        return pd.DataFrame(columns=columns)
    table = accuracy(frame, by=[*keys, "judge"])
    order = {name: i for i, name in enumerate([PANEL, *judges_of(df)])}
    table["_order"] = table["judge"].map(order)
    return table.sort_values([*keys, "_order"]).reset_index(drop=True)[columns]


def _agreement_row(target: str, table: list[list[Verdict | None]]) -> dict[str, Any]:
    rated = [row for row in table if sum(v is not None for v in row) >= 2]
    full = [row for row in rated if all(v is not None for v in row)]
    return {
        "target": target,
        "items": len(rated),
        "all_judges": len(full),
        "unanimous": 100.0 * sum(len(set(row)) == 1 for row in full) / len(full) if full else None,
        "fleiss_kappa": fleiss_kappa(table),
        "krippendorff_alpha": krippendorff_alpha(table),
    }


def judge_agreement(df: pd.DataFrame) -> pd.DataFrame:
    """Agreement among the judges per check and on the overall pass/fail: items rated by two or more,
    the share of fully rated items where all agree, Fleiss' kappa (fully rated items) and Krippendorff's
    alpha (missing verdicts allowed). Empty with fewer than two judges."""
    judges = judges_of(df)
    columns = ["target", "items", "all_judges", "unanimous", "fleiss_kappa", "krippendorff_alpha"]
    if len(judges) < 2:
        return pd.DataFrame(columns=columns)
    tables: dict[str, list[list[Verdict | None]]] = {target: [] for target in (*CHECKS, OVERALL)}
    for rec in _records(df):
        members = members_of(rec.get("member_verdicts"))
        if not members:
            continue
        verdicts = {judge: judge_verdicts(members.get(judge, {})) for judge in judges}
        for check in CHECKS:
            tables[check].append([verdicts[judge][check] for judge in judges])
        statuses = [row_status(verdicts[judge], _error(rec))[0] for judge in judges]
        tables[OVERALL].append([_PASS_LETTER.get(status) for status in statuses])
    return pd.DataFrame([_agreement_row(target, table) for target, table in tables.items()], columns=columns)


def flip_rates(df: pd.DataFrame) -> pd.DataFrame:
    """Per judge and check: of the (response, check) pairs with two or more parseable samples, how many
    have samples that disagree (`flips`), and that share in % (`flip_rate`). Empty without samples."""
    columns = ["judge", "check", "pairs", "flips", "flip_rate", "unparseable_samples"]
    counts: dict[tuple[str, str], list[int]] = {}
    sampled = False
    for rec in _records(df):
        for judge, samples in members_of(rec.get("member_verdicts")).items():
            for check in CHECKS:
                votes = list(samples.get(check, ()))
                sampled = sampled or len(votes) > 1
                count = counts.setdefault((judge, check), [0, 0, 0])
                cast = [v for v in votes if v is not None]
                count[2] += len(votes) - len(cast)
                if len(cast) >= 2:
                    count[0] += 1
                    count[1] += len(set(cast)) > 1
    if not sampled:
        return pd.DataFrame(columns=columns)
    rows = [
        {
            "judge": judge,
            "check": check,
            "pairs": pairs,
            "flips": flips,
            "flip_rate": 100.0 * flips / pairs if pairs else None,
            "unparseable_samples": unparseable,
        }
        for (judge, check), (pairs, flips, unparseable) in counts.items()
    ]
    return pd.DataFrame(rows, columns=columns)


def panel_summary(df: pd.DataFrame) -> dict[str, Any]:
    """summary.json's `panel`: each judge's accuracy beside the panel's per model, agreement per check,
    and flip rates of repeated samples."""

    def plain(value: Any) -> Any:
        if hasattr(value, "item"):
            value = value.item()
        return None if isinstance(value, float) and value != value else value

    summary: dict[str, Any] = {"judges": judges_of(df), "accuracy": {}}
    for rec in judge_accuracy(df).to_dict("records"):
        summary["accuracy"].setdefault(rec["model"], {})[rec["judge"]] = {
            k: plain(rec[k]) for k in ("accuracy", "std", "scored", "passes", "unscored")
        }
    agreement = judge_agreement(df)
    if not agreement.empty:
        summary["agreement"] = {
            rec["target"]: {k: plain(v) for k, v in rec.items() if k != "target"}
            for rec in agreement.to_dict("records")
        }
    flips = flip_rates(df)
    if not flips.empty:
        summary["flip_rates"] = {}
        for rec in flips.to_dict("records"):
            summary["flip_rates"].setdefault(rec["judge"], {})[rec["check"]] = {
                k: plain(rec[k]) for k in ("pairs", "flips", "flip_rate")
            }
    return summary


def verdict_diff(
    pairs: Iterable[tuple[Mapping[str, Verdict | None], Mapping[str, Verdict | None]]],
) -> pd.DataFrame:
    """How verdicts move between two judgings (a → b) of the same responses, per check and overall:
    the responses compared (scored by both), flips, their direction, and the pass rates (%) and change."""
    counts = {
        target: {"compared": 0, "flips": 0, "t_to_f": 0, "f_to_t": 0, "pass_a": 0, "pass_b": 0}
        for target in (*CHECKS, OVERALL)
    }
    for a, b in pairs:
        letters: dict[str, tuple[Verdict | None, Verdict | None]] = {c: (a.get(c), b.get(c)) for c in CHECKS}
        letters[OVERALL] = (
            _PASS_LETTER.get(row_status(dict(a), None)[0]),
            _PASS_LETTER.get(row_status(dict(b), None)[0]),
        )
        for target, (before, after) in letters.items():
            if before is None or after is None:
                continue
            count = counts[target]
            count["compared"] += 1
            count["pass_a"] += before == "T"
            count["pass_b"] += after == "T"
            if before != after:
                count["flips"] += 1
                count["t_to_f" if before == "T" else "f_to_t"] += 1
    rows = []
    for target, c in counts.items():
        n = c["compared"]
        rate_a = 100.0 * c["pass_a"] / n if n else None
        rate_b = 100.0 * c["pass_b"] / n if n else None
        rows.append(
            {
                "target": target,
                "compared": n,
                "flips": c["flips"],
                "flip_rate": 100.0 * c["flips"] / n if n else None,
                "t_to_f": c["t_to_f"],
                "f_to_t": c["f_to_t"],
                "pass_rate_a": rate_a,
                "pass_rate_b": rate_b,
                "pass_rate_change": rate_b - rate_a if rate_a is not None and rate_b is not None else None,
            }
        )
    return pd.DataFrame(rows)
