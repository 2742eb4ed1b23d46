"""One verdict set against a reference set on the same responses (a judge against the authors' published
verdicts, a cheap judge against an expensive one): pass rates under each, Cohen's kappa with a cluster
bootstrap interval, and the 2×2 table of their overall pass/fail verdicts.

Rows are the responses both sets scored; which rows those are is the caller's to decide and count. The
interval draws core examples with replacement (or scenarios, where no core holds several: the report's
rule, `cobe.score.bootstrap.resampling_unit`), every row of a drawn unit at once, all models' together,
since a core's variations share a story's skeleton and one scenario's answers share its criteria.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from cobe.score.agreement import kappa_undefined, metrics_from_counts
from cobe.score.bootstrap import bootstrap_blocks, percentile_interval, resampling_unit, unit_column

#: the four cells of the table, reference first: both pass, both fail, and each way they differ
CELLS = ("both_pass", "both_fail", "reference_pass_set_fail", "reference_fail_set_pass")
#: the group name of every row together
ALL = "all"
#: columns a pairs frame holds: one row per response both sets scored
PAIR_COLUMNS = ("model", "scenario_id", "core_id", "reference_pass", "set_pass")


def _cells(frame: pd.DataFrame) -> pd.DataFrame:
    """Each row's cell of the 2×2 table, one boolean column per cell."""
    ref, got = frame["reference_pass"].astype(bool), frame["set_pass"].astype(bool)
    return pd.DataFrame(
        {CELLS[0]: ref & got, CELLS[1]: ~ref & ~got, CELLS[2]: ref & ~got, CELLS[3]: ~ref & got}, index=frame.index
    )


def _counts(frame: pd.DataFrame) -> dict[str, int]:
    return {str(cell): int(total) for cell, total in _cells(frame).sum().items()}


def kappa_of_counts(counts: np.ndarray) -> np.ndarray:
    """Cohen's kappa of each row of 2×2 tables given as (both pass, both fail, ref pass/set fail, ref fail/set
    pass) columns; NaN where it is undefined (no rows, or either set gave one verdict only)."""
    both_pass, both_fail, ref_only, set_only = (counts[..., i].astype(float) for i in range(4))
    n = both_pass + both_fail + ref_only + set_only
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (both_pass + both_fail) / n
        ref_passes, set_passes = both_pass + ref_only, both_pass + set_only
        expected = (ref_passes * set_passes + (n - ref_passes) * (n - set_passes)) / (n * n)
        kappa = (observed - expected) / (1.0 - expected)
    one_class = (ref_passes == 0) | (ref_passes == n) | (set_passes == 0) | (set_passes == n)
    return np.where((n > 0) & ~one_class, kappa, np.nan)


def kappa_interval(
    frame: pd.DataFrame, resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[tuple[float, float] | None, str, int]:
    """(the `level` percentile interval of kappa over resampled units or None, the unit, how many units)."""
    unit = resampling_unit(frame)
    key = unit_column(unit)
    if frame.empty:
        return None, unit, 0
    per_unit = _cells(frame).groupby(frame[key], sort=True).sum().to_numpy(dtype=float)
    rng = np.random.default_rng(seed)
    kappas = [kappa_of_counts(weights @ per_unit) for weights in bootstrap_blocks(rng, len(per_unit), resamples)]
    low, high = percentile_interval(np.concatenate(kappas) if kappas else np.empty(0), level)  # --resamples 0
    return (None if np.isnan(low) else (low, high)), unit, len(per_unit)


def _group(name: str, frame: pd.DataFrame, resamples: int, seed: int) -> dict[str, Any]:
    counts = _counts(frame)
    compared = len(frame)
    # the reference as "truth" and failure as the positive class, as in the judge–human table
    cells = {
        "tp": counts["both_fail"],
        "fp": counts["reference_pass_set_fail"],
        "fn": counts["reference_fail_set_pass"],
        "tn": counts["both_pass"],
    }
    metrics = metrics_from_counts(**cells)
    interval, unit, units = kappa_interval(frame, resamples, seed)
    ref_rate = 100.0 * (counts["both_pass"] + counts["reference_pass_set_fail"]) / compared if compared else None
    set_rate = 100.0 * (counts["both_pass"] + counts["reference_fail_set_pass"]) / compared if compared else None
    return {
        "model": name,
        "compared": compared,
        "reference_accuracy": ref_rate,
        "set_accuracy": set_rate,
        "difference": None if ref_rate is None or set_rate is None else set_rate - ref_rate,
        "agreement": None if metrics["accuracy"] is None else 100.0 * metrics["accuracy"],
        "kappa": metrics["kappa"],
        "kappa_ci": list(interval) if interval is not None and metrics["kappa"] is not None else None,
        "kappa_undefined": kappa_undefined(**cells, sides=("this set", "the reference")),
        "ci_unit": unit,
        "clusters": units,
        **counts,
    }


def set_agreement(pairs: pd.DataFrame, resamples: int = 1000, seed: int = 0) -> list[dict[str, Any]]:
    """Per model, then every row together (`all`): compared rows, pass rates (%: passes / compared) under the
    reference and the set and their difference in points, agreement (%), kappa and its bootstrap 95% CI, and
    the four cells. `pairs` holds PAIR_COLUMNS, one row per response both sets scored."""
    missing = [c for c in PAIR_COLUMNS if c not in pairs.columns]
    if missing:
        raise ValueError(f"pairs frame lacks {', '.join(missing)}")
    groups = [_group(str(model), part, resamples, seed) for model, part in pairs.groupby("model", sort=False)]
    return [*groups, _group(ALL, pairs, resamples, seed)]


def empty_pairs() -> pd.DataFrame:
    """A pairs frame with no row."""
    return pd.DataFrame({c: pd.Series(dtype=object) for c in PAIR_COLUMNS})


def pairs_frame(records: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """The pairs frame of records holding PAIR_COLUMNS."""
    return pd.DataFrame(list(records), columns=list(PAIR_COLUMNS)) if records else empty_pairs()
