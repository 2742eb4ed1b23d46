"""The exact (Clopper–Pearson) binomial interval of a share: the judge self-test's probes and the pass rates
calibrated on human labels both report it."""

from __future__ import annotations


def clopper_pearson(hits: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact two-sided binomial interval of hits / n (SciPy's Clopper–Pearson)."""
    from scipy.stats import binomtest  # SciPy loads only when an interval is computed

    if n <= 0:
        raise ValueError("an interval needs at least one trial")
    interval = binomtest(hits, n).proportion_ci(confidence_level=level, method="exact")
    return float(interval.low), float(interval.high)
