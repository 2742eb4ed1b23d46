"""The paper's accuracy: mean over phrasings of (passes / scored) ± sample std across phrasings, where every
scenario is asked in every phrasing; the pooled passes / scored where the phrasings were asked of different
scenarios (the site's files: one query per scenario). The rule is decided once per model from all its rows
(cobe.score.rule), carried on the rows as `rule`, and applied in every cell of every breakdown.

Every breakdown (by domain, graph type, failure mode, tag, tier …) is the same function applied
over a metadata key, so the arithmetic exists exactly once. The headline leaves respondent errors and
replies cut off by the token limit out of the denominator: that is cobe's rule, not the paper's (the paper
does not say how it counted them). `accuracy_incl_errors` beside it counts both as failures, so a model
that errors often cannot look better for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from cobe.core.results import CHECK_LABELS
from cobe.score.rule import PHRASING, POOLED_RULE, RULE, pooled_groups, with_rule

#: the column that numbers a model's repeated answers to one item (--epochs); absent or constant: one epoch
EPOCH = "epoch"
#: the one phrasing a pooled group's rows are counted under
_ALL_PHRASINGS = "(all)"
#: the paper's Fig. 6 error types, in its order: (code, label, kind, key). E1-E3 are the judge
#: checks (the share of a check's verdicts that are F); E4 and E5 are the failure rates of the
#: responses to scenarios tagged numeric / latent (the share of scored responses that failed).
ERROR_TYPES: tuple[tuple[str, str, str, str], ...] = (
    ("E1", "E1 upstream (preserve)", "check", "preserve"),
    ("E2", "E2 downstream (change)", "check", "change"),
    ("E3", "E3 connectors", "check", "connectors"),
    ("E4", "E4 numeric", "tag", "numeric"),
    ("E5", "E5 latent factors", "tag", "latent"),
)


def mean_and_std(per_phrasing_pct: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (ddof = 1) of per-phrasing accuracies; std is 0 for one phrasing."""
    values = np.asarray(per_phrasing_pct, dtype=float)
    if values.size == 0:
        return float("nan"), float("nan")
    std = float(values.std(ddof=1)) if values.size > 1 else 0.0
    return float(values.mean()), std


def rows_frame(rows: Iterable[dict]) -> pd.DataFrame:
    """A results table from result-row dicts, with the counting columns the scorers need."""
    return with_counts(pd.DataFrame(list(rows)))


def with_counts(df: pd.DataFrame) -> pd.DataFrame:
    """A results table given the counting columns the scorers need (scored, pass, passed, cut_off)."""
    if df.empty:
        return df
    status = df["status"]
    df["scored"] = status.isin(["passed", "failed"])
    # unscored and errored rows are missing, not failed: a nullable boolean whose mean is passes / scored
    df["pass"] = status.eq("passed").astype("boolean").where(df["scored"])
    if "passed" in df.columns:
        df["passed"] = df["passed"].astype("boolean")
    # a reply cut off by the token limit is unscored, and a failure once errors count as failures
    cut = df["unjudged"].eq("truncated") if "unjudged" in df.columns else False
    df["cut_off"] = status.eq("unscored") & cut
    return df


def several_epochs(df: pd.DataFrame) -> bool:
    """Whether the rows hold more than one epoch (--epochs K) of some item."""
    return EPOCH in df.columns and not df.empty and df[EPOCH].nunique() > 1


def _per_phrasing(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    if "cut_off" not in df.columns:  # a frame built without rows_frame: nothing was cut off
        df = df.assign(cut_off=False)
    if EPOCH in keys or not several_epochs(df):
        return _cells(df, keys)
    # several epochs: a phrasing's accuracy is the mean over epochs of its passes / scored in each, so every
    # epoch weighs alike (docs/SCORING.md); the counts are those of every epoch together
    cells = _cells(df, keys + [EPOCH])
    grouped = cells.groupby(keys + [PHRASING], sort=True, dropna=False)
    counts = {name: (name, "sum") for name in ("n", "scored", "passes", "unscored", "errors", "cut_off")}
    means = {name: (name, "mean") for name in ("accuracy", "accuracy_incl_errors")}
    return grouped.agg(**counts, **means).reset_index()


def _cells(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Counts and accuracy per group and phrasing, every row of a cell pooled."""
    # counted as columns, not by a function per cell: a file of 100,000 models is 100,000 cells at least
    flags = df.assign(_unscored=df["status"].eq("unscored"), _errors=df["status"].eq("error"))
    grouped = flags.groupby(keys + [PHRASING], sort=True, dropna=False)
    table = grouped.agg(
        n=("status", "size"),
        scored=("scored", "sum"),
        passes=("pass", "sum"),
        unscored=("_unscored", "sum"),
        errors=("_errors", "sum"),
        cut_off=("cut_off", "sum"),
    ).reset_index()
    table["passes"] = table["passes"].astype("int64")  # a nullable column's sum is Int64; counts stay plain
    table["accuracy"] = np.where(table["scored"] > 0, 100.0 * table["passes"] / table["scored"].clip(lower=1), np.nan)
    attempted = table["scored"] + table["errors"] + table["cut_off"]  # errors and cut-off replies as failures
    table["accuracy_incl_errors"] = np.where(attempted > 0, 100.0 * table["passes"] / attempted.clip(lower=1), np.nan)
    return table


def accuracy(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Per group: accuracy (%) by its `rule`, std (ddof=1) across phrasings, and the counts.

    The rule is the rows' `rule` column (cobe.score.rule.with_rule), else decided here per group of the first key
    of `by` (the model): the mean over phrasings of passes/scored where every scenario is asked in every
    phrasing, the pooled passes/scored where they were asked of different scenarios (`std` is then NaN: no ±
    across phrasings). Phrasings with nothing scored are left out of the mean and counted in `phrasings_empty`.
    `accuracy_incl_errors` / `std_incl_errors`: the same with respondent errors and replies cut off by the
    token limit counted as failures (passes / (scored + errors + cut off)). A tier-1 query in no phrasing
    (`other`) is one more phrasing here, in the mean and in the std alike.
    """
    keys = list(by)
    if df.empty:
        return pd.DataFrame(
            columns=keys
            + ["accuracy", "std", "accuracy_incl_errors", "std_incl_errors", "phrasings"]
            + ["n", "scored", "passes", "unscored", "errors", RULE]
        )
    frame, asked = _by_rule(df, keys)
    per = _per_phrasing(frame, [*keys, RULE])
    # the counts of every group at once (a pandas step per group took minutes at 100,000 models); the mean and std
    # of each group's phrasings by mean_and_std itself, on arrays, so every figure is the same to the last bit
    grouped = per.groupby(keys, sort=True, dropna=False)
    out = grouped.agg(
        n=("n", "sum"),
        scored=("scored", "sum"),
        passes=("passes", "sum"),
        unscored=("unscored", "sum"),
        errors=("errors", "sum"),
        rule=(RULE, "first"),  # one rule per group: _by_rule pooled the whole group where any of it is
    ).reset_index()
    group = grouped.ngroup().to_numpy()
    mean, std, _ = _spreads(per["accuracy"].to_numpy(dtype=float), group, len(out))
    mean_err, std_err, _ = _spreads(per["accuracy_incl_errors"].to_numpy(dtype=float), group, len(out))
    pooled = (out[RULE] == POOLED_RULE).to_numpy()
    judged = out["scored"].to_numpy() > 0  # nothing judged yet (a generate-only run): no accuracy of either kind
    out = out.assign(
        accuracy=mean,
        std=np.where(pooled, np.nan, std),
        accuracy_incl_errors=np.where(judged, mean_err, np.nan),
        std_incl_errors=np.where(judged & ~pooled, std_err, np.nan),
        phrasings=asked[0],
        phrasings_empty=asked[1],
    )
    columns = [*keys, "accuracy", "std", "accuracy_incl_errors", "std_incl_errors", "phrasings", "phrasings_empty"]
    return out[[*columns, "n", "scored", "passes", "unscored", "errors", RULE]]


def _spreads(values: np.ndarray, group: np.ndarray, groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group numbered 0 … groups − 1: mean_and_std of its values that are not missing, and how many there are."""
    order = np.argsort(group, kind="stable")  # a group's values in the order its rows came
    bounds = np.searchsorted(group[order], np.arange(groups + 1))
    ordered = values[order]
    means, stds = np.full(groups, np.nan), np.full(groups, np.nan)
    counts = np.zeros(groups, dtype="int64")
    for g in range(groups):
        part = ordered[bounds[g] : bounds[g + 1]]
        part = part[~np.isnan(part)]
        counts[g] = part.size
        if part.size:
            means[g], stds[g] = mean_and_std(part)
    return means, stds, counts


def _by_rule(df: pd.DataFrame, keys: list[str]) -> tuple[pd.DataFrame, tuple[np.ndarray, np.ndarray]]:
    """The columns a group's figures need, each row under its group's rule (a pooled group's rows under one
    phrasing), and per group (in groupby order) the phrasings it was asked in: with something scored, and with
    nothing."""
    ruled = with_rule(df, keys[:1])
    needed = [*keys, PHRASING, EPOCH, "status", "scored", "pass", "cut_off", RULE]
    frame = ruled[[c for c in dict.fromkeys(needed) if c in ruled.columns]].copy()
    group = frame.groupby(keys, sort=True, dropna=False).ngroup()
    groups = int(group.max()) + 1 if len(group) else 0
    phrasing = frame[PHRASING]
    every = phrasing.groupby(group).nunique().reindex(range(groups), fill_value=0).to_numpy()
    scored = frame["scored"].astype(bool)
    with_scores = phrasing[scored].groupby(group[scored]).nunique().reindex(range(groups), fill_value=0).to_numpy()
    pooled = pooled_groups(frame, keys)
    frame[RULE] = np.where(pooled, POOLED_RULE, frame[RULE])  # a group holding a pooled model's rows is pooled
    frame[PHRASING] = frame[PHRASING].where(~pooled, _ALL_PHRASINGS)
    return frame, (with_scores.astype("int64"), (every - with_scores).astype("int64"))


def pooled_accuracy(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Per group: passes / scored over all its rows at once (%), whatever the phrasing, with the counts.

    The project site reports this figure (its correct / (correct + wrong)); on files with one query per
    scenario it is also what `accuracy` gives, their rule being pooled (cobe.score.rule).
    """
    keys = list(by)
    if df.empty:
        return pd.DataFrame(columns=[*keys, "pooled_accuracy", "scored", "passes"])
    table = df.groupby(keys, sort=True, dropna=False).agg(scored=("scored", "sum"), passes=("pass", "sum"))
    table = table.reset_index()
    table["passes"] = table["passes"].astype("int64")
    table["pooled_accuracy"] = np.where(
        table["scored"] > 0, 100.0 * table["passes"] / table["scored"].clip(lower=1), np.nan
    )
    return table[[*keys, "pooled_accuracy", "scored", "passes"]]


def by_phrasing(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Accuracy (%) of each phrasing separately, with its counts (the paper's Fig. 8)."""
    return _per_phrasing(df, list(by))


def by_epoch(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Accuracy (%) of each epoch separately (--epochs), by each model's rule, with the counts."""
    frame = df if EPOCH in df.columns else df.assign(**{EPOCH: 1})
    return accuracy(frame, by=[*by, EPOCH])


def epoch_spread(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Per group: how many epochs it holds and the sample std (ddof = 1) of their accuracies (0 for one epoch)."""
    keys = list(by)
    per = by_epoch(df, by=keys)
    if per.empty:
        return pd.DataFrame(columns=[*keys, "epochs", "epoch_std"])
    grouped = per.groupby(keys, sort=True, dropna=False)
    out = grouped.agg(epochs=("accuracy", "size")).reset_index()
    _, std, _ = _spreads(per["accuracy"].to_numpy(dtype=float), grouped.ngroup().to_numpy(), len(out))
    return out.assign(epoch_std=std)[[*keys, "epochs", "epoch_std"]]


def breakdown(df: pd.DataFrame, key: str, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Accuracy per value of a metadata key, each cell by its model's rule (decided from all the model's rows,
    not the cell's); list-valued keys (failure_modes, tags) count once per value."""
    if df.empty or key not in df.columns:
        return accuracy(df.iloc[0:0], by=[*by, key]) if not df.empty else accuracy(df, by=[*by, key])
    return accuracy(breakdown_rows(with_rule(df, list(by)[:1]), key), by=[*by, key])


def breakdown_rows(df: pd.DataFrame, key: str) -> pd.DataFrame:
    """The rows a breakdown by `key` counts: one per value of a list-valued key, none where it is missing."""
    if df.empty or key not in df.columns:
        return df.iloc[0:0]
    frame = df.explode(key) if df[key].map(lambda v: isinstance(v, list)).any() else df
    return frame[frame[key].notna()]


def check_failure_rates(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Per group and check: the share of judged verdicts that are F (the paper's Fig. 6), unscored apart."""
    keys = list(by)
    columns = [*keys, "check", "judged", "failed", "unscored", "failure_rate"]
    if df.empty:
        return pd.DataFrame(columns=columns)
    unscored = df["status"].eq("unscored")
    parts = []
    for order, check in enumerate(CHECK_LABELS):  # the paper's order: upstream, downstream, connectors
        verdicts = df["verdicts"].map(lambda v, c=check: (v or {}).get(c))
        judged = verdicts.isin(["T", "F"])
        counts = df[keys].assign(
            judged=judged,
            failed=verdicts.eq("F"),
            # rows imported with only an overall verdict have no per-check verdict: not unscored
            unscored=~judged & unscored,
        )
        table = counts.groupby(keys, sort=True, dropna=False)[["judged", "failed", "unscored"]].sum().reset_index()
        parts.append(table.assign(check=check, _order=order))
    out = pd.concat(parts, ignore_index=True).sort_values([*keys, "_order"], kind="stable", na_position="last")
    out["failure_rate"] = np.where(out["judged"] > 0, 100.0 * out["failed"] / out["judged"].clip(lower=1), np.nan)
    return out[columns].reset_index(drop=True)


def error_type_rates(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """The paper's Fig. 6: E1-E3 the failure rate of each judge check, E4-E5 the failure rate of the
    responses to scenarios tagged numeric / latent (failed / scored, unscored and errors left out)."""
    keys = list(by)
    columns = [*keys, "error", "error_label", "failed", "counted", "failure_rate"]
    if df.empty:
        return pd.DataFrame(columns=columns)
    tags = df["tags"].map(lambda t: set(t or [])) if "tags" in df.columns else pd.Series([set()] * len(df), df.index)
    checks = check_failure_rates(df, by=keys).rename(columns={"judged": "counted"})
    parts = []
    for order, (code, label, kind, key) in enumerate(ERROR_TYPES):
        if kind == "check":
            part = checks[checks["check"] == key][[*keys, "failed", "counted"]]
        else:
            inside = tags.map(lambda found, key=key: key in found)
            flags = df[keys].assign(failed=inside & df["status"].eq("failed"), counted=inside & df["scored"])
            part = flags.groupby(keys, sort=True, dropna=False)[["failed", "counted"]].sum().reset_index()
        parts.append(part.assign(error=code, error_label=label, _order=order))
    out = pd.concat(parts, ignore_index=True).sort_values([*keys, "_order"], kind="stable", na_position="last")
    out = out.astype({"failed": "int64", "counted": "int64"})
    out["failure_rate"] = np.where(out["counted"] > 0, 100.0 * out["failed"] / out["counted"].clip(lower=1), np.nan)
    return out[columns].reset_index(drop=True)
