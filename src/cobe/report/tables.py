"""Every report table, built from one results frame with the grouped functions of cobe.score."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from cobe.core.results import CHECK_LABELS
from cobe.dataset.schema import FAILURE_MODE_LABELS
from cobe.report.overall_only import overall_only, without_unchecked
from cobe.report.panel import panel_tables
from cobe.score.accuracy import (
    accuracy,
    breakdown,
    breakdown_rows,
    by_epoch,
    by_phrasing,
    check_failure_rates,
    epoch_spread,
    error_type_rates,
    several_epochs,
)
from cobe.score.bootstrap import bootstrap_accuracy
from cobe.score.calibration import HUMAN, calibration_table
from cobe.score.ranks import rank_ranges
from cobe.score.rule import RULE, phrasing_overlap, with_rule

#: tags whose subsets get their own check failure rates
SUBSET_TAGS: tuple[str, ...] = ("numeric", "latent")
COUNTS = ["n", "scored", "passes", "unscored", "errors"]
#: a breakdown cell with fewer scored responses than this is marked `small` (and drawn pale): its rate is noise
MIN_CELL = 10
FAILURE_LABELS: dict[str, str] = {mode.value: label for mode, label in FAILURE_MODE_LABELS.items()}


def primary_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Each label's rows at its lowest prompt tier: the leaderboard is tier 1 when a run holds several."""
    if df.empty or df["tier"].nunique() == 1:
        return df
    lowest = df.groupby("label")["tier"].transform("min")
    return df[df["tier"] == lowest]


def leaderboard(df: pd.DataFrame, resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Paper Table 5: accuracy by each row's `rule` (± sample std over phrasings, or pooled: cobe.score.rule), a
    95% CI, the counts, and the judge and judge prompt set behind each row (several, joined with ' + ', where a
    label's rows name several).

    `accuracy_incl_errors` is the same accuracy with respondent errors counted as failures. The CI
    resamples core examples where scenarios come in families: `ci_unit` says which unit was drawn and
    `clusters` how many there were; `ci_method` is "exact" where too few were scored to bootstrap. `rank_low`–`rank_high` is the range of ranks the data allows each row, from
    a bootstrap drawing the same units for every row (cobe.score.ranks).
    """
    table = accuracy(df, by=["label"])
    frame = df.assign(**{c: df[c] if c in df.columns else None for c in ("judge", "judge_prompts")})
    meta = (
        frame.groupby("label", dropna=False)
        .agg(
            model=("model", "first"),
            run=("run", "first"),
            tier=("tier", "min"),
            judge=("judge", _judges),
            judge_prompts=("judge_prompts", _judges),
        )
        .reset_index()
    )
    table = table.merge(meta, on="label")
    overlap = phrasing_overlap(df, by=["label"])
    table = table.merge(overlap[["label", "same_scenarios", "std_over"]], on="label", how="left")
    table["std_over"] = table["std_over"].fillna("phrasings")
    epochs = several_epochs(df)
    if epochs:  # --epochs K: how many, and the spread of their accuracies
        table = table.merge(epoch_spread(df, by=["label"]), on="label")
    if resamples > 0:
        table = table.merge(bootstrap_accuracy(df, by=["label"], resamples=resamples, seed=seed), on="label")
    else:
        table["ci_low"] = table["ci_high"] = float("nan")
        table["ci_unit"], table["clusters"], table["ci_method"] = None, 0, None
    table = table.merge(rank_ranges(df, "label", resamples=resamples, seed=seed), on="label")
    columns = [
        *["label", "model", "run", "judge", "judge_prompts", "tier", "accuracy", "std", RULE, "ci_low", "ci_high"],
        *["ci_method", "rank_low", "rank_high", "ci_unit", "clusters", "accuracy_incl_errors", "std_incl_errors"],
        "phrasings",
        *["same_scenarios", "std_over", *COUNTS],
        *(["epochs", "epoch_std"] if epochs else []),
    ]
    return (
        table[columns]
        .sort_values(["accuracy", "label"], ascending=[False, True], na_position="last")
        .reset_index(drop=True)
    )


def _judges(values: pd.Series) -> str | None:
    """The judges (or prompt sets) a label's rows name, in the order met; None where no row names one."""
    named = [str(v) for v in dict.fromkeys(values.dropna())]
    return " + ".join(named) if named else None


def epoch_table(df: pd.DataFrame) -> pd.DataFrame:
    """--epochs K: the accuracy of each epoch per model (by its rule), with the counts."""
    table = by_epoch(df, by=["label"])
    return table[["label", "epoch", "accuracy", "std", RULE, "phrasings", *COUNTS]]


def with_intervals(table: pd.DataFrame, rows: pd.DataFrame, key: str, resamples: int, seed: int) -> pd.DataFrame:
    """A breakdown table with each cell's 95% CI (the leaderboard's: a bootstrap resampling core examples where
    scenarios come in families, exact where too few; NaN with no resamples) and `small`: fewer than MIN_CELL
    scored responses."""
    if table.empty:
        return table.assign(
            ci_low=pd.Series(dtype=float),
            ci_high=pd.Series(dtype=float),
            ci_method=pd.Series(dtype=object),
            small=pd.Series(dtype=bool),
        )
    if resamples > 0:
        intervals = bootstrap_accuracy(rows, by=["label", key], resamples=resamples, seed=seed)
        columns = ["label", key, "ci_low", "ci_high", "ci_method"]
        table = table.merge(intervals[columns], on=["label", key], how="left")
    else:
        table = table.assign(ci_low=float("nan"), ci_high=float("nan"), ci_method=None)
    return table.assign(small=table["scored"] < MIN_CELL)


def phrasing_table(df: pd.DataFrame, resamples: int = 0, seed: int = 0) -> pd.DataFrame:
    """Fig. 8: accuracy of each phrasing (template) per model, with its 95% CI."""
    table = by_phrasing(df, by=["label"])[["label", "template", "accuracy", *COUNTS]]
    return with_intervals(table, df, "template", resamples, seed)


def key_table(df: pd.DataFrame, key: str, resamples: int = 0, seed: int = 0) -> pd.DataFrame:
    """Accuracy per value of a metadata key (graph type, domain, …) per model, each cell by its model's rule,
    with its 95% CI."""
    table = breakdown(df, key, by=["label"])
    if table.empty:
        return table
    table = table[["label", key, "accuracy", "std", RULE, "phrasings", *COUNTS]]
    return with_intervals(table, breakdown_rows(df, key), key, resamples, seed)


def failure_mode_table(df: pd.DataFrame, resamples: int = 0, seed: int = 0) -> pd.DataFrame:
    """Fig. 9: accuracy on the scenarios tagged with each failure mode, with the paper's names."""
    table = key_table(df, "failure_modes", resamples, seed).rename(columns={"failure_modes": "failure_mode"})
    if table.empty:
        return table.assign(failure_mode_label=pd.Series(dtype=str))
    table.insert(2, "failure_mode_label", table["failure_mode"].map(lambda m: FAILURE_LABELS.get(m, str(m))))
    return table


def checks_table(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 6: the failure rate of each check, over all rows and inside the numeric and latent subsets."""
    parts = [check_failure_rates(df, by=["label"]).assign(subset="all")]
    tags = df["tags"] if "tags" in df.columns else pd.Series([[]] * len(df), index=df.index)
    for tag in SUBSET_TAGS:
        inside = df[tags.map(lambda t, tag=tag: tag in (t or []))]
        if not inside.empty:
            parts.append(check_failure_rates(inside, by=["label"]).assign(subset=tag))
    table = pd.concat(parts, ignore_index=True)
    table.insert(2, "check_label", table["check"].map(CHECK_LABELS))
    return table[["subset", "label", "check", "check_label", "judged", "failed", "unscored", "failure_rate"]]


def error_types_table(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 6: E1-E3 the failure rate of each check, E4-E5 of the responses on numeric / latent scenarios."""
    return error_type_rates(df, by=["label"])


def shared_scenarios(df: pd.DataFrame) -> set[str]:
    """The scenarios every model × tier answered (a row that is not pending), so tiers compare like for like."""
    answered = df[df["status"] != "pending"]
    sets = [set(part["scenario_id"]) for _, part in answered.groupby(["label", "tier"])]
    return set.intersection(*sets) if sets else set()


def tier_table(df: pd.DataFrame) -> pd.DataFrame:
    """Table 7: accuracy per prompt tier and model (by the model's rule: the mean over that tier's phrasings, or
    pooled), on one shared scenario set.

    `scenarios` is the size of that set; `left_out` counts the scenarios some tier answered that are not in it.
    """
    shared = shared_scenarios(df)
    answered = set(df.loc[df["status"] != "pending", "scenario_id"])
    table = accuracy(df[df["scenario_id"].isin(shared)], by=["label", "tier"])
    table["scenarios"], table["left_out"] = len(shared), len(answered - shared)
    return table[["label", "tier", "accuracy", "std", RULE, "phrasings", "scenarios", "left_out", *COUNTS]]


def status_table(df: pd.DataFrame) -> pd.DataFrame:
    """Rows per model and status, so unscored and errored rows are visible next to pass/fail.

    `cut_off` counts the unscored replies stopped by the token limit (never judged); `no_marker` the
    reasoning-template replies without their final-story line (judged whole).
    """
    table = df.groupby(["label", "status"]).size().unstack(fill_value=0)
    for status in ("passed", "failed", "unscored", "error"):
        if status not in table.columns:
            table[status] = 0
    unjudged = df["unjudged"] if "unjudged" in df.columns else pd.Series([None] * len(df), index=df.index)
    judged_whole = df["no_marker"].eq(True) if "no_marker" in df.columns else pd.Series(False, index=df.index)
    # rows written before marker-less replies were judged whole say so in `unjudged`
    counted = {"cut_off": unjudged.eq("truncated"), "no_marker": judged_whole | unjudged.eq("no_final_marker")}
    for column, flags in counted.items():
        table[column] = flags.groupby(df["label"]).sum().reindex(table.index, fill_value=0).astype(int)
    return table[["passed", "failed", "unscored", "cut_off", "no_marker", "error"]].reset_index()


def build_tables(df: pd.DataFrame, resamples: int = 1000, seed: int = 0) -> dict[str, pd.DataFrame]:
    """All tables of a report, by name; the tier table only when the runs hold several tiers. Each label's rule
    (cobe.score.rule) is decided once, from all its rows, and every table applies it."""
    df = with_rule(df, ["label"])
    main = primary_rows(df)
    unchecked = overall_only(main)  # one verdict per response: no per-check rate to give (Fig. 6)
    tables = {
        "leaderboard": leaderboard(main, resamples=resamples, seed=seed),
        "status": status_table(df),
        "phrasing": phrasing_table(main, resamples, seed),
        "graph_type": key_table(main, "graph_type", resamples, seed),
        "domain": key_table(main, "domain", resamples, seed),
        "failure_mode": failure_mode_table(main, resamples, seed),
        "checks": without_unchecked(checks_table(main), unchecked, "judged"),
        "error_types": without_unchecked(error_types_table(main), unchecked, "counted"),
    }
    tables.update(panel_tables(main, df))  # judges: panels, samples, self-preference
    if df["tier"].nunique() > 1:
        tables["tiers"] = tier_table(df)
    if several_epochs(main):
        tables["epochs"] = epoch_table(main)
    if HUMAN in main.columns and main[HUMAN].notna().any():
        tables["calibration"] = calibration_table(main)
        tables["leaderboard"] = with_calibration(tables["leaderboard"], tables["calibration"])
    return tables


def with_calibration(board: pd.DataFrame, calibration: pd.DataFrame) -> pd.DataFrame:
    """The leaderboard with the human-calibrated pass rate (%) and its 95% CI beside the judge-only accuracy."""
    overall = calibration[calibration["target"] == "overall"].rename(
        columns={"ci_low": "calibrated_low", "ci_high": "calibrated_high", "labeled": "human_labels"}
    )
    columns = ["label", "calibrated", "calibrated_low", "calibrated_high", "human_labels"]
    return board.merge(overall[columns], on="label", how="left")


def write_tables(tables: dict[str, pd.DataFrame], directory: Path, formats: set[str]) -> list[Path]:
    """Write each table as CSV and/or JSON (records) under `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, table in tables.items():
        if "csv" in formats:
            path = directory / f"{name}.csv"
            table.to_csv(path, index=False)
            written.append(path)
        if "json" in formats:
            path = directory / f"{name}.json"
            table.to_json(path, orient="records", indent=2, force_ascii=False)
            written.append(path)
    return written
