"""How far a judge's confidence holds: its P(T) beside how often the reference says T.

A reliability table bins the P(T) of each verdict into equal-width bins over [0, 1] and sets the mean P(T)
of a bin beside the share of its items the reference calls T. The expected calibration error (ECE) is the
mean gap between the two, each bin weighed by its items; the Brier score is the mean squared difference
between P(T) and the reference (1 for T, 0 for F). A judge that says 0.9 and is right nine times in ten has a
small ECE; one that says 0.99 and is right eight times in ten has a larger one, though both answer alike.

A reference that gives one verdict per response (a human rater's rubric, a site's published verdict) is met with
the judge's probability of passing it: the product of its three checks' P(T). Each check is a call of its own,
so were each answer drawn from its call's distribution the three would be independent, and the product is the
chance that all three come out T, the pass rule's only pass. (The smallest of the three would be an upper bound
on that chance, not the chance; docs/STATISTICS.md.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: bins of a reliability table
BINS = 10


@dataclass(frozen=True)
class ReliabilityBin:
    """One bin of P(T): its bounds, its items, their mean P(T) and the share the reference calls T."""

    low: float
    high: float
    items: int
    mean_p: float | None  # None for an empty bin
    observed: float | None


@dataclass(frozen=True)
class Reliability:
    """A judge's P(T) against a reference on one check: the table, ECE and Brier score."""

    items: int
    bins: list[ReliabilityBin]
    ece: float | None  # None without items
    brier: float | None


def _pairs(p_true: Sequence[float], reference: Sequence[bool]) -> list[tuple[float, bool]]:
    if len(p_true) != len(reference):
        raise ValueError(f"{len(p_true)} probabilities for {len(reference)} reference verdicts")
    for p in p_true:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"P(T) {p} is not a probability")
    return list(zip(p_true, reference))


def reliability_bins(p_true: Sequence[float], reference: Sequence[bool], bins: int = BINS) -> list[ReliabilityBin]:
    """The table: `bins` equal-width bins over [0, 1] (the last closed at 1), each with its items' mean P(T)
    and the share of them the reference calls T."""
    if bins < 1:
        raise ValueError("a reliability table needs at least one bin")
    members: list[list[tuple[float, bool]]] = [[] for _ in range(bins)]
    for p, truth in _pairs(p_true, reference):
        members[min(int(p * bins), bins - 1)].append((p, truth))
    table = []
    for index, held in enumerate(members):
        mean_p = sum(p for p, _ in held) / len(held) if held else None
        observed = sum(1 for _, truth in held if truth) / len(held) if held else None
        table.append(ReliabilityBin(index / bins, (index + 1) / bins, len(held), mean_p, observed))
    return table


def expected_calibration_error(p_true: Sequence[float], reference: Sequence[bool], bins: int = BINS) -> float | None:
    """The mean |mean P(T) − observed share| over the bins, weighed by their items; None without items."""
    table = reliability_bins(p_true, reference, bins)
    total = sum(b.items for b in table)
    if not total:
        return None
    return (
        sum(b.items * abs(b.mean_p - b.observed) for b in table if b.mean_p is not None and b.observed is not None)
        / total
    )


def brier_score(p_true: Sequence[float], reference: Sequence[bool]) -> float | None:
    """The mean of (P(T) − 1[reference is T])²; None without items."""
    pairs = _pairs(p_true, reference)
    if not pairs:
        return None
    return sum((p - (1.0 if truth else 0.0)) ** 2 for p, truth in pairs) / len(pairs)


def pass_probability(p_checks: Sequence[float]) -> float:
    """The judge's P(pass) of one response: the product of its three checks' P(T) (the module's note says why)."""
    if len(p_checks) != 3:
        raise ValueError(f"{len(p_checks)} P(T) given: a pass needs the three checks'")
    product = 1.0
    for p in p_checks:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"P(T) {p} is not a probability")
        product *= p
    return product


def reliability(p_true: Sequence[float], reference: Sequence[bool], bins: int = BINS) -> Reliability:
    """The reliability table, ECE and Brier score of one check's P(T) against its reference."""
    return Reliability(
        items=len(p_true),
        bins=reliability_bins(p_true, reference, bins),
        ece=expected_calibration_error(p_true, reference, bins),
        brier=brier_score(p_true, reference),
    )
