"""Every pair of several models: the paired comparison of each (cobe.score.compare), with Holm's adjustment.

Nine models make 36 pairs; at 5% each, about two pairs would look different by chance alone, so the
p-values of McNemar's test are adjusted for the family of pairs with Holm's step-down method
(statsmodels' `multipletests`), which controls the family-wise error rate without assuming independence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations

import pandas as pd

from cobe.core.errors import InputError
from cobe.score.accuracy import accuracy
from cobe.score.compare import Comparison, paired_comparison

#: how the p-values of the pairs are adjusted, as tables and JSON name it
ADJUSTMENT = "holm"


@dataclass
class Pair:
    """One pair's paired comparison, with its McNemar p adjusted over all pairs."""

    comparison: Comparison
    p_holm: float

    @property
    def significant(self) -> bool:
        """Whether the pair differs at the family-wise `alpha`, after Holm's adjustment."""
        return self.p_holm < self.comparison.alpha

    def to_dict(self) -> dict:
        """The comparison's fields (the raw p as `p_value`), the Holm p and its significance."""
        fields = self.comparison.to_dict()
        fields.pop("verdict")  # its sentence reads the raw p; a pair's verdict is `significant_holm`
        fields["significant_raw"] = fields.pop("significant")
        return {**fields, "p_holm": self.p_holm, "significant_holm": self.significant}


@dataclass
class AllPairs:
    """Every pair of the models given, the better-ranked model of each as A."""

    models: list[str]  # by accuracy, best first
    accuracies: dict[str, float]
    pairs: list[Pair] = field(default_factory=list)
    alpha: float = 0.05
    resamples: int = 1000
    seed: int = 0

    def to_dict(self) -> dict:
        """A JSON-ready dict: the models, how p was adjusted, and each pair with its discordant item ids."""
        return {
            "models": [{"label": m, "accuracy": self.accuracies[m]} for m in self.models],
            "pairs": [pair.to_dict() for pair in self.pairs],
            "adjustment": ADJUSTMENT,
            "alpha": self.alpha,
            "resamples": self.resamples,
            "seed": self.seed,
            "different_pairs": sum(pair.significant for pair in self.pairs),
        }


def holm(p_values: list[float]) -> list[float]:
    """Holm-adjusted p-values (statsmodels' multipletests), in the order given."""
    if not p_values:
        return []
    from statsmodels.stats.multitest import multipletests

    return [float(p) for p in multipletests(p_values, method=ADJUSTMENT)[1]]


def all_pairs(
    frames: Mapping[str, pd.DataFrame],
    resamples: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
) -> AllPairs:
    """The paired comparison of every pair of the models given (label → its rows), p adjusted by Holm."""
    if len(frames) < 2:
        raise InputError(f"{len(frames)} model given; expected two or more to compare")
    accuracies = {}
    for label, frame in frames.items():
        table = accuracy(frame.assign(model=label))
        accuracies[label] = float(table["accuracy"].iloc[0]) if not table.empty else float("nan")
    # best first (a model with nothing scored last), so each pair's difference reads as A's lead
    models = sorted(frames, key=lambda m: (pd.isna(accuracies[m]), -accuracies[m], m))
    comparisons = []
    for label_a, label_b in combinations(models, 2):
        try:
            comparisons.append(
                paired_comparison(
                    frames[label_a], frames[label_b], label_a, label_b, resamples=resamples, seed=seed, alpha=alpha
                )
            )
        except InputError as exc:
            raise InputError(f"{label_a} vs {label_b}: {exc}") from None
    adjusted = holm([c.p_value for c in comparisons])
    return AllPairs(
        models=models,
        accuracies=accuracies,
        pairs=[Pair(c, p) for c, p in zip(comparisons, adjusted)],
        alpha=alpha,
        resamples=resamples,
        seed=seed,
    )
