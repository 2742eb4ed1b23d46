"""Which ranks the data can tell apart: each model's 95% rank range over a joint cluster bootstrap.

Nine models get nine places on a leaderboard even when their intervals overlap. Here every resample
draws one set of units (core examples where scenarios come in families, as cobe.score.bootstrap
decides) for all models at once, ranks the models by their accuracy on that draw (1 = best; ties
share the better rank), and a model's rank range is the central `level` of its ranks over the
resamples. Two models whose ranges overlap are ones the data does not order (docs/STATISTICS.md).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from cobe.score.bootstrap import bootstrap_blocks, group_rule, item_matrix, resampling_unit, rule_accuracy
from cobe.score.rule import PHRASING, with_rule

#: how a leaderboard says it decided its rank ranges (with the resamples and the unit filled in)
RANK_METHOD = (
    "the central 95% of the ranks each model takes over {resamples} bootstrap resamples of "
    "{unit}, the same units drawn for every model (ties share the better rank); models whose ranges "
    "overlap are not told apart by the data"
)


def min_ranks(values: np.ndarray) -> np.ndarray:
    """Each row's competition ranks (ties share the lowest, as SciPy's `rankdata(method="min")`): 1 + how many
    in the row are smaller. Written out because SciPy's stats module costs a report a second of imports."""
    return 1 + (values[:, None, :] < values[:, :, None]).sum(axis=2)


def rank_ranges(
    df: pd.DataFrame, by: str = "label", resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> pd.DataFrame:
    """Per `by` group: `rank_low` and `rank_high`, the central `level` of its bootstrap ranks (NaN where nothing
    is scored, or with no resamples)."""
    groups = list(dict.fromkeys(df[by])) if not df.empty else []
    empty = pd.DataFrame({by: groups, "rank_low": math.nan, "rank_high": math.nan})
    if resamples <= 0 or not groups:
        return empty
    unit = resampling_unit(df)
    units = sorted(item_matrix(df, unit=unit).scenarios)
    phrasings = sorted(str(p) for p in df[PHRASING].dropna().unique())
    ruled = with_rule(df, [by])  # each model's accuracy on a draw by its own rule, as on the leaderboard
    parts = [ruled[ruled[by] == group] for group in groups]
    matrices = [
        item_matrix(part, scenarios=units, phrasings=phrasings, unit=unit, rule=group_rule(part)) for part in parts
    ]
    rng = np.random.default_rng(seed)
    ranks = []
    for weights in bootstrap_blocks(rng, len(units), resamples):
        # one column per model, one row per resample: the accuracy of each model on the same draw
        acc = np.column_stack([rule_accuracy(weights @ m.passes, weights @ m.scored, m.rule) for m in matrices])
        ranks.append(min_ranks(np.where(np.isnan(acc), np.inf, -acc)))  # none scored: last
    drawn = np.concatenate(ranks)
    tail = 100.0 * (1.0 - level) / 2.0
    # ranks taken, never interpolated between: the range is as wide as the draws say, or wider
    low = np.percentile(drawn, tail, axis=0, method="lower")
    high = np.percentile(drawn, 100.0 - tail, axis=0, method="higher")
    nothing = [not bool(m.scored.sum()) for m in matrices]
    return pd.DataFrame(
        {
            by: groups,
            "rank_low": [math.nan if none else float(v) for v, none in zip(low, nothing)],
            "rank_high": [math.nan if none else float(v) for v, none in zip(high, nothing)],
        }
    )


def rank_text(low: float | None, high: float | None) -> str:
    """'3' or '2–5', a dash where there is no range."""
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return "–"
    return f"{int(low)}" if low == high else f"{int(low)}–{int(high)}"


def rank_method(resamples: int, unit_note: str) -> str:
    """How a leaderboard decided its rank ranges, to follow 'Rank range: '."""
    if resamples <= 0:
        return "none, as --resamples 0 draws no bootstrap"
    return RANK_METHOD.format(resamples=resamples, unit=unit_note)
