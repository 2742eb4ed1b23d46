"""The exact (Clopper–Pearson) binomial interval."""

from __future__ import annotations

import pytest
from statsmodels.stats.proportion import proportion_confint

from cobe.score.binomial import clopper_pearson


def test_clopper_pearson_matches_statsmodels_and_known_values():
    for hits, n in [(0, 5), (5, 5), (17, 20), (3, 10)]:
        low, high = clopper_pearson(hits, n)
        ref = proportion_confint(hits, n, alpha=0.05, method="beta")
        assert (low, high) == pytest.approx(ref)
    # 0 of 5: the upper bound is 1 − 0.025^(1/5)
    assert clopper_pearson(0, 5)[1] == pytest.approx(1 - 0.025 ** (1 / 5))
    with pytest.raises(ValueError):
        clopper_pearson(0, 0)
