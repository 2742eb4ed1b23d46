"""Reliability of a judge's P(T): binned table, expected calibration error and Brier score, by hand."""

from __future__ import annotations

import pytest

from cobe.score.reliability import (
    brier_score,
    expected_calibration_error,
    pass_probability,
    reliability,
    reliability_bins,
)


def test_a_judge_right_as_often_as_it_says_has_no_calibration_error():
    p = [0.8] * 10 + [0.2] * 10
    truth = [True] * 8 + [False] * 2 + [True] * 2 + [False] * 8
    assert expected_calibration_error(p, truth) == pytest.approx(0.0)
    assert brier_score(p, truth) == pytest.approx((8 * 0.04 + 2 * 0.64 + 2 * 0.64 + 8 * 0.04) / 20)


def test_the_same_answers_said_with_more_confidence_have_a_larger_error():
    truth = [True] * 8 + [False] * 2 + [True] * 2 + [False] * 8
    fair = expected_calibration_error([0.8] * 10 + [0.2] * 10, truth)
    bold = expected_calibration_error([0.99] * 10 + [0.01] * 10, truth)
    assert bold == pytest.approx(0.19) and fair is not None and fair < bold


def test_bins_are_equal_width_and_the_last_holds_one():
    table = reliability_bins([0.0, 0.05, 0.1, 0.55, 1.0], [False, False, True, True, True], bins=10)
    assert [b.items for b in table] == [2, 1, 0, 0, 0, 1, 0, 0, 0, 1]
    assert table[0].mean_p == pytest.approx(0.025) and table[0].observed == 0.0
    assert table[2].mean_p is None and table[9].low == 0.9 and table[9].high == 1.0


def test_the_error_weighs_each_bin_by_its_items():
    # bin 0.9: 3 items said 0.95, 2 T (gap 0.95 - 2/3); bin 0.1: 1 item said 0.1, T (gap 0.9)
    ece = expected_calibration_error([0.95, 0.95, 0.95, 0.1], [True, True, False, True])
    assert ece == pytest.approx((3 * abs(0.95 - 2 / 3) + 1 * 0.9) / 4)


def test_nothing_to_measure_is_none_and_bad_input_is_refused():
    empty = reliability([], [])
    assert empty.items == 0 and empty.ece is None and empty.brier is None
    with pytest.raises(ValueError, match="2 probabilities for 1 reference"):
        brier_score([0.1, 0.2], [True])
    with pytest.raises(ValueError, match="not a probability"):
        brier_score([1.5], [True])


def test_the_probability_of_a_pass_is_the_product_of_the_three_checks():
    assert pass_probability([0.9, 0.5, 0.8]) == pytest.approx(0.36)
    assert pass_probability([0.8 ** (1 / 3)] * 3) == pytest.approx(0.8)
    with pytest.raises(ValueError, match="three checks"):
        pass_probability([0.9, 0.9])
    with pytest.raises(ValueError, match="not a probability"):
        pass_probability([0.9, 1.2, 0.5])
