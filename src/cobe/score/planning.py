"""How big a study must be: scenarios for a CI half-width, human labels for a calibrated-CI half-width,
and the smallest difference a paired comparison of two models detects (docs/STATISTICS.md).

Scenarios come in families (a core example and its variations), so the scenario count carries the
design effect 1 + (v − 1)·ρ_c of v variations per core correlated by ρ_c. Every answer is a closed
form or a bounded search (cobe.score.power), and the inputs are checked against ranges that say
what is sensible (`check_ranges`), so a plan answers at once or says in one line what it needs.
Shares are fractions in [0, 1] here; the CLI speaks percentage points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scipy.stats import norm

from cobe.score.plan_inputs import Stated, check_ranges
from cobe.score.power import connor_difference, detectable_difference, difference_method

if TYPE_CHECKING:  # a pilot is read by cobe.score.pilot (pandas), which a plan from stated rates never loads
    from cobe.score.pilot import Pilot


def z_value(level: float) -> float:
    """The two-sided normal quantile of a confidence level (1.96 for 0.95)."""
    return float(norm.ppf(0.5 + level / 2))


def scenario_variance(pass_rate: float, phrasings: int, icc: float) -> float:
    """Variance of one scenario's mean pass over `phrasings` phrasings whose outcomes correlate by `icc`."""
    return pass_rate * (1 - pass_rate) * (1 + (phrasings - 1) * icc) / phrasings


def design_effect(variations: float, core_icc: float) -> float:
    """How much families widen the variance of a mean over scenarios: 1 + (v − 1)·ρ_c."""
    return 1 + (max(variations, 1.0) - 1) * core_icc


def scenarios_needed(half_width: float, variance: float, level: float = 0.95, effect: float = 1.0) -> int:
    """Scenarios for a normal CI of the accuracy (a mean of per-scenario means) of ± `half_width`,
    the per-scenario variance inflated by the families' design effect."""
    if half_width <= 0:
        raise ValueError("the half-width must be positive")
    return max(1, math.ceil(z_value(level) ** 2 * variance * effect / half_width**2))


def judge_human_correlation(human_rate: float, sensitivity: float, specificity: float) -> float:
    """Correlation of judge and human pass labels (phi) from the human pass rate and the judge's
    sensitivity (passes what humans pass) and specificity (fails what humans fail)."""
    judge_rate = human_rate * sensitivity + (1 - human_rate) * (1 - specificity)
    covariance = human_rate * sensitivity - human_rate * judge_rate
    spread = math.sqrt(human_rate * (1 - human_rate) * judge_rate * (1 - judge_rate))
    return covariance / spread if spread > 0 else 0.0


def labels_needed(
    half_width: float, human_rate: float, correlation: float, judged_items: int | None, level: float = 0.95
) -> int | None:
    """Human labels for a PPI++ CI of ± `half_width` with `judged_items` judged in all (None: unlimited).

    With the optimal weight the variance is σ²ρ²/N + σ²(1 − ρ²)/n (σ² = p(1 − p), ρ the judge–human
    correlation, N judged items, n labels); solved for n. None when no n ≤ N reaches it: the judged
    items alone leave the interval wider than asked, or labelling every one of them still does
    (more items, not more labels, would help).
    """
    if half_width <= 0:
        raise ValueError("the half-width must be positive")
    z2, variance, rho2 = z_value(level) ** 2, human_rate * (1 - human_rate), min(correlation**2, 1.0)
    room = half_width**2 - (z2 * variance * rho2 / judged_items if judged_items else 0.0)
    if room <= 0:
        return None
    labels = max(2, math.ceil(z2 * variance * (1 - rho2) / room))
    return labels if judged_items is None or labels <= max(judged_items, 2) else None


@dataclass(frozen=True)
class Answer:
    """One planning answer with every input it used and where each came from (pilot, stated, assumed)."""

    question: str
    value: float | int | None
    unit: str
    inputs: dict[str, tuple[float | int | None, str]]
    method: str
    caveat: str = ""


def _pick(stated: float | int | None, pilot: float | int | None, default: float | int) -> tuple[float | int, str]:
    if stated is not None:
        return stated, "stated"
    if pilot is not None and not (isinstance(pilot, float) and math.isnan(pilot)):
        return pilot, "pilot"
    return default, "assumed"


def _families(pilot: Pilot | None, stated: Stated) -> tuple[float, str, float, str]:
    """(variations per core, its source, their correlation ρ_c, its source) of the planned study."""
    variations, v_src = _pick(stated.variations, pilot.variations if pilot else None, 1)
    if v_src == "assumed":
        v_src = "assumed: no core example holds several scenarios"
    core_icc, c_src = _pick(stated.core_icc, pilot.core_icc if pilot else None, 1.0)
    if c_src == "assumed":
        c_src = "assumed: a core's variations always agree (the most scenarios)"
    return float(variations), v_src, min(max(float(core_icc), 0.0), 1.0), c_src


def _scenarios_answer(pilot: Pilot | None, stated: Stated, half_width: float, level: float) -> Answer:
    p, p_src = _pick(stated.pass_rate, pilot.pass_rate if pilot else None, 0.5)
    m, m_src = _pick(stated.phrasings, pilot.phrasings if pilot else None, 3)
    icc, icc_src = _pick(stated.icc, pilot.icc if pilot else None, 1.0)
    icc = min(max(float(icc), 0.0), 1.0)
    variance, variance_src = scenario_variance(float(p), int(m), icc), "from the above"
    if pilot is not None and stated.pass_rate is None and stated.icc is None:
        # measured directly on the pilot's scenarios: no model of the phrasings needed
        variance, variance_src = pilot.scenario_variance, "pilot"
    variations, v_src, core_icc, c_src = _families(pilot, stated)
    effect = design_effect(variations, core_icc)
    scenarios = scenarios_needed(half_width, variance, level, effect)
    flat = "; the rates leave no spread (a pass rate of 0 or 100%), so state --pass-rate" if variance == 0 else ""
    families = (
        f"about {math.ceil(scenarios / variations)} core examples of {variations:g} variations each"
        if variations > 1
        else "scenarios are assumed independent (state --variations and --core-icc for families)"
    )
    return Answer(
        "scenarios for the accuracy's CI half-width",
        scenarios,
        "scenarios",
        {
            "half-width": (half_width, "stated"),
            "pass rate": (float(p), p_src),
            "phrasings": (int(m), m_src),
            "phrasing correlation (ICC)": (icc, icc_src),
            "per-scenario variance": (variance, variance_src),
            "variations per core example": (variations, v_src),
            "core correlation (ICC)": (core_icc, c_src),
            "design effect": (effect, "1 + (v − 1)·ρ_c"),
        },
        "S = z² σ²_s (1 + (v−1)ρ_c) / h², σ²_s = p(1−p)(1+(m−1)ρ)/m (or measured on the pilot's scenarios)",
        f"{families}; a pass rate near 50% needs the most" + flat,
    )


def _labels_answer(
    pilot: Pilot | None, stated: Stated, items: tuple[int, str], pass_rate: float, half_width: float, level: float
) -> Answer:
    h, h_src = _pick(stated.human_rate, pilot.human_rate if pilot else None, pass_rate)
    h_src = "assumed: the judge's pass rate" if h_src == "assumed" else h_src
    if stated.sensitivity is not None and stated.specificity is not None:
        rho, rho_src = judge_human_correlation(float(h), stated.sensitivity, stated.specificity), "stated"
    elif pilot is not None and pilot.correlation is not None:
        rho, rho_src = pilot.correlation, f"pilot ({pilot.rated} rated items)"
    else:
        rho, rho_src = 0.0, "assumed: no human labels nor stated sensitivity and specificity, so no credit to the judge"
    labels = labels_needed(half_width, float(h), rho, items[0], level)
    return Answer(
        "human labels for the calibrated CI half-width",
        labels,
        "labels per model",
        {
            "half-width": (half_width, "stated"),
            "human pass rate": (float(h), h_src),
            "judge–human correlation": (rho, rho_src),
            "judged items": items,
        },
        "n = z² σ² (1−ρ²) / (h² − z² σ² ρ² / N), σ² = p_h(1−p_h): PPI++ with its optimal weight",
        "the labelled items must be a random sample of the judged ones"
        if labels is not None
        else f"not reachable with {items[0]:,} judged item{'s' if items[0] != 1 else ''}: even labelling every one "
        "leaves the interval wider than asked; judge more items",
    )


def _difference_answer(
    pilot: Pilot | None, stated: Stated, items: tuple[int, str], pass_rate: float, alpha: float, power: float
) -> Answer:
    if stated.discordance is not None:
        psi, psi_src = stated.discordance, "stated"
    elif pilot is not None and pilot.discordance:
        other, psi = max(pilot.discordance.items(), key=lambda kv: kv[1])
        psi_src = f"pilot (vs {other})"
    else:
        psi, psi_src = 2 * pass_rate * (1 - pass_rate), "assumed: two independent models at the pass rate"
    n = items[0]
    return Answer(
        f"smallest difference two models show at {power:.0%} power",
        detectable_difference(n, float(psi), alpha, power),
        "share",
        {
            "paired items": items,
            "discordant share ψ": (float(psi), psi_src),
            "α (two-sided)": (alpha, "stated"),
            "power": (power, "stated"),
            "normal approximation (Connor)": (connor_difference(n, float(psi), alpha, power), "formula"),
        },
        difference_method(n),
        "items are assumed independent pairs; phrasings of one scenario and variations of one core example are "
        "not, so the real power is lower when models win and lose whole scenarios or families",
    )


def plan_study(
    pilot: Pilot | None,
    stated: Stated,
    *,
    half_width: float = 0.03,
    label_half_width: float = 0.03,
    level: float = 0.95,
    alpha: float = 0.05,
    power: float = 0.8,
) -> list[Answer]:
    """The three answers of `cobe plan`, from a pilot model's rates and/or stated ones (ranges checked)."""
    check_ranges(stated, half_width=half_width, label_half_width=label_half_width, alpha=alpha, power=power)
    scenarios = _scenarios_answer(pilot, stated, half_width, level)
    pass_rate = float(scenarios.inputs["pass rate"][0] or 0.0)
    phrasings = int(scenarios.inputs["phrasings"][0] or 1)
    if stated.items is not None:
        items = (stated.items, "stated")
    else:
        items = (int(scenarios.value or 1) * phrasings, "planned scenarios × phrasings")
    return [
        scenarios,
        _labels_answer(pilot, stated, items, pass_rate, label_half_width, level),
        _difference_answer(pilot, stated, items, pass_rate, alpha, power),
    ]
