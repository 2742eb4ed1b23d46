"""Scoring: the paper's accuracy, grouped breakdowns, bootstrap CIs, paired comparisons and
judge-human agreement.

Names load on first use: bootstrap and comparison pull in SciPy/statsmodels, which the
evaluation engine never needs (about a second and 60 MB per process)."""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "accuracy": "cobe.score.accuracy",
    "breakdown": "cobe.score.accuracy",
    "by_phrasing": "cobe.score.accuracy",
    "check_failure_rates": "cobe.score.accuracy",
    "mean_and_std": "cobe.score.accuracy",
    "pooled_accuracy": "cobe.score.accuracy",
    "rows_frame": "cobe.score.accuracy",
    "bootstrap_accuracy": "cobe.score.bootstrap",
    "Comparison": "cobe.score.compare",
    "mcnemar_exact": "cobe.score.compare",
    "paired_comparison": "cobe.score.compare",
    "agreement_metrics": "cobe.score.agreement",
    "metrics_from_counts": "cobe.score.agreement",
    "binary_metrics": "cobe.score.agreement",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cobe.score' has no attribute {name!r}")
    return getattr(import_module(module), name)
