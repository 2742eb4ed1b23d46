"""Bootstrap confidence intervals for the accuracy (vectorised), resampling whole families.

CoBe's scenarios come in families: a core example and its variations share a story's skeleton, so
their outcomes correlate. Resampling scenarios as if independent then makes intervals far too
narrow, so wherever a core example holds several scenarios its core is the unit drawn (a cluster
bootstrap); otherwise each scenario is (docs/STATISTICS.md). Each draw's accuracy is taken by the
group's rule (cobe.score.rule). With too few units to draw from, or a rate of 0 or 100% that no draw
can move, the interval is the exact one instead (`exact_interval`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cobe.score.binomial import clopper_pearson_effective
from cobe.score.rule import MEAN_RULE, PHRASING, POOLED_RULE, RULE, with_rule

#: cap on resamples × scenarios held in memory at once: each block's draws, weights and products are a few
#: arrays of this many cells (2 MB each), so a report's peak memory does not grow with its rows; the draws
#: are one stream whatever the block size, so the intervals do not depend on it
_BLOCK_CELLS = 250_000
#: the units a bootstrap draws, as reports name them
CORE_UNIT = "core example"
SCENARIO_UNIT = "scenario"
_UNIT_KEYS = {CORE_UNIT: "core_id", SCENARIO_UNIT: "scenario_id"}
#: below this many units with something scored a percentile bootstrap has too few distinct draws to trust
#: (2 units give 3): the interval is the exact one (docs/STATISTICS.md §4)
MIN_CLUSTERS = 10
#: how an interval was made, as tables name it (`ci_method`)
BOOTSTRAP_METHOD = "bootstrap"
EXACT_METHOD = "exact"


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
    rule: str = MEAN_RULE  # how a draw's accuracy is taken (cobe.score.rule)

    def accuracy(self) -> float:
        """The accuracy of every unit once, by the rule."""
        return float(rule_accuracy(self.passes.sum(0), self.scored.sum(0), self.rule))

    def units_scored(self) -> int:
        """How many units hold something scored."""
        return int((self.scored.sum(1) > 0).sum())


def item_matrix(
    df: pd.DataFrame,
    scenarios: Sequence[str] | None = None,
    phrasings: Sequence[str] | None = None,
    unit: str = SCENARIO_UNIT,
    rule: str = MEAN_RULE,
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
        rule=rule,
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


def rule_accuracy(passes: np.ndarray, scored: np.ndarray, rule: str) -> np.ndarray:
    """Row-wise accuracy (%) by a rule: the mean over phrasings, or the pooled passes / scored over them all."""
    if rule != POOLED_RULE:
        return mean_over_phrasings(passes, scored)
    total, counted = passes.sum(axis=-1), scored.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counted > 0, 100.0 * total / np.where(counted > 0, counted, 1.0), np.nan)


def group_rule(df: pd.DataFrame) -> str:
    """The rule of one group's rows (they carry `rule`): pooled where any of them is."""
    return POOLED_RULE if RULE in df.columns and df[RULE].eq(POOLED_RULE).any() else MEAN_RULE


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
    """Accuracy (by the matrix's rule) of each resample of the matrix's units."""
    rng = np.random.default_rng(seed)
    values = [
        rule_accuracy(weights @ matrix.passes, weights @ matrix.scored, matrix.rule)
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
    """Per group: a `level` CI of its accuracy (by its rule), a bootstrap resampling core examples (or scenarios,
    where no core holds several) with replacement, or the exact interval where fewer than MIN_CLUSTERS units are
    scored or the rate is 0 or 100% (`ci_method`); `ci_unit` names the unit and `clusters` counts them."""
    keys = list(by)
    records = []
    if df.empty:
        return pd.DataFrame(columns=keys + ["ci_low", "ci_high", "resamples", "ci_unit", "clusters", "ci_method"])
    ruled = with_rule(df, keys[:1])
    for group, part in ruled.groupby(keys, sort=True, dropna=False):
        group = group if isinstance(group, tuple) else (group,)
        matrix = item_matrix(part, unit=resampling_unit(part), rule=group_rule(part))
        method, (low, high) = interval_of(matrix, resamples, seed, level)
        records.append(
            {
                **dict(zip(keys, group)),
                "ci_low": low,
                "ci_high": high,
                "resamples": resamples,
                "ci_unit": matrix.unit,
                "clusters": len(matrix.scenarios),
                "ci_method": method,
            }
        )
    return pd.DataFrame(records)


def interval_of(matrix: ItemMatrix, resamples: int, seed: int, level: float = 0.95) -> tuple[str, tuple[float, float]]:
    """(method, interval) of a matrix's accuracy: the percentile bootstrap, or the exact interval where too few
    units hold a scored row for draws to vary, or where the rate is 0 or 100% (no draw moves it). No resamples
    (--resamples 0) asks for no interval."""
    units, point = matrix.units_scored(), matrix.accuracy()
    if resamples > 0 and units > 0 and (units < MIN_CLUSTERS or point <= 0.0 or point >= 100.0):
        return EXACT_METHOD, exact_interval(point, units, level)
    return BOOTSTRAP_METHOD, percentile_interval(bootstrap_distribution(matrix, resamples, seed), level)


def exact_interval(accuracy: float, units: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper–Pearson) `level` interval (%) of an accuracy (%) measured on `units` units, taking the
    design effect at its largest (every row of a unit alike: too few units to estimate how alike they are), so
    the rows count as `units` independent draws."""
    low, high = clopper_pearson_effective(accuracy / 100.0 * units, units, level)
    return 100.0 * low, 100.0 * high


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


#: what a report says where some rows' intervals are exact (`ci_method` "exact")
EXACT_NOTE = (
    f"where fewer than {MIN_CLUSTERS} core examples (or scenarios) hold a scored response, or every scored "
    "response passed (or failed), no bootstrap draw can vary: the interval is then the exact (Clopper–Pearson) "
    "one, counting each unit as one draw (the design effect at its largest), and marked (exact)"
)


def exact_rows(table: pd.DataFrame) -> bool:
    """Whether any row of a table has an exact interval."""
    return "ci_method" in table.columns and bool(table["ci_method"].eq(EXACT_METHOD).any())


def interval_text(low: float, high: float, method: str | None, digits: int = 2) -> str:
    """A CI cell: "[18.80, 64.60]", "[0.00, 84.19] (exact)" where exact, "–" where there is none."""
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return "–"
    return f"[{low:.{digits}f}, {high:.{digits}f}]" + (" (exact)" if method == EXACT_METHOD else "")
