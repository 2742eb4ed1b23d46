"""Scoring: the paper's accuracy, grouped breakdowns, bootstrap CIs and paired comparisons."""

from __future__ import annotations

from cobe.score.accuracy import accuracy, breakdown, by_phrasing, check_failure_rates, mean_and_std, rows_frame
from cobe.score.bootstrap import bootstrap_accuracy
from cobe.score.compare import Comparison, mcnemar_exact, paired_comparison

__all__ = [
    "Comparison",
    "accuracy",
    "bootstrap_accuracy",
    "breakdown",
    "by_phrasing",
    "check_failure_rates",
    "mcnemar_exact",
    "mean_and_std",
    "paired_comparison",
    "rows_frame",
]

try:  # judge–human agreement lives in its own module, written separately
    from cobe.score.agreement import agreement_metrics  # noqa: F401
except ImportError:
    pass
else:
    __all__.append("agreement_metrics")
