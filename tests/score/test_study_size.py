"""Planning formulas against hand computations, and against small simulations where they promise power or width."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cobe.core.errors import InputError
from cobe.score.calibration import calibrated_rate
from cobe.score.compare import mcnemar_exact
from cobe.score.pilot import family_icc, pilot_from_frame
from cobe.score.power import (
    EXACT_MAX_ITEMS,
    connor_difference,
    detectable_difference,
    difference_method,
    mcnemar_power,
    rejection_bounds,
)
from cobe.score.study_inputs import Stated, check_ranges
from cobe.score.study_size import (
    design_effect,
    judge_human_correlation,
    labels_needed,
    plan_study,
    scenario_variance,
    scenarios_needed,
)

Z2 = 1.959963984540054**2


def test_scenarios_by_hand():
    # p = 0.6, three phrasings correlated 0.5: σ² = 0.24 · (1 + 2 · 0.5) / 3 = 0.16
    assert scenario_variance(0.6, 3, 0.5) == pytest.approx(0.16)
    assert scenarios_needed(0.03, 0.16) == math.ceil(Z2 * 0.16 / 0.0009) == 683
    # phrasings that always agree carry one scenario's worth: σ² = p(1 − p)
    assert scenario_variance(0.5, 3, 1.0) == pytest.approx(0.25)
    with pytest.raises(ValueError):
        scenarios_needed(0, 0.1)


def test_judge_human_correlation_by_hand_and_on_a_population():
    # judge rate 0.6 · 0.9 + 0.4 · 0.2 = 0.62; covariance 0.54 − 0.6 · 0.62 = 0.168
    rho = judge_human_correlation(0.6, 0.9, 0.8)
    assert rho == pytest.approx(0.168 / math.sqrt(0.24 * 0.62 * 0.38))
    human = np.array([1] * 600 + [0] * 400)
    judge = np.array([1] * 540 + [0] * 60 + [1] * 80 + [0] * 320)
    assert rho == pytest.approx(np.corrcoef(human, judge)[0, 1])
    assert judge_human_correlation(0.6, 1.0, 1.0) == pytest.approx(1.0)


def test_labels_by_hand():
    rho = judge_human_correlation(0.6, 0.9, 0.8)
    unlimited = labels_needed(0.03, 0.6, rho, None)
    assert unlimited == math.ceil(Z2 * 0.24 * (1 - rho**2) / 0.0009)
    bounded = labels_needed(0.03, 0.6, rho, 2000)
    assert bounded == math.ceil(Z2 * 0.24 * (1 - rho**2) / (0.0009 - Z2 * 0.24 * rho**2 / 2000))
    assert bounded > unlimited
    # 100 judged items cannot give ±3 points, however many labels
    assert labels_needed(0.03, 0.6, rho, 100) is None
    # no credit to the judge: the classical count
    assert labels_needed(0.05, 0.5, 0.0, None) == math.ceil(Z2 * 0.25 / 0.0025)


def test_labels_give_the_promised_width_in_simulation():
    p, sens, spec, judged, target = 0.6, 0.9, 0.8, 3000, 0.04
    n = labels_needed(target, p, judge_human_correlation(p, sens, spec), judged)
    rng = np.random.default_rng(7)
    widths = []
    for _ in range(200):
        truth = rng.random(judged) < p
        judge = np.where(truth, rng.random(judged) < sens, rng.random(judged) > spec)
        result = calibrated_rate(truth[:n], judge[:n], judge[n:])
        widths.append((result.ci_high - result.ci_low) / 2)
    assert np.mean(widths) == pytest.approx(target, rel=0.06)


def test_connor_difference_solves_its_formula():
    delta = connor_difference(500, 0.2)
    za, zb = 1.959963984540054, 0.8416212335729143
    n = (za * math.sqrt(0.2) + zb * math.sqrt(0.2 - delta**2)) ** 2 / delta**2
    assert n == pytest.approx(500)
    # ignoring δ² under the root gives the textbook (z_a + z_b)·√(ψ/n), a little larger
    assert delta < (za + zb) * math.sqrt(0.2 / 500)


def test_exact_power_by_hand_on_a_tiny_case():
    # two items, both discordant for sure (ψ = 1), A always the winner: 2·0.5² = 0.5 > α, never rejected
    assert mcnemar_power(2, 1.0, 1.0) == 0.0
    # six discordant pairs all won by A: p = 2 · 0.5⁶ = 0.03125 < 0.05, rejected whenever all six are A's
    assert mcnemar_power(6, 1.0, 1.0) == pytest.approx(1.0)
    assert mcnemar_power(6, 1.0, 0.0) == pytest.approx(2 * 0.5**6)  # the test's size under no difference
    with pytest.raises(ValueError):
        mcnemar_power(10, 0.1, 0.2)


def test_detectable_difference_has_the_promised_power_in_simulation():
    items, psi = 400, 0.25
    delta = detectable_difference(items, psi)
    assert mcnemar_power(items, psi, delta) == pytest.approx(0.8, abs=1e-6)
    assert abs(delta - connor_difference(items, psi)) < 0.01  # the exact test needs a little more
    rng = np.random.default_rng(11)
    counts = rng.multinomial(items, [(psi + delta) / 2, (psi - delta) / 2, 1 - psi], size=3000)
    rejected = np.mean([mcnemar_exact(int(a), int(b)) < 0.05 for a, b, _ in counts])
    assert rejected == pytest.approx(0.8, abs=0.025)
    assert math.isnan(detectable_difference(5, 0.1))  # too few items for any difference


def frame() -> pd.DataFrame:
    rows = []
    for scenario in range(10):
        for template in "ABC":
            a = scenario < 6
            b = scenario < 4 or (scenario == 9 and template == "A")
            rows.append({"label": "a", "scenario_id": f"{scenario}v1", "template": template, "scored": True, "pass": a})
            rows.append({"label": "b", "scenario_id": f"{scenario}v1", "template": template, "scored": True, "pass": b})
    return pd.DataFrame(rows)


def test_pilot_rates_from_a_frame():
    pilots = {p.model: p for p in pilot_from_frame(frame())}
    a = pilots["a"]
    assert a.pass_rate == 0.6 and a.scenarios == 10 and a.phrasings == 3 and a.items == 30
    assert a.scenario_variance == pytest.approx(np.var([1] * 6 + [0] * 4, ddof=1))
    assert a.icc == 1.0  # each scenario's phrasings agree (the old moment formula said 1.17)
    # a passes scenarios 4, 5 that b fails (6 items); b passes 9/A that a fails (1 item)
    assert a.discordance == {"b": pytest.approx(7 / 30)} and a.human_rate is None


def test_plan_names_where_each_input_came_from():
    pilot = {p.model: p for p in pilot_from_frame(frame())}["a"]
    scenarios, labels, difference = plan_study(pilot, Stated(sensitivity=0.9, specificity=0.8))
    assert scenarios.inputs["per-scenario variance"] == (pilot.scenario_variance, "pilot")
    assert scenarios.value == scenarios_needed(0.03, pilot.scenario_variance)
    assert labels.inputs["judge–human correlation"][1] == "stated"
    assert difference.inputs["discordant share ψ"] == (pytest.approx(7 / 30), "pilot (vs b)")
    stated = plan_study(None, Stated(pass_rate=0.6, icc=0.5, items=900))
    assert stated[0].value == 683 and stated[2].inputs["paired items"] == (900, "stated")
    assert stated[1].inputs["judge–human correlation"][0] == 0.0  # no labels: no credit to the judge


def test_families_inflate_the_scenario_count_by_their_design_effect():
    # σ²_s = 0.16 as above; ten variations per core correlated 0.2: 1 + 9 · 0.2 = 2.8
    assert design_effect(10, 0.2) == pytest.approx(2.8) and design_effect(1, 0.9) == 1.0
    assert scenarios_needed(0.03, 0.16, effect=2.8) == math.ceil(Z2 * 0.16 * 2.8 / 0.0009) == 1913
    answer = plan_study(None, Stated(pass_rate=0.6, icc=0.5, variations=10, core_icc=0.2))[0]
    assert answer.value == 1913 and answer.inputs["design effect"][0] == pytest.approx(2.8)
    assert "about 192 core examples of 10 variations each" in answer.caveat
    # no families stated: independent scenarios, as before
    plain = plan_study(None, Stated(pass_rate=0.6, icc=0.5))[0]
    assert plain.value == 683 and plain.inputs["design effect"][0] == 1.0


def test_family_icc_is_the_share_of_variance_between_cores():
    cores = pd.Series([1, 1, 2, 2, 3, 3])
    fixed = pd.Series([1.0, 1.0, 0.0, 0.0, 1.0, 1.0])  # outcomes fixed by the core
    assert family_icc(fixed, cores) == pytest.approx(1.0)
    # by hand: core means 0.5, 0.5, 1.0 (grand 2/3); MSB = 2·(1/36 + 1/36 + 1/9)/2 = 1/6, MSW = 1/3 (3 df)
    # → between-core part (1/6 − 1/3)/2 < 0, so 0
    mixed = pd.Series([1.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    assert family_icc(mixed, cores) == 0.0
    assert family_icc(pd.Series([1.0, 0.0]), pd.Series([1, 2])) is None  # no core with two scenarios
    rng = np.random.default_rng(4)
    core = np.repeat(np.arange(300), 5)
    values = pd.Series(rng.normal(size=300)[core] + rng.normal(size=1500))  # half the variance between cores
    assert family_icc(values, pd.Series(core)) == pytest.approx(0.5, abs=0.08)


def test_no_more_labels_than_judged_items():
    # ρ = 0, p = 0.6: n = z² · 0.24 / 0.0009 = 1025 labels, which 3 judged items cannot hold
    assert labels_needed(0.03, 0.6, 0.0, 3) is None
    assert labels_needed(0.03, 0.6, 0.0, 2000) == 1025


def test_connor_has_a_closed_form_and_no_answer_below_its_reach():
    za = 1.959963984540054
    assert math.isnan(connor_difference(3, 0.5))  # n < z²: not even the largest difference
    assert math.isnan(connor_difference(100, 0.0))
    delta = connor_difference(10**9, 0.3, 1e-6, 0.999)
    assert 0 < delta < 1e-3
    assert connor_difference(500, 0.2) < (za + 0.8416212335729143) * math.sqrt(0.2 / 500)


def test_beyond_the_exact_limit_the_closed_form_answers_and_says_so():
    above = EXACT_MAX_ITEMS + 1
    assert detectable_difference(above, 0.3) == connor_difference(above, 0.3)
    assert "Connor's normal approximation" in difference_method(above)
    assert "exact McNemar" in difference_method(EXACT_MAX_ITEMS)
    exact = detectable_difference(EXACT_MAX_ITEMS, 0.3)
    assert abs(exact - connor_difference(EXACT_MAX_ITEMS, 0.3)) < 0.0002  # under 0.02 points where they meet


def test_rejection_bounds_match_the_binomial_inverse():
    from scipy.stats import binom

    counts = np.concatenate([np.arange(0, 400), np.arange(19_000, 19_400)])
    for alpha in (1e-6, 0.01, 0.05, 0.2):
        np.testing.assert_array_equal(rejection_bounds(counts, alpha), binom.ppf(alpha / 2, counts, 0.5) - 1)


def test_the_library_refuses_what_the_cli_refuses():
    with pytest.raises(InputError, match=r"^--half-width 0\.01: expected 0\.1 to 50 points"):
        plan_study(None, Stated(), half_width=0.0001)
    with pytest.raises(InputError, match=r"^--phrasings 1000000000: expected 1 to 100"):
        plan_study(None, Stated(phrasings=10**9))
    with pytest.raises(InputError, match=r"^--power 0\.2: expected 0\.5 to 0\.999"):
        check_ranges(Stated(), half_width=0.03, label_half_width=0.03, alpha=0.05, power=0.2)


def site_frame(models: tuple[str, ...] = ("a", "b", "c"), scenarios: int = 124) -> pd.DataFrame:
    """Rows shaped like the CoBe site's file: one query per scenario, its phrasing A, B or C by what it says."""
    rows = []
    for model_index, model in enumerate(models):
        for index in range(scenarios):
            passed = (index * (model_index + 3)) % 7 < 4
            rows.append(
                {
                    "label": model,
                    "scenario_id": f"{300 + index // 5}v{index % 5 + 1}",
                    "core_id": 300 + index // 5,
                    "template": "ABC"[index % 3],
                    "scored": True,
                    "pass": passed,
                }
            )
    return pd.DataFrame(rows)


def test_a_site_shaped_pilot_has_one_phrasing_per_scenario_and_no_icc_above_one():
    pilot = {p.model: p for p in pilot_from_frame(site_frame())}["a"]
    assert pilot.scenarios == 124 and pilot.phrasings == 1 and pilot.items == 124
    assert pilot.icc is None  # no scenario answered twice: nothing to estimate
    scenarios = plan_study(pilot, Stated())[0]
    assert scenarios.inputs["phrasings"] == (1, "pilot")
    # a frame of three phrasings: the ICC is a share of variance, within 0 and 1
    three = {p.model: p for p in pilot_from_frame(frame())}["b"]
    assert three.icc is not None and 0 <= three.icc <= 1


def test_the_smallest_difference_carries_the_families_design_effect():
    stated = Stated(variations=19, core_icc=0.2, icc=0.0)
    scenarios, _, difference = plan_study(None, stated)
    assert scenarios.inputs["design effect"][0] == pytest.approx(4.6)
    items = scenarios.value * 3
    assert difference.inputs["design effect of the pairs"][0] == pytest.approx(4.6)
    worth = difference.inputs["independent pairs they are worth"][0]
    assert worth == math.floor(items / 4.6)
    assert difference.value == pytest.approx(detectable_difference(worth, 0.5))
    assert difference.value > detectable_difference(items, 0.5) * 2  # no longer as if independent


def test_against_chooses_the_second_model_and_several_are_never_picked_silently():
    pilot = {p.model: p for p in pilot_from_frame(site_frame())}["a"]
    assert pilot.discordance is not None and set(pilot.discordance) == {"b", "c"}
    chosen = plan_study(pilot, Stated(against="c"))[2].inputs["discordant share ψ"]
    assert chosen == (pytest.approx(pilot.discordance["c"]), "pilot (vs c)")
    default = plan_study(pilot, Stated())[2].inputs["discordant share ψ"][1]
    assert "the most discordant of 2 models" in default and "--against" in default
    with pytest.raises(InputError, match="--against 'z'.*expected one of b, c"):
        plan_study(pilot, Stated(against="z"))


def test_detect_answers_scenarios_and_labels_to_tell_two_models_apart():
    answers = plan_study(None, Stated(detect=0.03, icc=0.0, pass_rate=0.5, discordance=0.3))
    found, human = answers[3], answers[4]
    pairs = found.inputs["independent pairs needed"][0]
    # the fewest pairs at which the exact test has 80% power for 3 points, and one fewer has less
    assert mcnemar_power(pairs, 0.3, 0.03) >= 0.8 > mcnemar_power(pairs - 1, 0.3, 0.03)
    assert found.value == math.ceil(pairs / 3)  # three independent phrasings per scenario, no families
    # the paired human difference h_A − h_B has variance ψ − δ²; the test asks its estimate's to be V
    spread, target = 0.3 - 0.03**2, (0.03 / (1.959964 + 0.841621)) ** 2
    # with no credit to the judge the humans alone tell them apart: σ²_d / V labels, about every judged pair
    assert human.value == math.ceil(spread / target) and human.value <= pairs
    assert "no credit to the judge" in human.caveat
    judged = plan_study(
        None, Stated(detect=0.03, icc=0.0, pass_rate=0.5, discordance=0.3, sensitivity=0.9, specificity=0.8)
    )
    human, rho2 = judged[4], judge_human_correlation(0.5, 0.9, 0.8) ** 2
    # PPI++ on the paired difference, solved for n: σ²_d ρ²/N + σ²_d (1 − ρ²)/n = V
    assert human.value == math.ceil(spread * (1 - rho2) / (target - spread * rho2 / pairs))
    assert human.inputs["labels with twice the scenarios"][0] == math.ceil(
        spread * (1 - rho2) / (target - spread * rho2 / (2 * pairs))
    )
    fewest = human.inputs["labels however many scenarios"][0]
    assert fewest == pytest.approx(spread * (1 - rho2) / target, abs=1) and fewest < human.value
    assert plan_study(None, Stated(detect=0.5, discordance=0.3))[3].value is None  # more than ψ apart: never


def test_detect_labels_leave_the_promised_variance_in_simulation():
    """The PPI++ estimate of the paired difference, with the labels `--detect` asks for, has the variance V."""
    psi, delta = 0.3, 0.05
    answers = plan_study(None, Stated(detect=delta, icc=0.0, discordance=psi, sensitivity=0.95, specificity=0.9))
    pairs, labels = answers[3].inputs["independent pairs needed"][0], answers[4].value
    rho = answers[4].inputs["judge–human correlation"][0]
    rng = np.random.default_rng(5)
    # the human difference per pair is +1, −1 or 0; the judge's is it, but for a share 1 − ρ drawn afresh,
    # so the two correlate by ρ
    probs = [(psi + delta) / 2, (psi - delta) / 2, 1 - psi]
    estimates = []
    for _ in range(800):
        human = rng.choice([1, -1, 0], size=pairs, p=probs).astype(float)
        judge = np.where(rng.random(pairs) < 1 - rho, rng.choice([1, -1, 0], size=pairs, p=probs), human)
        chosen = rng.choice(pairs, size=labels, replace=False)
        # the optimal weight cov(h, f)/var(f) is ρ here, both differences spread alike
        estimates.append(rho * judge.mean() + (human[chosen] - rho * judge[chosen]).mean())
    target = (delta / (1.959964 + 0.841621)) ** 2
    assert np.var(estimates) == pytest.approx(target, rel=0.15)
