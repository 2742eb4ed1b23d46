"""Bootstrap confidence intervals for the paper's accuracy, resampling scenarios (vectorised)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cobe.score.accuracy import PHRASING

#: cap on resamples × scenarios held in memory at once (int64 weights: ~40 MB)
_BLOCK_CELLS = 5_000_000


@dataclass
class ItemMatrix:
    """Pass and scored counts per scenario (rows) and phrasing (columns)."""

    scenarios: np.ndarray
    phrasings: list[str]
    passes: np.ndarray  # shape (S, T)
    scored: np.ndarray  # shape (S, T)


def item_matrix(
    df: pd.DataFrame, scenarios: Sequence[str] | None = None, phrasings: Sequence[str] | None = None
) -> ItemMatrix:
    """Counts of passes and scored rows per scenario × phrasing; unscored and errored rows count in neither."""
    counts = df.groupby(["scenario_id", PHRASING], sort=True).agg(passes=("pass", "sum"), scored=("scored", "sum"))
    passes = counts["passes"].unstack(fill_value=0)
    scored = counts["scored"].unstack(fill_value=0)
    if scenarios is not None:
        passes, scored = passes.reindex(list(scenarios), fill_value=0), scored.reindex(list(scenarios), fill_value=0)
    if phrasings is not None:
        passes = passes.reindex(columns=list(phrasings), fill_value=0)
        scored = scored.reindex(columns=list(phrasings), fill_value=0)
    return ItemMatrix(
        scenarios=passes.index.to_numpy(),
        phrasings=[str(c) for c in passes.columns],
        passes=passes.to_numpy(dtype=float),
        scored=scored.to_numpy(dtype=float),
    )


def mean_over_phrasings(passes: np.ndarray, scored: np.ndarray) -> np.ndarray:
    """Row-wise mean over phrasings of 100·passes/scored, leaving out phrasings with nothing scored."""
    with np.errstate(invalid="ignore", divide="ignore"):
        pct = np.where(scored > 0, 100.0 * passes / np.where(scored > 0, scored, 1.0), np.nan)
    present = ~np.isnan(pct)
    total = np.where(present, pct, 0.0).sum(axis=-1)
    count = present.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def resample_weights(rng: np.random.Generator, n_items: int, resamples: int) -> np.ndarray:
    """How often each item is drawn in each resample: shape (resamples, n_items)."""
    draws = rng.integers(0, n_items, size=(resamples, n_items))
    offsets = (np.arange(resamples) * n_items)[:, None]
    return np.bincount((draws + offsets).ravel(), minlength=resamples * n_items).reshape(resamples, n_items)


def bootstrap_blocks(rng: np.random.Generator, n_items: int, resamples: int) -> Iterator[np.ndarray]:
    """Weight matrices covering `resamples` draws, in blocks small enough to keep memory bounded."""
    block = max(1, min(resamples, _BLOCK_CELLS // max(n_items, 1)))
    done = 0
    while done < resamples:
        size = min(block, resamples - done)
        yield resample_weights(rng, n_items, size)
        done += size


def bootstrap_distribution(matrix: ItemMatrix, resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """Accuracy (mean over phrasings) of each resample of the scenarios."""
    rng = np.random.default_rng(seed)
    values = [
        mean_over_phrasings(weights @ matrix.passes, weights @ matrix.scored)
        for weights in bootstrap_blocks(rng, len(matrix.scenarios), resamples)
    ]
    return np.concatenate(values) if values else np.empty(0)


def percentile_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The central `level` percentile interval, ignoring resamples with nothing scored."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return float("nan"), float("nan")
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(finite, [tail, 100.0 - tail])
    return float(low), float(high)


def bootstrap_accuracy(
    df: pd.DataFrame,
    by: Sequence[str] = ("model",),
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> pd.DataFrame:
    """Per group: a `level` bootstrap CI of the accuracy, resampling scenario ids with replacement."""
    keys = list(by)
    records = []
    if df.empty:
        return pd.DataFrame(columns=keys + ["ci_low", "ci_high", "resamples"])
    for group, part in df.groupby(keys, sort=True, dropna=False):
        group = group if isinstance(group, tuple) else (group,)
        low, high = percentile_interval(bootstrap_distribution(item_matrix(part), resamples, seed), level)
        records.append({**dict(zip(keys, group)), "ci_low": low, "ci_high": high, "resamples": resamples})
    return pd.DataFrame(records)
