"""Agreement among judges, each judge's accuracy beside the panel's, sample flip rates and prompt-set diffs,
checked against values worked out by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from cobe.judge.panel_analysis import PANEL, flip_rates, judge_accuracy, judge_agreement, verdict_diff
from cobe.score.accuracy import rows_frame

CHECKS = ("connectors", "preserve", "change")


def _row(template: str, preserve: list, status: str = "passed", **others: list) -> dict:
    """A result row of model m whose three judges A, B, C gave `preserve` (one verdict each) and T elsewhere."""
    members = {
        judge: {"connectors": ["T"], "change": ["T"], "preserve": [verdict]} for judge, verdict in zip("ABC", preserve)
    }
    for judge, samples in others.items():
        members[judge] = samples
    return {"model": "m", "template": template, "status": status, "verdicts": {}, "member_verdicts": members}


def _frame(rows: list[dict]) -> pd.DataFrame:
    return rows_frame(rows)


def test_kappa_and_alpha_among_judges_match_hand_computed_values() -> None:
    # preserve, judges A B C: TTT, TTF, FFF, TFF, and T ? T (B's verdict could not be read)
    rows = [
        _row("A", ["T", "T", "T"]),
        _row("A", ["T", "T", "F"], "failed"),
        _row("A", ["F", "F", "F"], "failed"),
        _row("A", ["T", "F", "F"], "failed"),
        _row("A", ["T", None, "T"]),
    ]
    table = judge_agreement(_frame(rows)).set_index("target")
    preserve = table.loc["preserve"]
    # Fleiss over the four fully rated items: P_i = 1, 1/3, 1, 1/3 → P̄ = 2/3; p_T = p_F = 1/2 → P_e = 1/2;
    # kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3
    assert preserve["fleiss_kappa"] == pytest.approx(1 / 3)
    # Krippendorff: each ordered pair within an item weighs 1/(m - 1), so the items give o_TT = 3 + 1 + 0 + 0 + 2,
    # o_FF = 0 + 0 + 3 + 1 + 0, o_TF = o_FT = 0 + 1 + 0 + 1 + 0: o_TT = 6, o_FF = 4, o_TF = o_FT = 2;
    # n_T = 8, n_F = 6, n = 14; alpha = 1 - (n - 1) * (o_TF + o_FT) / (2 n_T n_F) = 1 - 13 * 4 / 96 = 11/24
    assert preserve["krippendorff_alpha"] == pytest.approx(11 / 24)
    assert (preserve["items"], preserve["all_judges"], preserve["unanimous"]) == (5, 4, 50.0)
    # every judge said T on connectors for every item: no disagreement to measure
    assert table.loc["connectors", "unanimous"] == 100.0
    assert pd.isna(table.loc["connectors", "fleiss_kappa"]) and pd.isna(table.loc["connectors", "krippendorff_alpha"])


def test_fewer_than_two_judges_have_no_agreement_table() -> None:
    rows = [{"model": "m", "template": "A", "status": "passed", "member_verdicts": {"A": {"preserve": ["T", "F"]}}}]
    assert judge_agreement(_frame(rows)).empty


def test_each_judge_is_scored_on_its_own_verdicts_beside_the_panel() -> None:
    rows = [
        _row("A", ["T", "T", "F"]),
        _row("A", ["T", "F", "F"], "failed"),
        _row("B", ["T", "T", "T"]),
        _row("B", ["F", None, "T"], "unscored"),
        {"model": "m", "template": "B", "status": "error", "verdicts": {}, "member_verdicts": {}},
        {"model": "m", "template": "B", "status": "pending", "verdicts": {}, "member_verdicts": {}},
    ]
    table = judge_accuracy(_frame(rows)).set_index("judge")
    assert list(table.index) == [PANEL, "A", "B", "C"]
    # panel: A 1/2 = 50, B 1/1 = 100 (the split row unscored) → 75; judge A: A 2/2, B 1/2 → 75
    assert table.loc[PANEL, "accuracy"] == pytest.approx(75.0)
    assert table.loc["A", "accuracy"] == pytest.approx(75.0)
    # judge B: A 1/2, B 1/1 (its unreadable verdict leaves the row unscored) → 75; judge C: A 0/2, B 2/2 → 50
    assert table.loc["B", "accuracy"] == pytest.approx(75.0) and table.loc["B", "unscored"] == 1
    assert table.loc["C", "accuracy"] == pytest.approx(50.0) and table.loc["C", "unscored"] == 0
    # the respondent error counts for every judge alike; the pending row for none
    assert set(table["errors"]) == {1} and set(table["n"]) == {5}


def test_flip_rate_counts_pairs_whose_samples_disagree() -> None:
    samples = {
        "J": {"connectors": ["T", "T", "T"], "preserve": ["T", "F", "T"], "change": ["F", None, "F"]},
    }
    again = {
        "J": {"connectors": ["T", "F", None], "preserve": ["T", "T", "T"], "change": ["T", None, None]},
    }
    rows = [
        {"model": "m", "template": "A", "status": "failed", "member_verdicts": samples},
        {"model": "m", "template": "A", "status": "unscored", "member_verdicts": again},
    ]
    table = flip_rates(_frame(rows)).set_index("check")
    # connectors: both pairs counted, the second flips → 1/2; preserve: the first flips → 1/2;
    # change: the second has one parseable sample only → 1 pair, no flip
    assert table.loc["connectors", ["pairs", "flips", "flip_rate"]].tolist() == [2, 1, 50.0]
    assert table.loc["preserve", ["pairs", "flips", "flip_rate"]].tolist() == [2, 1, 50.0]
    assert table.loc["change", ["pairs", "flips", "flip_rate"]].tolist() == [1, 0, 0.0]
    assert table["unparseable_samples"].sum() == 4


def test_single_samples_have_no_flip_table() -> None:
    rows = [_row("A", ["T", "F", "T"])]
    assert flip_rates(_frame(rows)).empty


def test_verdict_diff_between_two_prompt_sets() -> None:
    t = {"connectors": "T", "preserve": "T", "change": "T"}
    pairs = [
        (t, t),
        (t, t | {"preserve": "F"}),
        (t | {"change": "F"}, t),
        (t | {"change": "F"}, t | {"change": "F", "preserve": None}),
    ]
    table = verdict_diff(pairs).set_index("target")
    preserve = table.loc["preserve"]
    # preserve: compared 3 (the None is left out), one T → F; pass rates 3/3 → 2/3
    assert preserve[["compared", "flips", "t_to_f", "f_to_t"]].tolist() == [3, 1, 1, 0]
    assert preserve["pass_rate_change"] == pytest.approx(100 * 2 / 3 - 100)
    change = table.loc["change"]
    assert change[["compared", "flips", "t_to_f", "f_to_t"]].tolist() == [4, 1, 0, 1]
    assert (change["pass_rate_a"], change["pass_rate_b"]) == (50.0, 75.0)
    # overall: pass, pass→fail, fail→pass, fail→fail (F fails whatever is missing): 2 flips of 4
    overall = table.loc["overall"]
    assert overall[["compared", "flips", "t_to_f", "f_to_t"]].tolist() == [4, 2, 1, 1]
    assert overall["pass_rate_change"] == 0.0
