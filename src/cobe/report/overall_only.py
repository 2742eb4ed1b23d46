"""Models whose verdicts come one per response, with no verdict per check: a source's published verdicts (the
CoBe site's correct / wrong / unknown, `cobe-site (published)`) or an import of overall verdicts.

Their rows pass or fail as the source said, but hold no T or F for any check, so a per-check failure rate of
theirs would be a row of "–": the per-check tables and figure (Fig. 6) leave them out, the report says so once,
and each response card shows the one verdict the source gave.
"""

from __future__ import annotations

from collections.abc import Collection

import pandas as pd

from cobe.judge.published import PUBLISHED, SOURCE_DECIDES

#: how a response passes where its verdicts are per check
CHECKS_DECIDE = (
    "A response fails as soon as one check is F; it is unscored only when no check is F and a verdict is missing"
)


def _has_check_verdict(verdicts: object) -> bool:
    return isinstance(verdicts, dict) and any(v in ("T", "F") for v in verdicts.values())


def overall_only(df: pd.DataFrame) -> list[str]:
    """The labels none of whose rows holds a per-check T or F although they carry verdicts: some row passed or
    failed, or the rows name a published verdict set. A model not judged yet is not one of them."""
    if df.empty or "verdicts" not in df.columns:
        return []
    checked = df["verdicts"].map(_has_check_verdict)
    decided = df["status"].isin(["passed", "failed"])
    if "judge_prompts" in df.columns:
        decided = decided | df["judge_prompts"].eq(PUBLISHED)
    flags = pd.DataFrame({"label": df["label"], "checked": checked, "decided": decided})
    per_label = flags.groupby("label", sort=False).agg(checked=("checked", "any"), decided=("decided", "any"))
    return [str(label) for label, row in per_label.iterrows() if row["decided"] and not row["checked"]]


def without_unchecked(table: pd.DataFrame, labels: Collection[str], count: str) -> pd.DataFrame:
    """`table` without the rows of `labels` whose `count` (verdicts or responses counted) is 0: a per-check rate
    they have no verdict for. A rate such a model does have (E4 / E5, from its responses' pass or fail) stays."""
    if table.empty or not labels:
        return table
    empty = table["label"].isin(list(labels)) & table[count].eq(0)
    return table[~empty].reset_index(drop=True)


def no_checks_note(df: pd.DataFrame) -> str | None:
    """The line a report says once where some models of `df` (the tables' rows: `tables.primary_rows`) have no
    per-check verdicts; None where every model has them."""
    labels = overall_only(df)
    if not labels:
        return None
    rows = df[df["label"].isin(list(labels))]
    judges = [str(j) for j in dict.fromkeys(rows["judge"].dropna())] if "judge" in rows.columns else []
    given = f"their verdicts ({', '.join(judges)}) are" if judges else "their verdicts are"
    return (
        f"No per-check verdicts for {', '.join(labels)}: {given} one per response, not one per check, so the "
        "failure rates per check (Fig. 6) leave them out"
    )


def pass_rule(df: pd.DataFrame) -> str:
    """The report's sentence on how a response passes (`df`: the tables' rows, `tables.primary_rows`): the checks'
    rule, the source's verdict where every model's verdicts come one per response, or the rule with the models the
    source's verdict decides named."""
    labels = overall_only(df)
    if not labels:
        return CHECKS_DECIDE
    if set(labels) >= set(df["label"]):
        return SOURCE_DECIDES
    return (
        f"{CHECKS_DECIDE}; for {', '.join(labels)}, whose verdicts come one per response, the source's verdict decides"
    )
