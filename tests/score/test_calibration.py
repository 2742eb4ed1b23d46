"""Human-calibrated pass rates: ppi-python's PPI++ called right, a hand-computed case, and the table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from ppi_py import ppi_mean_ci
from scipy.stats import norm

from cobe.score.binomial import clopper_pearson
from cobe.score.calibration import HUMAN, PER_CHECK_NOTE, calibrated_rate, calibration_table, human_pass


def simulated(seed: int, n: int = 150, big_n: int = 1500, p: float = 0.55, sens: float = 0.9, spec: float = 0.6):
    rng = np.random.default_rng(seed)
    truth = rng.random(big_n) < p
    judge = np.where(truth, rng.random(big_n) < sens, rng.random(big_n) > spec)
    return truth[:n], judge[:n], judge[n:]


def test_the_interval_is_ppi_pythons_and_the_estimate_its_centre():
    human, judge_labeled, judge_unlabeled = simulated(1)
    result = calibrated_rate(human, judge_labeled, judge_unlabeled)
    low, high = ppi_mean_ci(human.astype(float), judge_labeled.astype(float), judge_unlabeled.astype(float), alpha=0.05)
    assert result.ci_low == pytest.approx(float(low[0])) and result.ci_high == pytest.approx(float(high[0]))
    assert result.estimate == pytest.approx((float(low[0]) + float(high[0])) / 2)
    assert result.method == "ppi++" and result.labeled == 150 and result.unlabeled == 1350
    assert result.judge_only == pytest.approx(np.concatenate([judge_labeled, judge_unlabeled]).mean())


def test_a_small_case_matches_the_ppi_plus_plus_formulas_by_hand():
    # 6 rated items, 10 others; the judge passes two items humans fail
    y = np.array([1, 1, 0, 0, 1, 0], dtype=float)
    yh = np.array([1, 1, 1, 0, 1, 1], dtype=float)
    yu = np.array([1, 1, 1, 0, 0, 1, 1, 0, 1, 1], dtype=float)
    n, big_n = len(y), len(yu)
    # PPI++ (Angelopoulos, Duchi, Zrnic 2023) for a mean: the power-tuning weight, then a z interval
    first = yu.mean() + (y - yh).mean()
    g, gh = y - first, yh - first
    cov = 2 * np.mean((g - g.mean()) * (gh - gh.mean()))
    var_all = np.var(np.concatenate([yh, yu]), ddof=1)
    lam = min(1.0, max(0.0, cov / (2 * (1 + n / big_n) * var_all)))
    estimate = lam * yu.mean() + (y - lam * yh).mean()
    se = np.sqrt(np.var(lam * yu) / big_n + np.var(y - lam * yh) / n)
    z = norm.ppf(0.975)
    result = calibrated_rate(y.astype(bool), yh.astype(bool), yu.astype(bool))
    assert result.estimate == pytest.approx(estimate)
    assert result.ci_low == pytest.approx(max(0.0, estimate - z * se))
    assert result.ci_high == pytest.approx(min(1.0, estimate + z * se))


def test_a_judge_that_never_varies_adds_nothing_so_the_human_labels_stand_alone():
    human = [True, True, False, True]
    result = calibrated_rate(human, [True] * 4, [True] * 10)
    assert result.method == "exact" and result.estimate == 0.75
    assert (result.ci_low, result.ci_high) == pytest.approx(clopper_pearson(3, 4))
    every = calibrated_rate(human, [True, False, False, True], [])
    assert every.method == "exact" and every.unlabeled == 0


def test_calibration_covers_what_a_biased_judge_misses():
    human, judge_labeled, judge_unlabeled = simulated(3, n=300, big_n=3000, p=0.4, sens=0.95, spec=0.5)
    result = calibrated_rate(human, judge_labeled, judge_unlabeled)
    assert result.judge_only > 0.65  # the judge passes about 0.4·0.95 + 0.6·0.5 = 0.68
    assert result.ci_low <= 0.4 <= result.ci_high


def test_input_mismatches_are_refused():
    with pytest.raises(ValueError, match="differ in length"):
        calibrated_rate([True, False], [True], [True])
    with pytest.raises(ValueError, match="at least two"):
        calibrated_rate([True], [True], [True, False])


def test_human_pass_is_the_majority_yes():
    assert human_pass(["Yes", "No", "Yes"]) is True
    assert human_pass(["No", "Other", "No"]) is False
    assert human_pass(["Yes", "No"]) is None and human_pass(None) is None and human_pass([]) is None


def frame(n: int = 40, rated: int = 20) -> pd.DataFrame:
    rows = []
    for i in range(n):
        passed = i % 2 == 0
        verdicts = {"connectors": "T", "preserve": "T" if passed else "F", "change": "T"}
        answers = (["Yes", "Yes", "No"] if i % 4 else ["No", "No", "Yes"]) if i < rated else None
        rows.append({"label": "m", "status": "passed" if passed else "failed", "verdicts": verdicts, HUMAN: answers})
    return pd.DataFrame(rows)


def test_the_table_gives_the_composite_and_what_each_check_allows():
    table = calibration_table(frame())
    overall = table[table["target"] == "overall"].iloc[0]
    assert overall["judge_rate"] == 50.0 and overall["labeled"] == 20 and overall["unlabeled"] == 20
    assert 0 <= overall["ci_low"] <= overall["calibrated"] <= overall["ci_high"] <= 100
    preserve = table[table["target"] == "preserve"].iloc[0]
    assert preserve["judge_rate"] == 50.0 and pd.isna(preserve["calibrated"])
    assert preserve["at_least"] == overall["ci_low"] and preserve["note"] == PER_CHECK_NOTE
    assert table[table["target"] == "connectors"].iloc[0]["judge_rate"] == 100.0


def test_no_human_labels_no_table():
    assert calibration_table(frame(rated=0)).empty
    few = calibration_table(frame(rated=1))
    assert few.iloc[0]["note"].startswith("fewer than two") and pd.isna(few.iloc[0]["calibrated"])
