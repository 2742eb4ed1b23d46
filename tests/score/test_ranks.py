"""Rank ranges: the ranks each model takes over one joint cluster bootstrap, so ties in the data show as ties."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from cobe.score.accuracy import rows_frame
from cobe.score.ranks import rank_method, rank_ranges, rank_text
from support.results import make_rows


def _frame(rates: dict[str, float], n: int = 60) -> pd.DataFrame:
    frame = rows_frame([row for m, rate in rates.items() for row in make_rows(m, n, rate)])
    return frame.assign(label=frame["model"])


def test_two_clear_tiers_get_ranges_that_do_not_cross():
    ranges = rank_ranges(_frame({"a": 0.9, "b": 0.88, "c": 0.2, "d": 0.18}), resamples=300).set_index("label")
    assert ranges.loc["a", "rank_low"] == 1 and ranges.loc["a", "rank_high"] == 2
    assert ranges.loc["b", "rank_high"] <= 2
    assert ranges.loc["c", "rank_low"] >= 3 and ranges.loc["d", "rank_low"] >= 3 and ranges.loc["d", "rank_high"] == 4


def test_models_with_the_same_outcomes_share_the_better_rank_in_every_draw():
    frame = _frame({"x": 0.5})
    twin = frame.assign(model="y", label="y")
    ranges = rank_ranges(pd.concat([frame, twin]), resamples=200).set_index("label")
    assert ranges.loc["x"].tolist() == ranges.loc["y"].tolist() == [1.0, 1.0]


def test_a_model_with_nothing_scored_and_no_resamples_have_no_range():
    frame = _frame({"a": 0.5, "b": 0.5}, n=6)
    assert rank_ranges(frame, resamples=0)[["rank_low", "rank_high"]].isna().all().all()
    silent = frame.assign(scored=frame["label"].eq("a") & frame["scored"])
    ranges = rank_ranges(silent, resamples=50).set_index("label")
    assert math.isnan(ranges.loc["b", "rank_low"]) and ranges.loc["a", "rank_low"] == 1


def test_the_range_and_its_method_read_as_text():
    assert rank_text(2.0, 5.0) == "2–5" and rank_text(3.0, 3.0) == "3" and rank_text(None, None) == "–"
    method = rank_method(500, "core examples (20 clusters)")
    assert "500 bootstrap resamples of core examples (20 clusters)" in method and "overlap" in method
    assert "--resamples 0" in rank_method(0, "scenarios")


def test_min_ranks_are_scipys_competition_ranks_ties_and_unscored_included():
    """The written-out ranks equal SciPy's `rankdata(method="min")` row by row, ties and infinities (unscored) too."""
    from scipy.stats import rankdata

    from cobe.score.ranks import min_ranks

    rng = np.random.default_rng(7)
    for models in (1, 2, 5, 30):
        values = rng.integers(0, 4, (200, models)).astype(float)
        values[values == 3] = np.inf
        assert (min_ranks(values) == rankdata(values, method="min", axis=1)).all()
