"""Every pair of several models: paired comparisons with McNemar p adjusted by Holm over the pairs."""

from __future__ import annotations

import pytest
from statsmodels.stats.multitest import multipletests

from cobe.core.errors import InputError
from cobe.score.accuracy import rows_frame
from cobe.score.compare import paired_comparison
from cobe.score.pairwise import all_pairs, holm
from support.results import make_rows

RATES = {"mock/strong": 0.85, "mock/good": 0.6, "mock/fair": 0.5, "mock/weak": 0.15}


def _frames(n: int = 30) -> dict:
    return {m: rows_frame(make_rows(m, n, rate)) for m, rate in RATES.items()}


def test_holm_is_statsmodels_holm_in_the_order_given():
    p = [0.01, 0.04, 0.03, 0.2]
    assert holm(p) == pytest.approx(list(multipletests(p, method="holm")[1]))
    assert holm([]) == []


def test_every_pair_once_the_better_model_first_with_holm_p():
    frames = _frames()
    result = all_pairs(frames, resamples=50, seed=1)
    assert result.models == ["mock/strong", "mock/good", "mock/fair", "mock/weak"]
    pairs = [(p.comparison.label_a, p.comparison.label_b) for p in result.pairs]
    assert len(pairs) == 6 == len(set(pairs)) and pairs[0] == ("mock/strong", "mock/good")
    raw = [p.comparison.p_value for p in result.pairs]
    assert [p.p_holm for p in result.pairs] == pytest.approx(list(multipletests(raw, method="holm")[1]))
    for pair in result.pairs:
        one = paired_comparison(frames[pair.comparison.label_a], frames[pair.comparison.label_b], resamples=50, seed=1)
        assert pair.comparison.p_value == one.p_value and pair.comparison.difference == one.difference
        assert pair.p_holm >= pair.comparison.p_value
    strong_weak = next(
        p for p in result.pairs if p.comparison.label_b == "mock/weak" and p.comparison.label_a == "mock/strong"
    )
    assert strong_weak.significant and strong_weak.comparison.difference > 40


def test_each_pair_lists_its_discordant_items():
    frames = _frames(12)
    result = all_pairs(frames, resamples=0)
    passed = {
        m: {f"{r.scenario_id}:{r.template}" for r in f.itertuples() if r.status == "passed"} for m, f in frames.items()
    }
    for pair in result.to_dict()["pairs"]:
        a, b = passed[pair["label_a"]], passed[pair["label_b"]]
        assert sorted(pair["a_only_items"]) == sorted(a - b) and len(a - b) == pair["a_only"]
        assert sorted(pair["b_only_items"]) == sorted(b - a) and len(b - a) == pair["b_only"]
        assert {"p_value", "p_holm", "significant_holm", "ci_low", "ci_high"} <= pair.keys()


def test_one_model_is_not_a_comparison():
    with pytest.raises(InputError, match="two or more"):
        all_pairs({"mock/a": rows_frame(make_rows("mock/a", 3))})
