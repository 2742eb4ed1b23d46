"""Which rule takes a group's accuracy: the paper's mean over phrasings, or the pooled passes / scored.

The mean over phrasings is the paper's estimator because every scenario is asked in every phrasing. Where a
model's phrasings were asked of mostly different scenarios (the site's files: one query per scenario), a
phrasing's few scenarios would weigh like a whole phrasing, so its point estimate is the pooled passes / scored
(the site's correct / (correct + wrong)). The rule is decided once per model from all its rows, tier by tier
(tiers 2-4 are asked of their own scenario set), and carried on the rows as `rule` so that every cell of every
breakdown, every interval and every comparison applies the same one (docs/SCORING.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

#: the column that identifies a phrasing (template name: A, B, C, D, …, H2)
PHRASING = "template"
#: the column that says by which rule a group's accuracy is taken, and its two values
RULE = "rule"
MEAN_RULE = "mean over phrasings"
POOLED_RULE = "pooled"
#: below this share of a group's scenarios asked in every one of its phrasings, the phrasings were asked of
#: mostly different scenarios (the site's files ask each scenario once): the group is pooled
SAME_SCENARIOS_FLOOR = 0.5
#: what each rule takes, in words
MEAN_WHAT = "mean over phrasings of passes / scored; ± = sample std across phrasings"
POOLED_WHAT = (
    "passes / scored over all of a model's scored responses at once (the site's correct / (correct + wrong)), "
    "because its phrasings were asked of different scenarios and a mean over phrasings would weigh each "
    "phrasing's few scenarios like a whole phrasing; no ± across phrasings is given, the 95% CI is its uncertainty"
)
#: what a pooled row means, under a table that holds one
POOLED_NOTE = f"(pooled) = {POOLED_WHAT}"


def spread_of(scenarios_per_phrasing: Sequence[set[str]]) -> tuple[float, str]:
    """(share of the scenarios that every phrasing was asked, what a ± across them spreads over: "phrasings" or
    "scenarios") for one group's phrasings; NaN and "phrasings" with one phrasing."""
    sets = list(scenarios_per_phrasing)
    if len(sets) < 2:  # one phrasing: its ± is 0, and says nothing of either
        return float("nan"), "phrasings"
    share = round(len(set.intersection(*sets)) / max(len(set.union(*sets)), 1), 4)
    return share, "scenarios" if share < SAME_SCENARIOS_FLOOR else "phrasings"


def overlap_of(tiers: Iterable[Sequence[set[str]]]) -> tuple[float, str, str]:
    """(share, std_over, rule) of one group from the scenarios each phrasing was asked, one list per tier: the
    smallest share over its tiers of several phrasings decides; pooled where that is under SAME_SCENARIOS_FLOOR."""
    shares = [share for share, _ in map(spread_of, tiers) if not math.isnan(share)]
    if not shares:
        return float("nan"), "phrasings", MEAN_RULE
    share = min(shares)
    over = "scenarios" if share < SAME_SCENARIOS_FLOOR else "phrasings"
    return share, over, POOLED_RULE if over == "scenarios" else MEAN_RULE


def _overlaps(df: pd.DataFrame, keys: list[str]) -> list[tuple[tuple, float, str, str]]:
    """(group, *overlap_of) for each group of `keys`, in the order of `df.groupby(keys, sort=True, dropna=False)`.

    Counted for every group at once (a loop over the groups, each with its own sets, took minutes at 100,000
    models): per group and tier, the phrasings, the scenarios, and the scenarios asked in every phrasing."""
    tiers = ["tier"] if "tier" in df.columns and "tier" not in keys else []
    groups = df.groupby(keys, sort=True, dropna=False)
    number = groups.ngroup().rename("_group")
    # what was asked, not what was scored: an errored row is counted apart, not a different scenario
    asked = pd.concat([number, df[[*tiers, PHRASING, "scenario_id"]]], axis=1).dropna(subset=[*tiers, PHRASING])
    asked = asked.drop_duplicates()
    cell = ["_group", *tiers]
    phrasings = asked.groupby(cell, sort=True)[PHRASING].nunique().rename("_phrasings")
    per_scenario = asked.groupby([*cell, "scenario_id"], sort=True)[PHRASING].nunique().rename("_in").reset_index()
    per_scenario = per_scenario.join(phrasings, on=cell)
    per_scenario["_every"] = per_scenario["_in"] == per_scenario["_phrasings"]
    counts = per_scenario.groupby(cell, sort=True).agg(every=("_every", "sum"), scenarios=("_every", "size"))
    counts = counts.join(phrasings)
    counts = counts[counts["_phrasings"] >= 2]  # a tier of one phrasing says nothing of either
    # spread_of's share, by Python's own round, so every figure is as it was to the last digit
    shares = [round(every / max(total, 1), 4) for every, total in zip(counts["every"], counts["scenarios"])]
    least = pd.Series(shares, index=counts.index.get_level_values("_group"), dtype=float).groupby(level=0).min()
    named = df[keys].assign(_group=number).drop_duplicates("_group").sort_values("_group")
    found = []
    for g, group in zip(named["_group"], named[keys].itertuples(index=False, name=None)):
        share = float(least.get(g, math.nan))
        if math.isnan(share):
            values: tuple[float, str, str] = (math.nan, "phrasings", MEAN_RULE)
        else:
            over = "scenarios" if share < SAME_SCENARIOS_FLOOR else "phrasings"
            values = (share, over, POOLED_RULE if over == "scenarios" else MEAN_RULE)
        found.append((tuple(group), *values))
    return found


def phrasing_overlap(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Per group: `same_scenarios`, the share of its scenarios that every one of its phrasings was asked (the
    smallest over its tiers; NaN with one phrasing), `std_over` ("phrasings" as in the paper, "scenarios" as on
    the site's files) and the `rule` its accuracy is taken by."""
    keys = list(by)
    columns = [*keys, "same_scenarios", "std_over", RULE]
    if df.empty or "scenario_id" not in df.columns:
        return pd.DataFrame(columns=columns)
    return pd.DataFrame([[*group, *values] for group, *values in _overlaps(df, keys)], columns=columns)


def with_rule(df: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """The rows with a `rule` column, each group of `by` (a model) under the rule its rows call for; rows that
    carry one already are returned as they are, and rows without scenario ids (which cannot tell) take the mean."""
    if RULE in df.columns or df.empty:
        return df
    if "scenario_id" not in df.columns or PHRASING not in df.columns:
        return df.assign(**{RULE: MEAN_RULE})
    keys = list(by)
    rules = np.array([rule for *_, rule in _overlaps(df, keys)], dtype=object)
    codes = df.groupby(keys, sort=True, dropna=False).ngroup().to_numpy()
    return df.assign(**{RULE: rules[codes]})


def pooled_groups(df: pd.DataFrame, keys: list[str]) -> pd.Series:
    """Per row: whether its group of `keys` is pooled, i.e. whether any of the group's rows is (`df` has `rule`)."""
    pooled = df[RULE].eq(POOLED_RULE)
    return pooled.groupby([df[k] for k in keys], sort=False, dropna=False).transform("any").astype(bool)


def accuracy_text(value: float | None, std: float | None, rule: str | None, digits: int = 2) -> str:
    """A leaderboard's accuracy cell: "61.37 ± 0.46" by the mean over phrasings, "42.11 (pooled)" pooled (no ±
    across phrasings: POOLED_NOTE), "–" where there is none."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if rule == POOLED_RULE:
        return f"{value:.{digits}f} (pooled)"
    spread = 0.0 if std is None or (isinstance(std, float) and math.isnan(std)) else std
    return f"{value:.{digits}f} ± {spread:.{digits}f}"


def rule_sentence(rules: Iterable[object]) -> str:
    """How a table's accuracies were taken, for the line that introduces it: by the mean over phrasings, pooled,
    or the one with the rows marked (pooled) apart."""
    found = {str(rule) for rule in rules}
    if POOLED_RULE not in found:
        return f"Accuracy = {MEAN_WHAT}"
    if found <= {POOLED_RULE}:
        return f"Accuracy = pooled {POOLED_WHAT}"
    return f"Accuracy = {MEAN_WHAT}; rows marked {POOLED_NOTE}"


def rule_definition(rule: object) -> str:
    """What an accuracy by `rule` is, for an export's metric description."""
    if rule == POOLED_RULE:
        return (
            "passes / scored pooled over all of the model's phrasings (templates), which were asked of different "
            "scenarios (the site's correct / (correct + wrong)); no std across phrasings"
        )
    return "mean over phrasings (templates) of passes / scored; std is the sample std (ddof = 1) across phrasings"
