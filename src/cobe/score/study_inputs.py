"""What `cobe plan` is told, and the ranges that say what a plan can sensibly use.

Kept apart from the arithmetic (cobe.score.study_size, which loads SciPy and pandas) so that a value
outside its range is refused in one line before anything heavy is imported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cobe.core.errors import InputError

#: what `cobe plan` accepts, as (lowest, highest); half-widths are shares (0.001 = 0.1 points)
HALF_WIDTH_RANGE = (0.001, 0.5)
PHRASINGS_RANGE = (1, 100)
VARIATIONS_RANGE = (1, 1000)
ITEMS_RANGE = (1, 1_000_000_000)
ALPHA_RANGE = (1e-6, 0.2)
POWER_RANGE = (0.5, 0.999)
DETECT_RANGE = (0.001, 1.0)  # --detect, as a share: 0.1 to 100 points


@dataclass(frozen=True)
class Stated:
    """Rates stated by the user; each one given overrides what a pilot says."""

    pass_rate: float | None = None
    phrasings: int | None = None
    icc: float | None = None
    human_rate: float | None = None
    sensitivity: float | None = None
    specificity: float | None = None
    items: int | None = None  # judged items per model in the planned study
    discordance: float | None = None
    variations: int | None = None  # scenarios per core example in the planned study
    core_icc: float | None = None  # correlation of one core example's scenarios
    against: str | None = None  # the pilot's model whose discordance with the planned one is used
    detect: float | None = None  # a difference (share) two models must be told apart at


def _outside(value: float, bounds: tuple[float, float]) -> bool:
    return not (math.isfinite(value) and bounds[0] <= value <= bounds[1])


def check_ranges(stated: Stated, *, half_width: float, label_half_width: float, alpha: float, power: float) -> None:
    """InputError, in one line naming the option, for any input outside what a plan can sensibly use."""
    low, high = (100 * bound for bound in HALF_WIDTH_RANGE)
    for flag, value in (("--half-width", half_width), ("--label-half-width", label_half_width)):
        if _outside(value, HALF_WIDTH_RANGE):
            raise InputError(
                f"{flag} {100 * value:g}: expected {low:g} to {high:g} points (below {low:g} a study needs "
                "millions of scenarios or labels; above it the interval spans the whole scale)"
            )
    counts = (
        ("--phrasings", stated.phrasings, PHRASINGS_RANGE, "phrasings per scenario (CoBe has 3, all tiers 9)"),
        ("--variations", stated.variations, VARIATIONS_RANGE, "scenarios per core example (CoBe has up to 25)"),
        ("--items", stated.items, ITEMS_RANGE, "judged items per model"),
    )
    for flag, count, bounds, what in counts:
        if count is not None and _outside(count, bounds):
            raise InputError(f"{flag} {count}: expected {bounds[0]:,} to {bounds[1]:,} {what}")
    shares = (
        ("--pass-rate", stated.pass_rate),
        ("--icc", stated.icc),
        ("--human-rate", stated.human_rate),
        ("--judge-sensitivity", stated.sensitivity),
        ("--judge-specificity", stated.specificity),
        ("--discordance", stated.discordance),
        ("--core-icc", stated.core_icc),
    )
    if stated.detect is not None and _outside(stated.detect, DETECT_RANGE):
        low, high = (100 * bound for bound in DETECT_RANGE)
        raise InputError(f"--detect {100 * stated.detect:g}: expected {low:g} to {high:g} points between two models")
    for flag, share in shares:
        if share is not None and _outside(share, (0.0, 1.0)):
            raise InputError(f"{flag} {share:g}: expected a share from 0 to 1")
    _no_question(stated)
    if _outside(alpha, ALPHA_RANGE):
        raise InputError(
            f"--alpha {alpha:g}: expected {ALPHA_RANGE[0]:g} to {ALPHA_RANGE[1]:g} (at 0.2 already one "
            "comparison in five finds a difference where there is none)"
        )
    if _outside(power, POWER_RANGE):
        raise InputError(
            f"--power {power:g}: expected {POWER_RANGE[0]:g} to {POWER_RANGE[1]:g} (below 0.5 a real difference "
            "is missed more often than found)"
        )


def _no_question(stated: Stated) -> None:
    """A stated rate under which a plan has nothing to answer is one line, not a count that means nothing."""
    for flag, rate in (("--pass-rate", stated.pass_rate), ("--human-rate", stated.human_rate)):
        if rate in (0.0, 1.0):
            raise InputError(
                f"{flag} {rate:g}: at a pass rate of 0 or 1 every response fails or every one passes, so any number "
                "of scenarios or labels gives an interval of zero width; state the rate you expect, above 0 and below 1"
            )
    if stated.discordance == 0.0:
        raise InputError(
            "--discordance 0: two models that never differ on an item show no difference to detect; "
            "expected a share above 0 and at most 1"
        )
