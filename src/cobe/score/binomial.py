"""The exact (Clopper–Pearson) binomial interval of a share: the judge self-test's probes, the pass rates
calibrated on human labels, and an accuracy measured on too few core examples to bootstrap report it."""

from __future__ import annotations


def clopper_pearson(hits: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact two-sided binomial interval of hits / n (SciPy's Clopper–Pearson)."""
    from scipy.stats import binomtest  # SciPy loads only when an interval is computed

    if n <= 0:
        raise ValueError("an interval needs at least one trial")
    interval = binomtest(hits, n).proportion_ci(confidence_level=level, method="exact")
    return float(interval.low), float(interval.high)


def clopper_pearson_effective(hits: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """The Clopper–Pearson interval of hits / n where both may be fractional (an effective sample size, n / the
    design effect): the beta quantiles the exact interval is made of, SciPy's `beta.ppf`."""
    from scipy.stats import beta

    if n <= 0:
        raise ValueError("an interval needs at least one trial")
    hits = min(max(hits, 0.0), float(n))
    tail = (1.0 - level) / 2.0
    low = 0.0 if hits <= 0 else float(beta.ppf(tail, hits, n - hits + 1))
    high = 1.0 if hits >= n else float(beta.ppf(1.0 - tail, hits + 1, n - hits))
    return low, high
