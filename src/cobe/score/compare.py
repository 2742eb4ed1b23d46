"""Paired comparison of two runs on the items both scored: bootstrap CI and exact McNemar test.

Both accuracies, and so their difference, are taken on the shared items by one rule (cobe.score.rule), decided
from those items: pooled where their phrasings were asked of different scenarios, where the difference is the
paired one it names, mean(pass_a − pass_b) = (A-only − B-only) / shared items. The bootstrap draws the same
units for both runs, core examples where scenarios come in families (cobe.score.bootstrap), so the interval of
the difference knows that variations move together.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import binom

from cobe.core.errors import InputError
from cobe.score.accuracy import EPOCH, PHRASING
from cobe.score.bootstrap import (
    bootstrap_blocks,
    item_matrix,
    percentile_interval,
    resampling_unit,
    rule_accuracy,
)
from cobe.score.rule import MEAN_RULE, overlap_of

#: one item of a comparison: a scenario in a phrasing, in one epoch (--epochs; runs of one epoch hold epoch 1)
ITEM = ["scenario_id", PHRASING, EPOCH]


@dataclass
class Comparison:
    """The result of comparing run A with run B on the same scored items."""

    label_a: str
    label_b: str
    items: int
    scenarios: int
    accuracy_a: float
    accuracy_b: float
    difference: float  # accuracy_a − accuracy_b, in points
    ci_low: float
    ci_high: float
    a_only: int  # items A passed and B failed
    b_only: int  # items B passed and A failed
    both_pass: int
    both_fail: int
    p_value: float
    alpha: float
    resamples: int
    seed: int
    ci_unit: str = "scenario"  # what the paired bootstrap drew: "core example" or "scenario"
    clusters: int = 0  # how many of them there were
    a_only_items: list[str] = field(default_factory=list)  # the discordant items (item_ids) A passed and B failed
    b_only_items: list[str] = field(default_factory=list)  # and those B passed and A failed
    rule: str = MEAN_RULE  # how both accuracies were taken on the shared items (cobe.score.rule)

    @property
    def significant(self) -> bool:
        """Whether the exact McNemar test rejects equal accuracy at `alpha`."""
        return self.p_value < self.alpha

    def verdict(self) -> str:
        """One line: which run is better and whether the difference is significant."""
        p_text = f"= {self.p_value:.3g}" if self.p_value > 0 else "< 1e-300"
        stats = f"McNemar exact p {p_text}, {self.items} paired items"
        if not self.significant:
            return (
                f"No significant difference at {self.alpha:g}: {self.label_a} − {self.label_b} = "
                f"{self.difference:+.2f} points ({_interval(self.ci_low, self.ci_high)}{stats})."
            )
        if self.difference >= 0:
            better, worse, low, high = self.label_a, self.label_b, self.ci_low, self.ci_high
        else:  # state the CI of better − worse, so its sign matches the sentence
            better, worse, low, high = self.label_b, self.label_a, -self.ci_high, -self.ci_low
        return (
            f"Significant at {self.alpha:g}: {better} beats {worse} by {abs(self.difference):.2f} points "
            f"({_interval(low, high)}{stats})."
        )

    def to_dict(self) -> dict:
        """A JSON-ready dict, with the significance and the verdict line."""
        fields = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(self).items()}
        return {**fields, "significant": self.significant, "verdict": self.verdict()}


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value: a binomial test on the discordant pairs (1.0 when there are none)."""
    discordant = a_only + b_only
    if discordant == 0:
        return 1.0
    return float(min(1.0, 2.0 * binom.cdf(min(a_only, b_only), discordant, 0.5)))


def select_model(df: pd.DataFrame, model: str | None, name: str) -> tuple[pd.DataFrame, str]:
    """The rows of one model (by model or label) of a run; a run holding several needs `model`."""
    labels = sorted(df["label"].unique())
    if model is None:
        if len(labels) != 1:
            raise InputError(
                f"{name} holds several models ({', '.join(labels)}); choose one with --model-{name[-1].lower()}"
            )
        return df, labels[0]
    part = df[(df["model"] == model) | (df["label"] == model)]
    if part.empty:
        raise InputError(f"{name}: model {model!r} not found; expected one of {', '.join(labels)}")
    return part, model


def _item_status(df: pd.DataFrame) -> pd.DataFrame:
    # one row per item; a duplicated item (several rows) passes only if every copy passed
    scored = df[df["scored"]]
    if EPOCH not in scored.columns:
        scored = scored.assign(**{EPOCH: 1})
    status = scored.groupby(ITEM, sort=True)["pass"].all().rename("pass").reset_index()
    if "core_id" in scored.columns:  # the item's family, for the cluster bootstrap
        cores = scored.groupby(ITEM, sort=True)["core_id"].first().reset_index()
        status = status.merge(cores, on=ITEM)
    return status


def item_ids(items: pd.DataFrame, epochs: bool = False) -> list[str]:
    """Each item's id, 'scenario_id:template', with ':epoch' added where the comparison holds several epochs."""
    ids = items["scenario_id"].astype(str) + ":" + items[PHRASING].astype(str)
    if epochs:
        ids = ids + ":" + items[EPOCH].astype(str)
    return ids.tolist()


def _interval(low: float, high: float) -> str:
    """The verdict's CI clause; none without resamples (--resamples 0)."""
    return "" if math.isnan(low) else f"95% CI [{low:+.2f}, {high:+.2f}]; "


def paired_comparison(
    df_a: pd.DataFrame,
    df_b: pd.DataFrame,
    label_a: str = "A",
    label_b: str = "B",
    resamples: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
) -> Comparison:
    """Compare two runs on the scenario × template items scored in both (epoch by epoch, where runs have several)."""
    items_a, items_b = _item_status(df_a), _item_status(df_b).drop(columns="core_id", errors="ignore")
    both = items_a.merge(items_b, on=ITEM, suffixes=("_a", "_b"))
    if both.empty:
        raise InputError("no scenario × template is scored in both runs; expected runs over the same items")
    a, b = both["pass_a"].to_numpy(bool), both["pass_b"].to_numpy(bool)
    a_only, b_only = int((a & ~b).sum()), int((~a & b).sum())
    epochs = bool(both[EPOCH].nunique() > 1)

    keys = both[[*ITEM, "core_id"]] if "core_id" in both.columns else both[ITEM]
    frame_a = keys.assign(scored=True, **{"pass": a})
    frame_b = keys.assign(scored=True, **{"pass": b})
    unit = resampling_unit(frame_a)
    _, _, rule = overlap_of([[set(part["scenario_id"]) for _, part in both.groupby(PHRASING, sort=True)]])
    mat_a, mat_b = item_matrix(frame_a, unit=unit, rule=rule), item_matrix(frame_b, unit=unit, rule=rule)
    acc_a, acc_b = mat_a.accuracy(), mat_b.accuracy()

    # the same scenario draws for both runs: that pairing is what makes the CI tight
    rng = np.random.default_rng(seed)  # the same draws of units for both runs
    diffs = [
        rule_accuracy(w @ mat_a.passes, w @ mat_a.scored, rule)
        - rule_accuracy(w @ mat_b.passes, w @ mat_b.scored, rule)
        for w in bootstrap_blocks(rng, len(mat_a.scenarios), resamples)
    ]
    # --resamples 0 asks for no interval, as the report's bootstrap takes it
    low, high = percentile_interval(np.concatenate(diffs)) if diffs else (math.nan, math.nan)
    return Comparison(
        label_a=label_a,
        label_b=label_b,
        items=len(both),
        scenarios=int(both["scenario_id"].nunique()),
        accuracy_a=acc_a,
        accuracy_b=acc_b,
        difference=acc_a - acc_b,
        ci_low=low,
        ci_high=high,
        a_only=a_only,
        b_only=b_only,
        both_pass=int((a & b).sum()),
        both_fail=int((~a & ~b).sum()),
        p_value=mcnemar_exact(a_only, b_only),
        alpha=alpha,
        resamples=resamples,
        seed=seed,
        ci_unit=unit,
        clusters=len(mat_a.scenarios),
        a_only_items=item_ids(both[a & ~b], epochs),
        b_only_items=item_ids(both[~a & b], epochs),
        rule=rule,
    )
