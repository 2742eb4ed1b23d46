"""The rule a group's accuracy is taken by: decided once per model from what its phrasings were asked, then applied
in every cell. Every scenario in every phrasing (the paper's design) keeps the mean over phrasings and its ±; one
query per scenario (the site's files) is pooled everywhere (issue 39, items 1 and 3)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from cobe.score.accuracy import accuracy, breakdown, by_epoch, rows_frame
from cobe.score.bootstrap import bootstrap_accuracy
from cobe.score.ranks import rank_ranges
from cobe.score.rule import (
    MEAN_RULE,
    POOLED_RULE,
    accuracy_text,
    overlap_of,
    phrasing_overlap,
    rule_sentence,
    with_rule,
)


def _row(model: str, scenario: str, template: str, passed: bool, domain: str, tier: int = 1) -> dict:
    return {
        "model": model,
        "scenario_id": scenario,
        "core_id": scenario.split("v")[0],
        "template": template,
        "tier": tier,
        "domain": domain,
        "status": "passed" if passed else "failed",
    }


def paper_rows() -> list[dict]:
    """1000 scenarios, each in A, B and C: 611, 619 and 611 passes (the DESIGN's 61.1, 61.9, 61.1)."""
    passes = {"A": 611, "B": 619, "C": 611}
    return [
        _row("m", f"{i}v1", t, i < passes[t], "travel" if i % 2 else "health")
        for t in ("A", "B", "C")
        for i in range(1000)
    ]


def site_rows() -> list[dict]:
    """One query per scenario, phrasings taken unevenly: A 1 of 4 pass, B 3 of 3, C 0 of 1 (pooled 4/8 = 50%)."""
    plan = [("A", 1, 4), ("B", 3, 3), ("C", 0, 1)]
    rows, n = [], 0
    for template, passes, asked in plan:
        for k in range(asked):
            rows.append(_row("s", f"{n}v1", template, k < passes, "x" if n % 2 else "y"))
            n += 1
    return rows


def test_paper_shaped_rows_keep_the_mean_over_phrasings_and_its_std() -> None:
    df = rows_frame(paper_rows())
    row = accuracy(df).iloc[0]
    assert row["rule"] == MEAN_RULE and f"{row['accuracy']:.2f} ± {row['std']:.2f}" == "61.37 ± 0.46"
    # every breakdown cell: the mean over its phrasings, as before
    cells = breakdown(df, "domain").set_index("domain")
    for domain, part in df.groupby("domain"):
        per = [100 * p["status"].eq("passed").mean() for _, p in part.groupby("template")]
        assert cells.loc[domain, "accuracy"] == pytest.approx(sum(per) / 3) and cells.loc[domain, "rule"] == MEAN_RULE
    assert phrasing_overlap(df).iloc[0]["same_scenarios"] == 1.0


def test_one_query_per_scenario_is_pooled_in_the_headline_and_every_cell() -> None:
    df = rows_frame(site_rows())
    row = accuracy(df).iloc[0]
    # the mean over phrasings would say (25 + 100 + 0) / 3 = 41.67
    assert row["rule"] == POOLED_RULE and row["accuracy"] == 50.0 and math.isnan(row["std"])
    assert row["phrasings"] == 3 and row["scored"] == 8
    cells = breakdown(df, "domain").set_index("domain")
    for domain, part in df.groupby("domain"):
        assert cells.loc[domain, "accuracy"] == pytest.approx(100 * part["status"].eq("passed").mean())
        assert cells.loc[domain, "rule"] == POOLED_RULE  # the model's rule, though a cell may hold one phrasing
    assert by_epoch(df).iloc[0]["accuracy"] == 50.0


def test_the_rule_is_each_models_own_and_comes_from_all_its_rows() -> None:
    df = rows_frame(paper_rows() + site_rows())
    ruled = with_rule(df).groupby("model")["rule"].unique()
    assert list(ruled["m"]) == [MEAN_RULE] and list(ruled["s"]) == [POOLED_RULE]
    # a cell of one domain and one phrasing still follows its model, and a group across models pooled if any is
    table = accuracy(df[df["template"] == "A"], by=["model"]).set_index("model")
    assert table.loc["s", "rule"] == MEAN_RULE  # rows of one phrasing alone cannot tell: one phrasing, one mean
    together = accuracy(with_rule(df).assign(all="all"), by=["all"]).iloc[0]
    assert together["rule"] == POOLED_RULE and together["accuracy"] == pytest.approx(100 * (1841 + 4) / 3008)


def test_tiers_are_judged_apart() -> None:
    # tier 1 over 40 scenarios, tier 2 over 10 of them: each tier asks its phrasings of the same scenarios
    rows = [_row("m", f"{i}v1", t, i % 3 == 0, "x") for t in "ABC" for i in range(40)]
    rows += [_row("m", f"{i}v1", t, i % 2 == 0, "x", tier=2) for t in "DEFG" for i in range(10)]
    overlap = phrasing_overlap(rows_frame(rows)).iloc[0]
    assert overlap["rule"] == MEAN_RULE and overlap["same_scenarios"] == 1.0
    assert overlap_of([[{"1", "2"}, {"1", "2"}], [{"1"}, {"2"}]])[1:] == ("scenarios", POOLED_RULE)
    assert overlap_of([[{"1"}]])[1:] == ("phrasings", MEAN_RULE)  # one phrasing: the mean is the pooled rate


def test_rows_without_scenario_ids_cannot_tell_and_keep_the_mean() -> None:
    rows = [{"model": "m", "template": t, "status": s} for t, s in [("A", "passed"), ("A", "failed"), ("B", "passed")]]
    row = accuracy(rows_frame(rows)).iloc[0]
    assert row["rule"] == MEAN_RULE and row["accuracy"] == 75.0


def test_the_bootstrap_and_the_rank_ranges_draw_by_the_rule() -> None:
    df = rows_frame(site_rows() * 3)  # the same eight scenarios thrice: still one phrasing each
    interval = bootstrap_accuracy(df, resamples=200).iloc[0]
    assert interval["ci_method"] == "exact" and interval["ci_low"] < 50.0 < interval["ci_high"]
    many = rows_frame([_row("s", f"{i}v1", "ABC"[i % 3], i % 2 == 0, "x") for i in range(60)])
    drawn = bootstrap_accuracy(many, resamples=300).iloc[0]
    assert drawn["ci_method"] == "bootstrap" and drawn["ci_low"] < 50.0 < drawn["ci_high"]
    ranks = rank_ranges(pd.concat([many, many.assign(model="t", status="failed", **{"pass": False})]), "model")
    assert ranks.set_index("model").loc["s", "rank_high"] == 1.0


def test_the_cells_and_the_sentence_say_which_rule() -> None:
    assert accuracy_text(61.3666, 0.4619, MEAN_RULE) == "61.37 ± 0.46"
    assert accuracy_text(42.1053, math.nan, POOLED_RULE) == "42.11 (pooled)"
    assert accuracy_text(math.nan, math.nan, POOLED_RULE) == "–"
    assert rule_sentence([MEAN_RULE]).startswith("Accuracy = mean over phrasings")
    assert rule_sentence([POOLED_RULE]).startswith("Accuracy = pooled passes / scored")
    assert "rows marked (pooled)" in rule_sentence([MEAN_RULE, POOLED_RULE])
