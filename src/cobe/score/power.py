"""The power of `cobe compare`'s exact McNemar test, and the smallest difference it detects.

Every answer comes in bounded time: the power sums the binomial count of discordant pairs only
where it carries mass (a window of 8 standard deviations and 10 counts either side of its mean, all
but about 10⁻¹² of it); over that window of consecutive counts the test's rejection bounds, and the
binomial tails beyond them, each follow from the first count's by one binomial term a step; and
beyond `EXACT_MAX_ITEMS` paired items the closed form of Connor's normal approximation, which the
exact answer meets there, is used instead. Only NumPy and the standard library are loaded: SciPy's
import alone (scipy.stats a second, scipy.special a third of one) was most of a `cobe plan`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

#: the window of discordant-pair counts a power sum covers: this many standard deviations either side
_SPREAD = 8.0
#: and this many counts more, for the skewed binomials of a small discordance
_MARGIN = 10
_NORMAL = NormalDist()


def z_upper(share: float) -> float:
    """The standard normal's upper quantile: z with P(Z > z) = `share`."""
    return -_NORMAL.inv_cdf(share)


#: above this many paired items the smallest detectable difference is Connor's closed form: for the
#: levels `cobe plan` accepts (α ≤ 0.2) the exact test's differs from it by under 0.02 points there,
#: and the exact search would take ever longer
EXACT_MAX_ITEMS = 20_000
#: how close the search for the smallest difference gets (a share: 10⁻⁶ points)
_XTOL = 1e-8


def connor_difference(items: int, discordance: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest difference in pass rate (normal approximation of McNemar's test, Connor 1987):
    the δ solving n δ² = (z_{α/2} √ψ + z_β √(ψ − δ²))² for n paired items with discordance ψ, in
    closed form; NaN when no δ ≤ ψ solves it (too few items, or no discordance)."""
    if items < 1 or discordance <= 0:
        return float("nan")
    a, b = z_upper(alpha / 2) * math.sqrt(discordance), z_upper(1 - power)
    # with y = √(ψ − δ²): (n + b²) y² + 2ab y + (a² − nψ) = 0, and √n δ = a + b y ≥ 0
    quad, lin, const = items + b * b, 2 * a * b, a * a - items * discordance
    disc = lin * lin - 4 * quad * const
    if disc < 0:
        return float("nan")
    roots = [(-lin + sign * math.sqrt(disc)) / (2 * quad) for sign in (1, -1)]
    valid = [y for y in roots if 0 <= y <= math.sqrt(discordance) and a + b * y >= 0]
    if not valid:
        return float("nan")
    delta = math.sqrt(max(discordance - max(valid) ** 2, 0.0))
    return delta if delta <= discordance else float("nan")


_lgamma = np.vectorize(math.lgamma, otypes=[float])


def _log_choose(n: np.ndarray | int, k: np.ndarray) -> np.ndarray:
    """log C(n, k), elementwise (0 ≤ k ≤ n)."""
    n_, k_ = np.asarray(n, dtype=float), np.asarray(k, dtype=float)
    return np.asarray(_lgamma(n_ + 1) - _lgamma(k_ + 1) - _lgamma(n_ - k_ + 1), dtype=float)


def _pmf(counts: np.ndarray, items: int, share: float) -> np.ndarray:
    """Binomial(counts; items, share) (0 < share < 1)."""
    k = counts.astype(float)
    return np.exp(_log_choose(items, k) + k * math.log(share) + (items - k) * math.log1p(-share))


@dataclass(frozen=True)
class _Terms:
    """What the power sum needs for one (items, discordance, α), whatever the difference.

    The counts d are consecutive and their bounds k_d climb by 0 or 1 from one count to the next, so
    P(Binomial(d, q) ≤ k_d) follows along the counts from its first value by one binomial term a step
    (`_path_cdf`): the log binomial coefficients of those terms are kept here, and a power is then a few
    array operations whatever q.
    """

    counts: np.ndarray  # discordant-pair counts d carrying the binomial's mass, consecutive
    weights: np.ndarray  # Binomial(d; items, ψ)
    bound: np.ndarray  # per d, the largest count of the rarer side the exact test rejects at (−1: none)
    first: np.ndarray  # log C(d₀, j), j = 0 … k₀: the first count's CDF
    stay: np.ndarray  # log C(d, k_d) of each count but the last (its term leaves the CDF at d + 1)
    step: np.ndarray  # log C(d + 1, k_{d+1}) of each count but the first (its term joins when k climbs)
    climbs: np.ndarray  # k_{d+1} = k_d + 1


def _path_cdf(terms: _Terms, share: float) -> np.ndarray:
    """P(Binomial(d, share) ≤ k_d) for every count d of `terms`: P(X_{d+1} ≤ k) = P(X_d ≤ k) − share·P(X_d = k),
    plus P(X_{d+1} = k + 1) where the bound climbs."""
    d, k = terms.counts.astype(float), terms.bound.astype(float)
    if share <= 0 or share >= 1:
        return np.where(k >= (d if share >= 1 else 0), 1.0, 0.0)
    low, high = math.log(share), math.log1p(-share)
    j = np.arange(len(terms.first), dtype=float)
    start = float(np.exp(terms.first + j * low + (d[0] - j) * high).sum())
    kept = np.maximum(k, 0)
    leave = np.where(k[:-1] >= 0, share * np.exp(terms.stay + kept[:-1] * low + (d[:-1] - kept[:-1]) * high), 0.0)
    join = np.where(terms.climbs, np.exp(terms.step + kept[1:] * low + (d[1:] - kept[1:]) * high), 0.0)
    path = start + np.concatenate(([0.0], np.cumsum(join - leave)))
    return np.asarray(np.clip(path, 0.0, 1.0))


def _walk_bounds(first: int, last: int, alpha: float) -> np.ndarray:
    """The bounds of `rejection_bounds` for the counts first … last, walked up from the first's CDF."""
    j = np.arange(first + 1)
    cdf = np.cumsum(np.exp(_log_choose(first, j) - first * math.log(2)))
    k = int(np.searchsorted(cdf, alpha / 2, side="left")) - 1  # the largest k with P(≤ k) < α/2
    below = float(cdf[k]) if k >= 0 else 0.0
    bounds = [k]
    for d in range(first, last):
        if k >= 0:  # P(X_{d+1} ≤ k) = P(X_d ≤ k) − ½·P(X_d = k)
            below -= 0.5 * math.exp(math.lgamma(d + 1) - math.lgamma(k + 1) - math.lgamma(d - k + 1) - d * math.log(2))
        n = d + 1
        joined = below + math.exp(math.lgamma(n + 1) - math.lgamma(k + 2) - math.lgamma(n - k) - n * math.log(2))
        if k + 1 <= n and joined < alpha / 2:  # the bound climbs by one at most from one count to the next
            k, below = k + 1, joined
        bounds.append(k)
    return np.array(bounds, dtype=float)


def rejection_bounds(counts: np.ndarray, alpha: float) -> np.ndarray:
    """Per count d of discordant pairs, the largest k with 2·P(Binomial(d, ½) ≤ k) < α (−1: none).

    From d to d + 1 the bound stays or climbs by one, so each run of consecutive counts is walked up
    from its first count's CDF, one binomial term a step, instead of an inverse CDF per count.
    """
    wanted = np.asarray(counts, dtype=np.int64)
    if wanted.size == 0:
        return np.array([], dtype=float)
    unique = np.unique(wanted)
    runs = np.split(unique, np.flatnonzero(np.diff(unique) > 1) + 1)
    found: dict[int, float] = {}
    for run in runs:
        first, last = int(run[0]), int(run[-1])
        found.update(zip(range(first, last + 1), _walk_bounds(first, last, alpha)))
    return np.array([found[int(d)] for d in wanted], dtype=float)


def _count_window(items: int, discordance: float) -> np.ndarray:
    """The counts of discordant pairs holding all but about 10⁻¹² of Binomial(items, ψ)."""
    if discordance >= 1:
        return np.array([items])
    mean, spread = items * discordance, math.sqrt(items * discordance * (1 - discordance))
    low = max(int(math.floor(mean - _SPREAD * spread)) - _MARGIN, 0)
    high = min(int(math.ceil(mean + _SPREAD * spread)) + _MARGIN, items)
    return np.arange(low, high + 1)


def _terms(items: int, discordance: float, alpha: float) -> _Terms:
    counts = _count_window(items, discordance)
    weights = np.ones(1) if discordance >= 1 else _pmf(counts, items, discordance)
    bound = _walk_bounds(int(counts[0]), int(counts[-1]), alpha)
    kept = np.maximum(bound, 0)
    return _Terms(
        counts,
        weights,
        bound,
        first=_log_choose(int(counts[0]), np.arange(int(bound[0]) + 1)),
        stay=_log_choose(counts[:-1], kept[:-1]),
        step=_log_choose(counts[1:], kept[1:]),
        climbs=np.diff(bound) > 0,
    )


def _power(terms: _Terms, share_a: float) -> float:
    # reject when the winner's count is ≤ k or ≥ d − k: P(B ≤ k) + P(d − B ≤ k), d − B ~ Binomial(d, 1 − q)
    reject = _path_cdf(terms, share_a) + _path_cdf(terms, 1 - share_a)
    reject = np.where(terms.bound >= 0, np.minimum(reject, 1.0), 0.0)
    return float(np.sum(terms.weights * reject))


def _share_a(discordance: float, difference: float) -> float:
    return (discordance + difference) / (2 * discordance) if discordance > 0 else 0.5


def mcnemar_power(items: int, discordance: float, difference: float, alpha: float = 0.05) -> float:
    """Power of the exact McNemar test (`cobe compare`'s) for `items` paired items, a share `discordance`
    of them discordant, and pass rates differing by `difference`."""
    if not 0 <= abs(difference) <= discordance <= 1:
        raise ValueError("expected 0 ≤ |difference| ≤ discordance ≤ 1")
    return _power(_terms(items, discordance, alpha), _share_a(discordance, difference))


def detectable_difference(items: int, discordance: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest pass-rate difference the exact McNemar test detects with `power`; NaN if none can.

    Beyond EXACT_MAX_ITEMS paired items: Connor's closed form (see `difference_method`).
    """
    if items < 1 or discordance <= 0:
        return float("nan")
    if items > EXACT_MAX_ITEMS:
        return connor_difference(items, discordance, alpha, power)
    terms = _terms(items, discordance, alpha)
    if _power(terms, 1.0) < power:
        return float("nan")
    if _power(terms, 0.5) >= power:  # the test's own size already reaches the power asked for
        return 0.0
    low, high = 0.0, discordance  # the power grows with the difference: bisect to _XTOL
    while high - low > _XTOL:
        middle = (low + high) / 2
        if _power(terms, _share_a(discordance, middle)) >= power:
            high = middle
        else:
            low = middle
    return high


def difference_method(items: int) -> str:
    """How `detectable_difference` answers for this many paired items, in words."""
    if items > EXACT_MAX_ITEMS:
        return (
            f"Connor's normal approximation of McNemar's test in closed form (over {EXACT_MAX_ITEMS:,} paired "
            "items the exact test's answer is within 0.02 points of it)"
        )
    return (
        "exact McNemar test on the discordant pairs (as `cobe compare`), its power summed over the "
        "binomial count of discordant pairs"
    )
