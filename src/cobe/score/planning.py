"""How big a study must be: scenarios for a CI half-width, human labels for a calibrated-CI half-width,
and the smallest difference a paired comparison of two models detects (docs/STATISTICS.md).

Shares are fractions in [0, 1] here; the CLI speaks percentage points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.stats import binom, norm

from cobe.score.accuracy import PHRASING
from cobe.score.calibration import HUMAN, human_pass


def z_value(level: float) -> float:
    """The two-sided normal quantile of a confidence level (1.96 for 0.95)."""
    return float(norm.ppf(0.5 + level / 2))


def scenario_variance(pass_rate: float, phrasings: int, icc: float) -> float:
    """Variance of one scenario's mean pass over `phrasings` phrasings whose outcomes correlate by `icc`."""
    return pass_rate * (1 - pass_rate) * (1 + (phrasings - 1) * icc) / phrasings


def scenarios_needed(half_width: float, variance: float, level: float = 0.95) -> int:
    """Scenarios for a normal CI of the accuracy (a mean of per-scenario means) of ± `half_width`."""
    if half_width <= 0:
        raise ValueError("the half-width must be positive")
    return max(1, math.ceil(z_value(level) ** 2 * variance / half_width**2))


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
    correlation, N judged items, n labels); solved for n. None when the judged items alone already
    leave the interval wider than asked (more items, not more labels, would help).
    """
    if half_width <= 0:
        raise ValueError("the half-width must be positive")
    z2, variance, rho2 = z_value(level) ** 2, human_rate * (1 - human_rate), min(correlation**2, 1.0)
    room = half_width**2 - (z2 * variance * rho2 / judged_items if judged_items else 0.0)
    if room <= 0:
        return None
    return max(2, math.ceil(z2 * variance * (1 - rho2) / room))


def connor_difference(items: int, discordance: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest difference in pass rate (normal approximation of McNemar's test, Connor 1987):
    the δ solving n δ² = (z_{α/2} √ψ + z_β √(ψ − δ²))² for n paired items with discordance ψ."""
    za, zb = float(norm.ppf(1 - alpha / 2)), float(norm.ppf(power))

    def gap(delta: float) -> float:
        return math.sqrt(items) * delta - za * math.sqrt(discordance) - zb * math.sqrt(max(discordance - delta**2, 0))

    top = math.sqrt(discordance)
    return float(brentq(gap, 1e-12, top)) if gap(top) > 0 else float("nan")


def mcnemar_power(items: int, discordance: float, difference: float, alpha: float = 0.05) -> float:
    """Power of the exact McNemar test (`cobe compare`'s) for `items` paired items, a share `discordance`
    of them discordant, and pass rates differing by `difference`."""
    if not 0 <= abs(difference) <= discordance <= 1:
        raise ValueError("expected 0 ≤ |difference| ≤ discordance ≤ 1")
    d = np.arange(items + 1)
    # the largest count of the rarer side that the two-sided exact test still rejects: 2·cdf(k) < α
    k = binom.ppf(alpha / 2, d, 0.5) - 1
    share_a = (discordance + difference) / (2 * discordance) if discordance > 0 else 0.5
    reject = binom.cdf(k, d, share_a) + binom.sf(d - k - 1, d, share_a)
    reject = np.where(k >= 0, np.minimum(reject, 1.0), 0.0)
    return float(np.sum(binom.pmf(d, items, discordance) * reject))


def detectable_difference(items: int, discordance: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest pass-rate difference the exact McNemar test detects with `power`; NaN if none can."""
    if items < 1 or discordance <= 0:
        return float("nan")
    if mcnemar_power(items, discordance, discordance, alpha) < power:
        return float("nan")
    return float(brentq(lambda delta: mcnemar_power(items, discordance, delta, alpha) - power, 0.0, discordance))


@dataclass(frozen=True)
class Pilot:
    """What a pilot run says about one model, and about pairs of models on the same items."""

    model: str
    pass_rate: float
    scenarios: int
    phrasings: int
    items: int
    scenario_variance: float  # sample variance of per-scenario mean pass
    icc: float | None  # implied correlation of phrasings within a scenario
    human_rate: float | None = None  # share of rated items humans pass
    correlation: float | None = None  # judge–human correlation on rated items
    rated: int = 0
    discordance: dict[str, float] | None = None  # other model → share of paired items with one pass


def _implied_icc(variance: float, pass_rate: float, phrasings: int) -> float | None:
    base = pass_rate * (1 - pass_rate)
    if phrasings < 2 or base == 0:
        return None
    return (variance * phrasings / base - 1) / (phrasings - 1)


def pilot_from_frame(df: pd.DataFrame, by: str = "label") -> list[Pilot]:
    """Rates of each model in a results frame (with human answers where a study rated it)."""
    scored = df[df["scored"]]
    per_item = scored.groupby([by, "scenario_id", PHRASING])["pass"].all()
    pilots = []
    for model, part in scored.groupby(by, sort=True):
        per_scenario = part.groupby("scenario_id")["pass"].mean()
        rate = float(part["pass"].mean())
        phrasings = int(part[PHRASING].nunique())
        variance = float(per_scenario.var(ddof=1)) if len(per_scenario) > 1 else rate * (1 - rate)
        human_rate = correlation = None
        rated = 0
        if HUMAN in part.columns:
            humans = [human_pass(labels) for labels in part[HUMAN]]
            pairs = [(bool(h), bool(j)) for h, j in zip(humans, part["pass"]) if h is not None]
            rated = len(pairs)
            if rated >= 2:
                h = np.array([p[0] for p in pairs], dtype=float)
                j = np.array([p[1] for p in pairs], dtype=float)
                human_rate = float(h.mean())
                correlation = float(np.corrcoef(h, j)[0, 1]) if h.std() > 0 and j.std() > 0 else 0.0
        mine = cast(pd.Series, per_item.loc[model])
        discordance = {}
        for other in scored[by].unique():
            if other == model:
                continue
            theirs = cast(pd.Series, per_item.loc[other])
            both = mine.index.intersection(theirs.index)
            if len(both):
                discordance[str(other)] = float((mine.loc[both] != theirs.loc[both]).mean())
        pilots.append(
            Pilot(
                model=str(model),
                pass_rate=rate,
                scenarios=int(per_scenario.size),
                phrasings=phrasings,
                items=int(len(part)),
                scenario_variance=variance,
                icc=_implied_icc(variance, rate, phrasings),
                human_rate=human_rate,
                correlation=correlation,
                rated=rated,
                discordance=discordance or None,
            )
        )
    return pilots


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
    """The three answers of `cobe plan`, from a pilot model's rates and/or stated ones."""
    p, p_src = _pick(stated.pass_rate, pilot.pass_rate if pilot else None, 0.5)
    m, m_src = _pick(stated.phrasings, pilot.phrasings if pilot else None, 3)
    icc, icc_src = _pick(stated.icc, pilot.icc if pilot else None, 1.0)
    icc = min(max(float(icc), 0.0), 1.0)
    variance, variance_src = scenario_variance(float(p), int(m), icc), "from the above"
    if pilot is not None and stated.pass_rate is None and stated.icc is None:
        # measured directly on the pilot's scenarios: no model of the phrasings needed
        variance, variance_src = pilot.scenario_variance, "pilot"
    scenarios = scenarios_needed(half_width, variance, level)
    flat = "; the rates leave no spread (a pass rate of 0 or 100%), so state --pass-rate" if variance == 0 else ""
    answers = [
        Answer(
            "scenarios for the accuracy's CI half-width",
            scenarios,
            "scenarios",
            {
                "half-width": (half_width, "stated"),
                "pass rate": (float(p), p_src),
                "phrasings": (int(m), m_src),
                "phrasing correlation (ICC)": (icc, icc_src),
                "per-scenario variance": (variance, variance_src),
            },
            "S = z² σ²_s / h², σ²_s = p(1−p)(1+(m−1)ρ)/m (or measured on the pilot's scenarios)",
            "scenarios are assumed independent; a pass rate near 50% needs the most" + flat,
        )
    ]
    items, items_src = _pick(stated.items, None, scenarios * int(m))
    items_src = "stated" if stated.items is not None else "planned scenarios × phrasings"
    h, h_src = _pick(stated.human_rate, pilot.human_rate if pilot else None, float(p))
    h_src = "assumed: the judge's pass rate" if h_src == "assumed" else h_src
    if stated.sensitivity is not None and stated.specificity is not None:
        rho, rho_src = judge_human_correlation(float(h), stated.sensitivity, stated.specificity), "stated"
    elif pilot is not None and pilot.correlation is not None:
        rho, rho_src = pilot.correlation, f"pilot ({pilot.rated} rated items)"
    else:
        rho, rho_src = 0.0, "assumed: no human labels nor stated sensitivity and specificity, so no credit to the judge"
    labels = labels_needed(label_half_width, float(h), rho, int(items), level)
    answers.append(
        Answer(
            "human labels for the calibrated CI half-width",
            labels,
            "labels per model",
            {
                "half-width": (label_half_width, "stated"),
                "human pass rate": (float(h), h_src),
                "judge–human correlation": (rho, rho_src),
                "judged items": (int(items), items_src),
            },
            "n = z² σ² (1−ρ²) / (h² − z² σ² ρ² / N), σ² = p_h(1−p_h): PPI++ with its optimal weight",
            "the labelled items must be a random sample of the judged ones"
            if labels is not None
            else "not reachable with this many judged items: the judge's part alone is wider; judge more items",
        )
    )
    if stated.discordance is not None:
        psi, psi_src = stated.discordance, "stated"
    elif pilot is not None and pilot.discordance:
        other, psi = max(pilot.discordance.items(), key=lambda kv: kv[1])
        psi_src = f"pilot (vs {other})"
    else:
        psi, psi_src = 2 * float(p) * (1 - float(p)), "assumed: two independent models at the pass rate"
    difference = detectable_difference(int(items), float(psi), alpha, power)
    answers.append(
        Answer(
            f"smallest difference two models show at {power:.0%} power",
            difference,
            "share",
            {
                "paired items": (int(items), items_src),
                "discordant share ψ": (float(psi), psi_src),
                "α (two-sided)": (alpha, "stated"),
                "power": (power, "stated"),
                "normal approximation (Connor)": (connor_difference(int(items), float(psi), alpha, power), "formula"),
            },
            "exact McNemar test on the discordant pairs (as `cobe compare`), its power summed over the "
            "binomial count of discordant pairs",
            "items are assumed independent pairs; phrasings of one scenario are not, so the real power is lower "
            "when models win and lose whole scenarios",
        )
    )
    return answers
