"""Bootstrap CIs over scenarios: correct, seeded and vectorised."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cobe.score.accuracy import accuracy, rows_frame
from cobe.score.bootstrap import (
    CORE_UNIT,
    SCENARIO_UNIT,
    bootstrap_accuracy,
    bootstrap_distribution,
    item_matrix,
    resample_weights,
    resampling_note,
    resampling_unit,
)


def _frame(n_scenarios: int = 80, rate: float = 0.6, seed: int = 0, model: str = "m") -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [
        {
            "model": model,
            "scenario_id": f"{i}v1",
            "template": t,
            "status": "passed" if rng.random() < rate else "failed",
        }
        for i in range(n_scenarios)
        for t in "ABC"
    ]
    rows[0]["status"] = "unscored"
    return rows_frame(rows)


def test_weights_draw_every_resample_with_n_items():
    weights = resample_weights(np.random.default_rng(1), 50, 200)
    assert weights.shape == (200, 50) and (weights.sum(axis=1) == 50).all()


def test_identity_weights_give_the_point_estimate():
    df = _frame()
    matrix = item_matrix(df)
    ones = np.ones((1, len(matrix.scenarios)))
    from cobe.score.bootstrap import mean_over_phrasings

    assert mean_over_phrasings(ones @ matrix.passes, ones @ matrix.scored)[0] == pytest.approx(
        accuracy(df).iloc[0]["accuracy"]
    )


def test_matches_a_naive_loop_over_resampled_scenarios():
    df = _frame(30)
    fast = bootstrap_distribution(item_matrix(df), resamples=50, seed=7)
    rng = np.random.default_rng(7)
    ids = item_matrix(df).scenarios
    naive = []
    for _ in range(50):
        draw = ids[rng.integers(0, len(ids), size=len(ids))]
        resampled = pd.concat([df[df["scenario_id"] == s] for s in draw])
        naive.append(accuracy(resampled).iloc[0]["accuracy"])
    np.testing.assert_allclose(fast, naive)


def test_ci_is_seeded_contains_the_estimate_and_shrinks_with_more_scenarios():
    small, large = _frame(40), _frame(800, seed=1)
    one = bootstrap_accuracy(small, resamples=300, seed=5)
    assert one.equals(bootstrap_accuracy(small, resamples=300, seed=5))
    point = accuracy(small).iloc[0]["accuracy"]
    assert one.iloc[0]["ci_low"] < point < one.iloc[0]["ci_high"]
    wide = one.iloc[0]["ci_high"] - one.iloc[0]["ci_low"]
    big = bootstrap_accuracy(large, resamples=300, seed=5).iloc[0]
    assert big["ci_high"] - big["ci_low"] < wide / 2


def test_groups_are_bootstrapped_separately():
    df = pd.concat([_frame(40, 0.2, model="a"), _frame(40, 0.9, model="b")], ignore_index=True)
    table = bootstrap_accuracy(df, by=["model"], resamples=200).set_index("model")
    assert table.loc["a", "ci_high"] < table.loc["b", "ci_low"]


def _families(cores: int = 20, variations: int = 10, model: str = "m") -> pd.DataFrame:
    """Scenarios in families whose outcomes are fixed by their core: half the cores pass everything."""
    rows = [
        {
            "model": model,
            "label": model,
            "run": "r",
            "tier": 1,
            "scenario_id": f"{core}v{variation}",
            "core_id": core,
            "template": t,
            "status": "passed" if core % 2 else "failed",
        }
        for core in range(1, cores + 1)
        for variation in range(1, variations + 1)
        for t in "ABC"
    ]
    return rows_frame(rows)


def test_families_resample_their_cores_and_the_leaderboard_says_so():
    from cobe.report.tables import leaderboard

    row = leaderboard(_families(), resamples=1000, seed=0).iloc[0]
    assert row["accuracy"] == pytest.approx(50.0)
    # 20 independent draws of a pass-or-fail core: about ±22 points, not the ±7 of 200 "independent" scenarios
    assert (row["ci_high"] - row["ci_low"]) / 2 > 15
    assert (row["ci_unit"], row["clusters"]) == (CORE_UNIT, 20)
    as_scenarios = bootstrap_distribution(item_matrix(_families(), unit=SCENARIO_UNIT), resamples=1000, seed=0)
    low, high = np.percentile(as_scenarios, [2.5, 97.5])
    assert (high - low) / 2 < 8  # what the old scenario bootstrap reported on the same rows


def test_scenarios_without_families_are_resampled_one_by_one():
    df = _frame(30).assign(core_id=range(90))  # every scenario its own core
    table = bootstrap_accuracy(df, resamples=50)
    assert (table.iloc[0]["ci_unit"], table.iloc[0]["clusters"]) == (SCENARIO_UNIT, 30)
    assert resampling_unit(_frame(30)) == SCENARIO_UNIT  # rows that name no core at all
    assert resampling_note(table) == "scenarios (30)"


def test_the_cluster_bootstrap_matches_a_naive_loop_over_resampled_cores():
    rng = np.random.default_rng(3)
    df = _families(8, 4)
    df["pass"] = rng.random(len(df)) < 0.5 + 0.1 * (df["core_id"] % 3)
    df["status"] = np.where(df["pass"], "passed", "failed")
    matrix = item_matrix(df, unit=resampling_unit(df))
    fast = bootstrap_distribution(matrix, resamples=40, seed=9)
    draws = np.random.default_rng(9)
    naive = []
    for _ in range(40):
        cores = matrix.scenarios[draws.integers(0, len(matrix.scenarios), size=len(matrix.scenarios))]
        naive.append(accuracy(pd.concat([df[df["core_id"] == c] for c in cores])).iloc[0]["accuracy"])
    np.testing.assert_allclose(fast, naive)
    assert resampling_note(bootstrap_accuracy(df, resamples=10)) == "core examples (8 clusters)"


def test_the_block_size_bounds_memory_and_changes_no_interval(monkeypatch):
    import cobe.score.bootstrap as bootstrap

    matrix = item_matrix(_frame(400))
    whole = bootstrap_distribution(matrix, resamples=300, seed=3)
    shapes = []
    blocks = bootstrap.bootstrap_blocks

    def spy(rng, n_items, resamples):
        for weights in blocks(rng, n_items, resamples):
            shapes.append(weights.shape)
            yield weights

    monkeypatch.setattr(bootstrap, "bootstrap_blocks", spy)
    monkeypatch.setattr(bootstrap, "_BLOCK_CELLS", 7 * 400)
    np.testing.assert_array_equal(bootstrap_distribution(matrix, resamples=300, seed=3), whole)
    assert max(rows * cols for rows, cols in shapes) <= 7 * 400 and sum(rows for rows, _ in shapes) == 300
