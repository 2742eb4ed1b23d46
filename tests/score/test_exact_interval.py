"""With too few core examples for a bootstrap, or a rate no draw can move (0 or 100%), the interval is the exact one,
never "0.0 ± 0.0 [0.0, 0.0]" (issue 39, item 2)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cobe.report.markdown import leaderboard_markdown
from cobe.report.tables import build_tables
from cobe.score.accuracy import rows_frame
from cobe.score.binomial import clopper_pearson, clopper_pearson_effective
from cobe.score.bootstrap import (
    CORE_UNIT,
    MIN_CLUSTERS,
    bootstrap_accuracy,
    bootstrap_distribution,
    item_matrix,
    percentile_interval,
)


def _rows(cores: int, per_core: int, passed: Callable[[int, int, str], bool], model: str = "m") -> list[dict]:
    """`cores` core examples of `per_core` scenarios, each asked in A and B."""
    return [
        {
            "model": model,
            "label": model,
            "run": "r",
            "tier": 1,
            "scenario_id": f"{c}v{v}",
            "core_id": str(c),
            "template": t,
            "status": "passed" if passed(c, v, t) else "failed",
            "verdicts": {},
        }
        for c in range(1, cores + 1)
        for v in range(1, per_core + 1)
        for t in "AB"
    ]


def test_no_pass_in_two_core_examples_gives_the_exact_interval_not_a_point() -> None:
    rows = _rows(2, 4, lambda c, v, t: False)[:15]  # 0 passes of 15 scored, in 2 core examples
    interval = bootstrap_accuracy(rows_frame(rows), resamples=500).iloc[0]
    assert (interval["ci_method"], interval["ci_unit"], interval["clusters"]) == ("exact", CORE_UNIT, 2)
    assert interval["ci_low"] == 0.0
    # each core one draw (the design effect at its largest): the exact interval of 0 of 2
    assert interval["ci_high"] == pytest.approx(100 * clopper_pearson(0, 2)[1]) and interval["ci_high"] > 80


def test_every_response_passing_leaves_room_below_however_many_core_examples() -> None:
    rows = _rows(20, 3, lambda c, v, t: True)
    interval = bootstrap_accuracy(rows_frame(rows), resamples=200).iloc[0]
    assert interval["ci_method"] == "exact" and interval["ci_high"] == 100.0
    assert interval["ci_low"] == pytest.approx(100 * clopper_pearson(20, 20)[0])  # 0.025^(1/20): 83.16


def test_enough_core_examples_with_varied_outcomes_keep_the_bootstrap() -> None:
    frame = rows_frame(_rows(MIN_CLUSTERS, 3, lambda c, v, t: (c + v) % 3 == 0))
    interval = bootstrap_accuracy(frame, resamples=300, seed=4).iloc[0]
    matrix = item_matrix(frame, unit=CORE_UNIT)
    assert interval["ci_method"] == "bootstrap"
    assert (interval["ci_low"], interval["ci_high"]) == percentile_interval(bootstrap_distribution(matrix, 300, 4))
    assert bootstrap_accuracy(frame, resamples=0).iloc[0][["ci_low", "ci_high"]].isna().all()  # none asked


def test_a_fractional_exact_interval_lies_between_its_integer_neighbours() -> None:
    assert clopper_pearson_effective(3, 10) == pytest.approx(clopper_pearson(3, 10))
    low, high = clopper_pearson_effective(2.5, 5)
    assert clopper_pearson(2, 5)[0] < low < clopper_pearson(3, 5)[0]
    assert clopper_pearson(2, 5)[1] < high < clopper_pearson(3, 5)[1]


def test_tables_mark_an_exact_interval_and_say_why() -> None:
    rows = _rows(2, 4, lambda c, v, t: False) + _rows(12, 2, lambda c, v, t: (c + v) % 2 == 0, model="n")
    tables = build_tables(rows_frame(rows), resamples=100)
    board = tables["leaderboard"].set_index("label")
    assert board.loc["m", "ci_method"] == "exact" and board.loc["n", "ci_method"] == "bootstrap"
    shown = leaderboard_markdown(tables["leaderboard"])
    assert "0.00 ± 0.00 | [0.00, 84.19] (exact)" in shown and "[0.00, 0.00]" not in shown
    assert "no bootstrap draw can vary" in shown
