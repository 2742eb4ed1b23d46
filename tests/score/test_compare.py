"""Paired comparison: exact McNemar and a paired bootstrap CI on shared scored items."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar

from cobe.core.errors import InputError
from cobe.score.accuracy import rows_frame
from cobe.score.compare import mcnemar_exact, paired_comparison


def _frame(passes: list[bool], label: str, skip: set[int] = frozenset()):
    rows = [
        {
            "model": label,
            "label": label,
            "scenario_id": f"{i // 3}v1",
            "template": "ABC"[i % 3],
            "status": "unscored" if i in skip else ("passed" if p else "failed"),
        }
        for i, p in enumerate(passes)
    ]
    return rows_frame(rows)


@pytest.mark.parametrize("a_only,b_only", [(0, 0), (3, 9), (10, 2), (25, 40)])
def test_mcnemar_exact_matches_statsmodels(a_only, b_only):
    expected = 1.0 if a_only + b_only == 0 else mcnemar([[5, a_only], [b_only, 5]], exact=True).pvalue
    assert mcnemar_exact(a_only, b_only) == pytest.approx(expected)


def test_identical_runs_are_not_different():
    passes = list(np.random.default_rng(0).random(150) < 0.6)
    result = paired_comparison(_frame(passes, "a"), _frame(passes, "b"), "a", "b", resamples=200)
    assert result.difference == 0 and result.ci_low == result.ci_high == 0
    assert result.p_value == 1.0 and not result.significant
    assert result.verdict().startswith("No significant difference")


def test_only_items_scored_in_both_runs_count():
    a = _frame([True] * 9, "a", skip={0})
    b = _frame([False] * 6, "b")  # items 6..8 are missing from B
    result = paired_comparison(a, b, "a", "b", resamples=50)
    assert result.items == 5 and result.a_only == 5 and result.accuracy_a == 100.0 and result.accuracy_b == 0.0


def test_a_clearly_better_run_is_significant():
    rng = np.random.default_rng(2)
    weak, strong = list(rng.random(300) < 0.2), list(rng.random(300) < 0.8)
    result = paired_comparison(_frame(strong, "strong"), _frame(weak, "weak"), "strong", "weak", resamples=300, seed=1)
    assert result.significant and result.ci_low > 0 and result.difference > 40
    assert result.verdict().startswith("Significant at 0.05: strong beats weak")
    assert result.to_dict()["significant"] is True


def test_no_shared_items_is_an_input_error():
    a = _frame([True] * 3, "a")
    b = rows_frame([{"model": "b", "label": "b", "scenario_id": "99v1", "template": "A", "status": "passed"}])
    with pytest.raises(InputError, match="scored in both"):
        paired_comparison(a, b)


def test_zero_resamples_gives_no_interval_and_valid_json():
    rng = np.random.default_rng(3)
    a, b = list(rng.random(60) < 0.7), list(rng.random(60) < 0.3)
    result = paired_comparison(_frame(a, "a"), _frame(b, "b"), "a", "b", resamples=0)
    assert math.isnan(result.ci_low) and math.isnan(result.ci_high)
    assert "95% CI" not in result.verdict() and "nan" not in result.verdict()
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))  # NaN is not JSON
    assert data["ci_low"] is None and data["ci_high"] is None
