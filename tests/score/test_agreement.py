"""Judge–human agreement (failure positive), rater majority, Fleiss, Krippendorff, bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, f1_score, precision_score, recall_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from cobe.core.errors import InputError
from cobe.score.agreement import (
    RATER_ANSWER_FAILS,
    agreement_metrics,
    binary_metrics,
    bootstrap_ci,
    fleiss_kappa,
    human_fail,
    krippendorff_alpha,
    majority_label,
    majority_rule,
    metrics_from_counts,
)


def test_worked_example_from_the_paper() -> None:
    m = metrics_from_counts(tp=66, fp=14, fn=6, tn=164)
    assert (m["tp"], m["fp"], m["fn"], m["tn"], m["n"]) == (66, 14, 6, 164, 250)
    assert round(m["accuracy"], 3) == 0.92
    assert round(m["precision"], 3) == 0.825
    assert round(m["recall"], 3) == 0.917
    assert round(m["f1"], 3) == 0.868
    assert round(m["kappa"], 3) == 0.811


def test_binary_metrics_count_failure_as_positive() -> None:
    judge = [True] * 66 + [True] * 14 + [False] * 6 + [False] * 164
    human = [True] * 66 + [False] * 14 + [True] * 6 + [False] * 164
    assert binary_metrics(judge, human) == metrics_from_counts(66, 14, 6, 164)


@pytest.mark.parametrize("seed", range(5))
def test_binary_metrics_match_sklearn_on_random_data(seed: int) -> None:
    rng = np.random.default_rng(seed)
    human = rng.random(300) < 0.3
    judge = np.where(rng.random(300) < 0.8, human, ~human)
    m = binary_metrics(list(judge), list(human))
    assert m["kappa"] == pytest.approx(cohen_kappa_score(judge, human), abs=1e-12)
    assert m["precision"] == pytest.approx(precision_score(human, judge), abs=1e-12)
    assert m["recall"] == pytest.approx(recall_score(human, judge), abs=1e-12)
    assert m["f1"] == pytest.approx(f1_score(human, judge), abs=1e-12)


def test_undefined_statistics_are_none() -> None:
    m = metrics_from_counts(tp=0, fp=0, fn=0, tn=10)
    assert m["precision"] is None and m["recall"] is None and m["f1"] is None and m["kappa"] is None
    assert m["accuracy"] == 1.0
    assert metrics_from_counts(0, 0, 0, 0)["accuracy"] is None


def test_kappa_with_one_class_on_either_side_is_undefined_and_says_why() -> None:
    always_fails = metrics_from_counts(tp=6, fp=9, fn=0, tn=0)  # sklearn's cohen_kappa_score would say 0.0
    assert always_fails["kappa"] is None and always_fails["accuracy"] == 0.4
    assert always_fails["kappa_undefined"] == "undefined: the judge said fail on every item"
    humans_pass = metrics_from_counts(tp=0, fp=2, fn=0, tn=8)
    assert humans_pass["kappa"] is None
    assert humans_pass["kappa_undefined"] == "undefined: the human majority said pass on every item"
    assert metrics_from_counts(66, 14, 6, 164)["kappa_undefined"] is None


def test_length_mismatch_is_an_input_error() -> None:
    with pytest.raises(InputError, match="differ in length"):
        binary_metrics([True], [True, False])


def test_rater_mapping_is_yes_pass_no_fail() -> None:
    assert RATER_ANSWER_FAILS == {"Yes": False, "No": True}


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (["Yes", "Yes", "No"], "Yes"),
        (["No", "no", "Yes"], "No"),
        (["Yes", "Yes", "Other"], "Yes"),  # two matching votes of three: Other only abstains
        (["No", None, "No"], "No"),  # an unanswered rating abstains too
        (["Yes", "No"], None),  # tie: no majority
        (["Yes", "No", "Other"], None),  # one vote each side: no majority
        (["Other", "Other", "No"], None),  # a single vote of three is no majority
        (["Yes", None, None], None),
        (["Other", None, ""], None),  # everyone abstained
        (["Yes", "Yes", "No", "Other", "Other"], None),  # two of five is not more than half
        (["Yes"], "Yes"),  # a panel of one
        ([], None),
    ],
)
def test_majority_label(labels: list[str | None], expected: str | None) -> None:
    assert majority_label(labels) == expected


def test_human_fail_and_bad_labels() -> None:
    assert human_fail(["No", "No", "Yes"]) is True
    assert human_fail(["Yes"]) is False
    assert human_fail(["Yes", "No"]) is None
    assert human_fail(["No", "No", "Other"]) is True
    assert human_fail(["No", "Other", "Other"]) is None
    with pytest.raises(InputError, match="rater label 'Maybe'"):
        majority_label(["Maybe"])


def test_krippendorff_hand_computed() -> None:
    # units (a,a), (a,b), (b,b): o_ab = o_ba = 1, n_a = n_b = 3, n = 6
    # alpha = 1 - (n - 1) * 2 / (2 * n_a * n_b) = 1 - 5 * 2 / 18 = 4/9
    assert krippendorff_alpha([["a", "a"], ["a", "b"], ["b", "b"]]) == pytest.approx(4 / 9)


def test_krippendorff_published_example_with_missing_values() -> None:
    # Krippendorff's (2011) 4 observers × 12 units nominal example, alpha = 0.743
    table = [
        [1, 1, None, 1],
        [2, 2, 3, 2],
        [3, 3, 3, 3],
        [3, 3, 3, 3],
        [2, 2, 2, 2],
        [1, 2, 3, 4],
        [4, 4, 4, 4],
        [1, 1, 2, 1],
        [2, 2, 2, 2],
        [None, 5, 5, 5],
        [None, None, 1, 1],
        [None, 3, None, None],
    ]
    assert round(krippendorff_alpha(table), 3) == 0.743


def test_krippendorff_perfect_and_undefined() -> None:
    assert krippendorff_alpha([["Yes", "Yes"], ["No", "No", None]]) == pytest.approx(1.0)
    assert krippendorff_alpha([["Yes", "Yes"], ["Yes", None]]) is None
    assert krippendorff_alpha([["Yes", None], [None, "No"]]) is None


def test_fleiss_hand_computed() -> None:
    # 3 items × 2 raters: (Y,Y), (Y,N), (N,N): P_i = 1, 0, 1 → P̄ = 2/3; p_Y = p_N = 1/2 → P_e = 1/2
    # kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3
    assert fleiss_kappa([["Yes", "Yes"], ["Yes", "No"], ["No", "No"]]) == pytest.approx(1 / 3)


def test_fleiss_matches_statsmodels_on_a_counts_table() -> None:
    counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    table = [[c for c, k in enumerate(row) for _ in range(k)] for row in counts]
    assert fleiss_kappa(table) == pytest.approx(sm_fleiss(np.array(counts)))
    assert round(fleiss_kappa(table), 3) == 0.210


def test_fleiss_leaves_out_incomplete_items() -> None:
    full = [["Yes", "Yes"], ["Yes", "No"], ["No", "No"]]
    assert fleiss_kappa([*full, ["Yes", None]]) == pytest.approx(fleiss_kappa(full))
    assert fleiss_kappa([["Yes", None]]) is None


def test_fleiss_ignores_a_rater_who_answered_nothing() -> None:
    # a study's third rater who has not started yet must not make every item incomplete
    full = [["Yes", "Yes"], ["Yes", "No"], ["No", "No"]]
    assert fleiss_kappa([[*row, None] for row in full]) == pytest.approx(fleiss_kappa(full))


def test_bootstrap_ci_is_reproducible_and_brackets_the_mean() -> None:
    data = [1.0] * 30 + [0.0] * 70
    mean = lambda sample: sum(sample) / len(sample)  # noqa: E731
    low, high = bootstrap_ci(mean, data, n_resamples=500, seed=3)
    assert low < 0.3 < high and low > 0.15 and high < 0.45
    assert bootstrap_ci(mean, data, n_resamples=500, seed=3) == (low, high)
    assert bootstrap_ci(mean, [], n_resamples=10) is None


def test_bootstrap_ci_drops_undefined_resamples() -> None:
    assert bootstrap_ci(lambda sample: None, [1, 2, 3], n_resamples=20) is None


def test_bootstrap_ci_resamples_dataframe_rows() -> None:
    import pandas as pd

    frame = pd.DataFrame({"x": [0, 1] * 20})
    low, high = bootstrap_ci(lambda f: float(f["x"].mean()), frame, n_resamples=200)
    assert 0.0 < low <= 0.5 <= high < 1.0


def test_agreement_metrics_counts_exclusions() -> None:
    verdicts = ["F", "T", "F", None, "T", "T"]
    raters = [
        ["No", "No", "Yes"],  # human fail, judge fail → tp
        ["Yes", "Yes", "Other"],  # pass, pass → tn
        ["Yes", "Yes", "No"],  # pass, judge fail → fp
        ["No", "No", "No"],  # judge unscored → excluded
        ["Yes", "No", "Other"],  # no majority → excluded
        ["No", "Yes", "No"],  # human fail, judge pass → fn
    ]
    m = agreement_metrics(verdicts, raters)
    assert (m["tp"], m["fp"], m["fn"], m["tn"]) == (1, 1, 1, 1)
    assert (m["items"], m["no_majority"], m["judge_unscored"]) == (6, 1, 1)
    assert m["fleiss_kappa"] is not None and m["krippendorff_alpha"] is not None
    assert agreement_metrics([True, False], [["Yes"], ["No"]])["accuracy"] == 1.0


def test_the_majority_rule_is_worded_for_the_panel_it_has():
    assert majority_rule(3) == "two matching Yes/No answers of three"
    assert majority_rule(2) == "the same Yes/No answer from both raters"
    assert majority_rule(5) == "three matching Yes/No answers of five"
    assert majority_rule(4) == "three matching Yes/No answers of four"
    assert majority_rule(12) == "seven matching Yes/No answers of 12"
    assert majority_rule(1) == "a Yes or No answer from the one rater"
    # the wording follows majority_label: two of two is needed, one of two is not enough
    assert majority_label(["Yes", "Yes"]) == "Yes" and majority_label(["Yes", "No"]) is None
