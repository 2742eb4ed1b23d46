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

from cobe.core.errors import InputError
from cobe.score.power import (
    EXACT_MAX_ITEMS,
    connor_difference,
    detectable_difference,
    difference_method,
    mcnemar_power,
    z_upper,
)
from cobe.score.study_inputs import Stated, check_ranges

if TYPE_CHECKING:  # a pilot is read by cobe.score.pilot (pandas), which a plan from stated rates never loads
    from cobe.score.pilot import Pilot


def z_value(level: float) -> float:
    """The two-sided normal quantile of a confidence level (1.96 for 0.95)."""
    return z_upper((1 - level) / 2)


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
    """One planning answer with every input it used and where each came from (pilot, stated, assumed).

    A figure that does not exist is None, never NaN (JSON has none), and `missing` says in words why it is not
    there; `caveat` says what follows."""

    question: str
    value: float | int | None
    unit: str
    inputs: dict[str, tuple[float | int | None, str]]
    method: str
    caveat: str = ""
    missing: str = "not reachable"

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _figure(self.value))
        object.__setattr__(self, "inputs", {k: (_figure(v), src) for k, (v, src) in self.inputs.items()})


def _figure(value: float | int | None) -> float | int | None:
    return None if isinstance(value, float) and not math.isfinite(value) else value


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
    if icc_src == "assumed" and pilot is not None:
        # a pilot of one phrasing per scenario (the site's files) holds nothing to estimate it from
        icc_src = "assumed: the pilot answers each scenario in one phrasing, so it cannot tell; state --icc"
        icc_src += " (no effect at one phrasing)" if int(m) == 1 else ""
    elif icc_src == "assumed":
        icc_src = "assumed: a scenario's phrasings always agree, the most scenarios"
    variance, variance_src = scenario_variance(float(p), int(m), icc), "from the above"
    if pilot is not None and stated.pass_rate is None and stated.icc is None:
        # measured directly on the pilot's scenarios: no model of the phrasings needed
        variance, variance_src = pilot.scenario_variance, "pilot"
    variations, v_src, core_icc, c_src = _families(pilot, stated)
    effect = design_effect(variations, core_icc)
    # no spread (every answer of the pilot passed, or every one failed): any count gives a zero-width interval
    scenarios = scenarios_needed(half_width, variance, level, effect) if variance > 0 else None
    flat = (
        "; the pilot's rates leave no spread (it passed every answer, or none), so no count of scenarios is "
        "worth more than another: state the pass rate you expect with --pass-rate"
        if scenarios is None
        else ""
    )
    families = (
        f"about {math.ceil(scenarios / variations):,} core examples of {variations:.3g} variations each"
        if variations > 1 and scenarios is not None
        else "its scenarios come in families (state --pass-rate to count them)"
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
        missing="no answer: nothing varies",
    )


def _labels_answer(
    pilot: Pilot | None,
    stated: Stated,
    items: tuple[int | None, str],
    pass_rate: float,
    half_width: float,
    level: float,
) -> Answer:
    h, h_src = _pick(stated.human_rate, pilot.human_rate if pilot else None, pass_rate)
    h_src = "assumed: the judge's pass rate" if h_src == "assumed" else h_src
    if stated.sensitivity is not None and stated.specificity is not None:
        rho, rho_src = judge_human_correlation(float(h), stated.sensitivity, stated.specificity), "stated"
    elif pilot is not None and pilot.correlation is not None:
        rho, rho_src = pilot.correlation, f"pilot ({pilot.rated} rated items)"
    else:
        rho, rho_src = 0.0, "assumed: no human labels nor stated sensitivity and specificity, so no credit to the judge"
    spread = 0 < float(h) < 1
    labels = labels_needed(half_width, float(h), rho, items[0], level) if spread else None
    if not spread:
        caveat = "the human pass rate is 0 or 100%: labels would all agree, so no count is worth more than another; "
        caveat += "state the rate you expect with --human-rate"
    elif labels is not None:
        caveat = "the labelled items must be a random sample of the judged ones"
    else:
        count = items[0] or 0
        caveat = f"not reachable with {count:,} judged item{'s' if count != 1 else ''}: even labelling every one "
        caveat += "leaves the interval wider than asked; judge more items"
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
        caveat,
        missing="not reachable" if spread else "no answer: nothing varies",
    )


def _discordance(pilot: Pilot | None, stated: Stated, pass_rate: float) -> tuple[float, str]:
    """ψ, the share of paired items where exactly one of two models passes, and where it came from."""
    if stated.discordance is not None:
        return stated.discordance, "stated"
    if pilot is not None and pilot.discordance:
        found = pilot.discordance
        if stated.against is not None:
            if stated.against not in found:
                raise InputError(
                    f"--against {stated.against!r}: no model of the pilot shares items with {pilot.model}; "
                    f"expected one of {', '.join(found)}"
                )
            return found[stated.against], f"pilot (vs {stated.against})"
        other, psi = max(found.items(), key=lambda kv: kv[1])
        if len(found) == 1:
            return psi, f"pilot (vs {other})"
        return psi, f"pilot (vs {other}, the most discordant of {len(found)} models; --against MODEL chooses)"
    if stated.against is not None:
        raise InputError(f"--against {stated.against!r}: the pilot holds no second model to pair with")
    return 2 * pass_rate * (1 - pass_rate), "assumed: two independent models at the pass rate"


def pair_effect(scenarios: Answer) -> tuple[float, str]:
    """The design effect of paired items: their phrasings' (1 + (m − 1)ρ) times their families' (1 + (v − 1)ρ_c),
    from the scenario answer's inputs."""
    m = float(scenarios.inputs["phrasings"][0] or 1)
    icc = float(scenarios.inputs["phrasing correlation (ICC)"][0] or 0.0)
    family = float(scenarios.inputs["design effect"][0] or 1.0)
    return (1 + (m - 1) * icc) * family, "(1 + (m − 1)ρ)(1 + (v − 1)ρ_c)"


def _difference_answer(
    pilot: Pilot | None, stated: Stated, items: tuple[int | None, str], scenarios: Answer, alpha: float, power: float
) -> Answer:
    pass_rate = float(scenarios.inputs["pass rate"][0] or 0.0)
    psi, psi_src = _discordance(pilot, stated, pass_rate)
    effect, effect_src = pair_effect(scenarios)
    n = None if items[0] is None else math.floor(items[0] / effect)
    found = detectable_difference(n, float(psi), alpha, power) if n and psi > 0 else None
    caveat, missing = _why_no_difference(items[0], n, float(psi), effect, alpha, power) if found is None else ("", "")
    return Answer(
        f"smallest difference two models show at {power:.0%} power",
        found,
        "share",
        {
            "paired items": items,
            "design effect of the pairs": (effect, effect_src),
            "independent pairs they are worth": (n, "paired items / design effect"),
            "discordant share ψ": (float(psi), psi_src),
            "α (two-sided)": (alpha, "stated"),
            "power": (power, "stated"),
            "normal approximation (Connor)": (connor_difference(n, float(psi), alpha, power) if n else None, "formula"),
        },
        difference_method(n or 1),
        (caveat + "; " if caveat else "")
        + "phrasings of one scenario and variations of one core example are no independent pairs: the items count "
        "as items / design effect (the pass rate's ρ and ρ_c standing in for the discordance's)",
        missing=missing or "not reachable",
    )


def _why_no_difference(
    items: int | None, pairs: int | None, psi: float, effect: float, alpha: float, power: float
) -> tuple[str, str]:
    """(what follows, in words; how the missing answer reads) where no difference can be detected."""
    if items is None:
        return "no scenario count was planned, so no items to pair: state --items", "no answer: no items planned"
    if psi <= 0:
        return (
            "the two models never differ on an item (ψ = 0), so there is no difference between them to detect",
            "no answer: the models never differ",
        )
    if not pairs:
        return (
            f"{items:,} paired item{'s are' if items != 1 else ' is'} worth less than one independent pair (design "
            f"effect {effect:.3g}); judge more items",
            "not reachable",
        )
    return (
        f"not reachable with {pairs:,} independent pair{'s' if pairs != 1 else ''}: no difference between two models "
        f"reaches {power:.0%} power at α {alpha:g}; judge more items",
        "not reachable",
    )


def pairs_to_detect(difference: float, discordance: float, alpha: float, power: float) -> int | None:
    """The fewest independent paired items at which the exact McNemar test detects `difference` with `power`
    (Connor's closed form beyond EXACT_MAX_ITEMS); None where no number does (the difference exceeds ψ)."""
    if not 0 < difference <= discordance:
        return None
    a, b = z_upper(alpha / 2) * math.sqrt(discordance), z_upper(1 - power)
    guess = max(1, math.ceil(((a + b * math.sqrt(max(discordance - difference**2, 0.0))) / difference) ** 2))
    if guess > EXACT_MAX_ITEMS:
        return guess
    low, high = 1, max(2 * guess, 16)
    while mcnemar_power(high, discordance, difference, alpha) < power:  # the exact test can need more than Connor
        low, high = high, 2 * high
        if high > 4 * EXACT_MAX_ITEMS:
            return guess
    while low < high:  # the first n reaching the power (the exact power's small saw-teeth aside)
        middle = (low + high) // 2
        if mcnemar_power(middle, discordance, difference, alpha) >= power:
            high = middle
        else:
            low = middle + 1
    return high


def paired_labels_needed(
    difference: float, discordance: float, correlation: float, pairs: int, alpha: float, power: float
) -> int | None:
    """Human labels, each item labelled for both models, for the PPI++ estimate of their difference to reach the
    variance at which a test tells `difference` apart with `power`, `pairs` independent pairs judged.

    The per-item human difference h_A − h_B has variance σ²_d = ψ − δ²; with the judge's difference as the
    prediction, the variance is σ²_d ρ²/N + σ²_d (1 − ρ²)/n, solved for n. None where no n ≤ N does."""
    spread, rho2 = max(discordance - difference**2, 0.0), min(correlation**2, 1.0)
    target = (difference / (z_upper(alpha / 2) + z_upper(1 - power))) ** 2
    room = target - spread * rho2 / pairs
    if spread == 0 or room <= 0:
        return None
    labels = max(2, math.ceil(spread * (1 - rho2) / room))
    return labels if labels <= max(pairs, 2) else None


@dataclass(frozen=True)
class _Detect:
    """What both `--detect δ` answers share: δ, the discordance, the pairs that tell two models δ apart, and the
    scenarios those pairs take."""

    delta: float
    psi: tuple[float, str]
    effect: tuple[float, str]
    pairs: int | None
    scenarios: int | None
    phrasings: int
    alpha: float
    power: float


def _detect(pilot: Pilot | None, stated: Stated, scenarios: Answer, alpha: float, power: float) -> _Detect:
    delta = float(stated.detect or 0.0)
    phrasings = int(scenarios.inputs["phrasings"][0] or 1)
    psi, psi_src = _discordance(pilot, stated, float(scenarios.inputs["pass rate"][0] or 0.0))
    effect = pair_effect(scenarios)
    pairs = pairs_to_detect(delta, float(psi), alpha, power)
    count = None if pairs is None else max(1, math.ceil(pairs * effect[0] / phrasings))
    return _Detect(delta, (float(psi), psi_src), effect, pairs, count, phrasings, alpha, power)


def _detect_scenarios(detect: _Detect, scenarios: Answer) -> Answer:
    """Scenarios to tell two models δ apart: the fewest pairs at which the paired test has the power."""
    count, m, psi = detect.scenarios, detect.phrasings, detect.psi[0]
    variations = float(scenarios.inputs["variations per core example"][0] or 1.0)
    cores = f"; about {math.ceil(count / variations):,} core examples of {variations:.3g} variations" if count else ""
    return Answer(
        f"scenarios to tell two models {100 * detect.delta:g} points apart at {detect.power:.0%} power",
        count,
        "scenarios",
        {
            "difference": (detect.delta, "stated"),
            "discordant share ψ": detect.psi,
            "independent pairs needed": (detect.pairs, difference_method(detect.pairs or 1)),
            "design effect of the pairs": detect.effect,
            "phrasings": scenarios.inputs["phrasings"],
            "α (two-sided)": (detect.alpha, "stated"),
            "power": (detect.power, "stated"),
        },
        "S = pairs · (1 + (m−1)ρ)(1 + (v−1)ρ_c) / m, pairs the fewest at which the paired test has the power",
        (f"each model answers the same {count:,} scenarios × {m} phrasing{'s' if m != 1 else ''}{cores}")
        if count
        else f"not reachable: models whose answers differ on {100 * psi:.1f}% of items cannot be "
        f"{100 * detect.delta:g} points apart",
    )


def _labels_at(detect: _Detect, rho: float, judged: int | None, times: float) -> int | None:
    """Labels per model with `times` the scenarios (∞: the fewest however many), clustered as the pairs are."""
    if detect.pairs is None:
        return None
    many = 10**12 if math.isinf(times) else math.ceil(times * detect.pairs)
    independent = paired_labels_needed(detect.delta, detect.psi[0], rho, many, detect.alpha, detect.power)
    if independent is None:
        return None
    clustered = math.ceil(independent * detect.effect[0])
    return clustered if math.isinf(times) or judged is None else min(math.ceil(times * judged), clustered)


def _detect_labels(detect: _Detect, labels: Answer) -> Answer:
    """Human labels to tell two models δ apart on their human-calibrated rates (PPI++ on the paired difference)."""
    rho, rho_src = labels.inputs["judge–human correlation"]
    credit = float(rho or 0.0)
    judged = None if detect.scenarios is None else detect.scenarios * detect.phrasings
    needed = _labels_at(detect, credit, judged, 1)
    # at the fewest scenarios the judge's verdicts alone barely tell the models apart, so calibrating them takes
    # nearly every item labelled; the two figures below show what more scenarios save
    crowded = needed is not None and judged is not None and needed >= 0.9 * judged
    return Answer(
        f"human labels to tell two models {100 * detect.delta:g} points apart on their human-calibrated rates",
        needed,
        "labels per model",
        {
            "difference": (detect.delta, "stated"),
            "discordant share ψ": detect.psi,
            "judge–human correlation": (rho, rho_src),
            "independent pairs judged": (detect.pairs, "the scenarios above"),
            "design effect of the pairs": detect.effect,
            "judged items": (judged, "the scenarios above × phrasings"),
            "labels with twice the scenarios": (_labels_at(detect, credit, judged, 2), "N doubled"),
            "labels however many scenarios": (_labels_at(detect, credit, judged, math.inf), "N → ∞, the fewest"),
        },
        "n = D · σ²_d(1−ρ²) / (V − σ²_d ρ²/N), σ²_d = ψ − δ², V = δ²/(z_{α/2} + z_β)², N the pairs, D the design "
        "effect: PPI++ on the paired difference",
        _labels_caveat(needed is not None, bool(credit), crowded),
    )


def _labels_caveat(reachable: bool, credited: bool, crowded: bool) -> str:
    if not reachable:
        return "not reachable: no scenario count tells the models apart"
    caveat = "label the same items of both models, a random sample of the judged ones"
    if not credited:
        return caveat + (
            "; with no credit to the judge the humans alone must tell the models apart: rate the judge (a study) or "
            "state --judge-sensitivity and --judge-specificity"
        )
    if crowded:
        return caveat + (
            "; at the fewest scenarios the judge's verdicts alone barely tell the models apart, so calibrating them "
            "needs (nearly) every item labelled: more scenarios need fewer labels"
        )
    return caveat


def _detect_answers(
    pilot: Pilot | None, stated: Stated, scenarios: Answer, labels: Answer, alpha: float, power: float
) -> list[Answer]:
    """`--detect δ`: scenarios, then human labels, to tell two models δ apart."""
    detect = _detect(pilot, stated, scenarios, alpha, power)
    return [_detect_scenarios(detect, scenarios), _detect_labels(detect, labels)]


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
    items: tuple[int | None, str]
    if stated.items is not None:
        items = (stated.items, "stated")
    elif scenarios.value is None:  # nothing varies: no count was planned
        items = (None, "no scenario count was planned; state --items")
    else:
        items = (int(scenarios.value) * phrasings, "planned scenarios × phrasings")
    labels = _labels_answer(pilot, stated, items, pass_rate, label_half_width, level)
    answers = [scenarios, labels, _difference_answer(pilot, stated, items, scenarios, alpha, power)]
    if stated.detect is not None:
        answers += _detect_answers(pilot, stated, scenarios, labels, alpha, power)
    return answers
