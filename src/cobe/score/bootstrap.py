"""Bootstrap confidence intervals for the paper's accuracy (vectorised), resampling whole families.

CoBe's scenarios come in families: a core example and its variations share a story's skeleton, so
their outcomes correlate. Resampling scenarios as if independent then makes intervals far too
narrow, so wherever a core example holds several scenarios its core is the unit drawn (a cluster
bootstrap); otherwise each scenario is (docs/STATISTICS.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cobe.score.accuracy import PHRASING

#: cap on resamples × scenarios held in memory at once: each block's draws, weights and products are a few
#: arrays of this many cells (2 MB each), so a report's peak memory does not grow with its rows; the draws
#: are one stream whatever the block size, so the intervals do not depend on it
_BLOCK_CELLS = 250_000
#: the units a bootstrap draws, as reports name them
CORE_UNIT = "core example"
SCENARIO_UNIT = "scenario"
_UNIT_KEYS = {CORE_UNIT: "core_id", SCENARIO_UNIT: "scenario_id"}


def unit_column(unit: str) -> str:
    """The column of result rows that holds a resampling unit's ids: `core_id` or `scenario_id`."""
    return _UNIT_KEYS[unit]


def resampling_unit(df: pd.DataFrame) -> str:
    """What a bootstrap of these rows draws: their core examples where one holds several scenarios, else scenarios."""
    if "core_id" not in df.columns or df.empty or df["core_id"].isna().any():
        return SCENARIO_UNIT
    per_core = df.groupby("core_id")["scenario_id"].nunique()
    return CORE_UNIT if int(per_core.max()) > 1 else SCENARIO_UNIT


@dataclass
class ItemMatrix:
    """Pass and scored counts per resampled unit (rows: scenarios or core examples) and phrasing (columns)."""

    scenarios: np.ndarray  # the unit ids: scenario ids, or core ids when `unit` is CORE_UNIT
    phrasings: list[str]
    passes: np.ndarray  # shape (S, T)
    scored: np.ndarray  # shape (S, T)
    unit: str = SCENARIO_UNIT


def item_matrix(
    df: pd.DataFrame,
    scenarios: Sequence[str] | None = None,
    phrasings: Sequence[str] | None = None,
    unit: str = SCENARIO_UNIT,
) -> ItemMatrix:
    """Counts of passes and scored rows per unit × phrasing; unscored and errored rows count in neither.

    A core example's row sums its scenarios' counts, so the accuracy of any draw of units is that of
    the scenarios they hold.
    """
    key = _UNIT_KEYS[unit]
    counts = df.groupby([key, PHRASING], sort=True).agg(passes=("pass", "sum"), scored=("scored", "sum"))
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
        unit=unit,
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
    """Accuracy (mean over phrasings) of each resample of the matrix's units."""
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
    """Per group: a `level` bootstrap CI of the accuracy, resampling core examples (or scenarios, where no
    core holds several) with replacement; `ci_unit` names the unit and `clusters` counts them."""
    keys = list(by)
    records = []
    if df.empty:
        return pd.DataFrame(columns=keys + ["ci_low", "ci_high", "resamples", "ci_unit", "clusters"])
    for group, part in df.groupby(keys, sort=True, dropna=False):
        group = group if isinstance(group, tuple) else (group,)
        matrix = item_matrix(part, unit=resampling_unit(part))
        low, high = percentile_interval(bootstrap_distribution(matrix, resamples, seed), level)
        records.append(
            {
                **dict(zip(keys, group)),
                "ci_low": low,
                "ci_high": high,
                "resamples": resamples,
                "ci_unit": matrix.unit,
                "clusters": len(matrix.scenarios),
            }
        )
    return pd.DataFrame(records)


def resampling_note(table: pd.DataFrame) -> str:
    """What a table's bootstrap drew, for a report line: 'core examples (20 clusters)' or 'scenarios (60)'."""
    if table.empty or "ci_unit" not in table.columns:
        return "scenarios"
    parts = []
    for unit, rows in table.groupby("ci_unit", sort=True):
        counts = sorted({int(n) for n in rows["clusters"]})
        shown = "/".join(str(n) for n in counts)
        parts.append(f"core examples ({shown} clusters)" if unit == CORE_UNIT else f"scenarios ({shown})")
    return " and ".join(parts)
