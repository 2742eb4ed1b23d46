"""Scoring: the paper's accuracy, grouped breakdowns, bootstrap CIs, paired comparisons and
judge-human agreement.

Names are listed once, in `__init__.pyi`, and load on first use: bootstrap and comparison pull in
SciPy/statsmodels, which the evaluation engine never needs (about a second and 60 MB per process)."""

from cobe.core.lazy import attach

__getattr__, __all__ = attach(__name__, __file__)
