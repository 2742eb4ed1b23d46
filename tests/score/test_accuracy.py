"""The paper's published arithmetic is the acceptance test for accuracy."""

from __future__ import annotations

import pandas as pd
import pytest

from cobe.score.accuracy import (
    accuracy,
    breakdown,
    by_phrasing,
    check_failure_rates,
    mean_and_std,
    pooled_accuracy,
    rows_frame,
)


def test_design_worked_example_mean_and_sample_std():
    mean, std = mean_and_std([61.1, 61.9, 61.1])
    assert f"{mean:.2f} ± {std:.2f}" == "61.37 ± 0.46"


def _rows(model: str, template: str, passes: int, fails: int, unscored: int = 0, domain: str = "travel"):
    rows = []
    for status, count in (("passed", passes), ("failed", fails), ("unscored", unscored)):
        rows += [
            {
                "model": model,
                "template": template,
                "status": status,
                "domain": domain,
                "failure_modes": ["spatial"],
                "verdicts": {},
            }
            for _ in range(count)
        ]
    return rows


def test_accuracy_from_counts_per_phrasing_and_unscored_left_out():
    # 611/1000, 619/1000, 611/1000 scored; unscored rows must not enter the denominator
    rows = _rows("m", "A", 611, 389, unscored=7) + _rows("m", "B", 619, 381) + _rows("m", "C", 611, 389, unscored=2)
    table = accuracy(rows_frame(rows))
    row = table.iloc[0]
    assert round(row["accuracy"], 2) == 61.37 and round(row["std"], 2) == 0.46
    assert row["unscored"] == 9 and row["scored"] == 3000 and row["phrasings"] == 3


def test_breakdown_and_by_phrasing_share_the_arithmetic():
    rows = _rows("m", "A", 3, 1, domain="x") + _rows("m", "B", 1, 1, domain="x") + _rows("m", "A", 0, 2, domain="y")
    df = rows_frame(rows)
    dom = breakdown(df, "domain").set_index("domain")
    assert dom.loc["x", "accuracy"] == pytest.approx((75.0 + 50.0) / 2)
    assert dom.loc["y", "accuracy"] == 0.0 and dom.loc["y", "std"] == 0.0
    modes = breakdown(df, "failure_modes")
    assert modes["failure_modes"].tolist() == ["spatial"]
    per = by_phrasing(df).set_index("template")
    assert per.loc["A", "scored"] == 6 and per.loc["A", "passes"] == 3


def test_check_failure_rates_count_only_judged_verdicts():
    df = pd.DataFrame(
        [
            {"model": "m", "status": "failed", "verdicts": {"preserve": "F", "change": "T", "connectors": "T"}},
            {"model": "m", "status": "passed", "verdicts": {"preserve": "T", "change": "T", "connectors": "T"}},
            {"model": "m", "status": "unscored", "verdicts": {"preserve": None, "change": "T", "connectors": "T"}},
        ]
    )
    rates = check_failure_rates(df).set_index("check")
    assert rates.loc["preserve", "failure_rate"] == 50.0 and rates.loc["preserve", "unscored"] == 1
    assert rates.loc["change", "failure_rate"] == 0.0


def test_errors_as_failures_beside_the_headline():
    # A: 3 passed, 1 failed, 2 errors; B: 2 passed, 2 failed. Headline leaves errors out, the other counts them as F.
    rows = _rows("m", "A", 3, 1) + _rows("m", "B", 2, 2)
    rows += [{"model": "m", "template": "A", "status": "error", "domain": "x", "failure_modes": [], "verdicts": {}}] * 2
    row = accuracy(rows_frame(rows)).iloc[0]
    assert row["accuracy"] == pytest.approx((75.0 + 50.0) / 2) and row["errors"] == 2
    assert row["accuracy_incl_errors"] == pytest.approx((50.0 + 50.0) / 2) and row["std_incl_errors"] == 0.0
    clean = accuracy(rows_frame(_rows("m", "A", 3, 1))).iloc[0]
    assert clean["accuracy_incl_errors"] == clean["accuracy"] == 75.0


def test_nothing_judged_has_no_accuracy_of_either_kind():
    rows = [{"model": "m", "template": "A", "status": s, "verdicts": {}} for s in ("error", "pending", "pending")]
    row = accuracy(rows_frame(rows)).iloc[0]
    assert pd.isna(row["accuracy"]) and pd.isna(row["accuracy_incl_errors"])


def test_error_types_of_figure_6():
    from cobe.score.accuracy import error_type_rates

    def row(status, verdicts, tags):
        return {"model": "m", "template": "A", "status": status, "verdicts": verdicts, "tags": tags}

    t = {"connectors": "T", "preserve": "T", "change": "T"}
    rows = [
        row("failed", t | {"preserve": "F"}, ["numeric"]),
        row("passed", t, ["numeric"]),
        row("passed", t, ["numeric", "latent"]),
        row("failed", t | {"change": "F", "connectors": "F"}, ["latent"]),
        row("unscored", t | {"connectors": None}, ["latent"]),  # not scored: outside E5's denominator
        row("error", {}, ["numeric"]),
    ]
    table = error_type_rates(rows_frame(rows)).set_index("error")
    assert table["error_label"].tolist() == [
        "E1 upstream (preserve)",
        "E2 downstream (change)",
        "E3 connectors",
        "E4 numeric",
        "E5 latent factors",
    ]
    assert (table.loc["E1", "failed"], table.loc["E1", "counted"]) == (1, 5)
    assert (table.loc["E2", "failed"], table.loc["E3", "counted"]) == (1, 4)
    assert (table.loc["E4", "failed"], table.loc["E4", "counted"]) == (1, 3)
    assert table.loc["E5", "failure_rate"] == pytest.approx(50.0)


def test_a_cut_off_reply_is_unscored_and_a_failure_when_errors_count_as_failures():
    rows = _rows("m", "A", 3, 1) + _rows("m", "B", 2, 2)
    rows.append({"model": "m", "template": "A", "status": "unscored", "unjudged": "truncated", "verdicts": {}})
    rows.append({"model": "m", "template": "B", "status": "error", "verdicts": {}})
    rows.append({"model": "m", "template": "B", "status": "unscored", "unjudged": None, "verdicts": {}})
    row = accuracy(rows_frame(rows)).iloc[0]
    assert row["accuracy"] == pytest.approx((75.0 + 50.0) / 2)  # the headline leaves both out
    assert row["unscored"] == 2 and row["errors"] == 1
    # A: 3 / (4 scored + 1 cut off); B: 2 / (4 scored + 1 error); a judge's unscored row stays out
    assert row["accuracy_incl_errors"] == pytest.approx((60.0 + 40.0) / 2)


def test_a_query_in_no_phrasing_is_one_more_phrasing_in_the_mean_and_the_std():
    rows = _rows("m", "A", 6, 4) + _rows("m", "B", 5, 5) + _rows("m", "C", 7, 3) + _rows("m", "other", 1, 1)
    row = accuracy(rows_frame(rows)).iloc[0]
    mean, std = mean_and_std([60.0, 50.0, 70.0, 50.0])
    assert (row["accuracy"], row["std"], row["phrasings"]) == (pytest.approx(mean), pytest.approx(std), 4)
    assert by_phrasing(rows_frame(rows)).set_index("template").loc["other", "accuracy"] == 50.0


def test_pooled_accuracy_is_passes_over_scored_whatever_the_phrasing():
    rows = _rows("m", "A", 1, 0) + _rows("m", "B", 1, 3, unscored=2) + _rows("n", "C", 0, 2)
    table = pooled_accuracy(rows_frame(rows)).set_index("model")
    assert table.loc["m", "pooled_accuracy"] == pytest.approx(40.0) and table.loc["m", "scored"] == 5
    assert accuracy(rows_frame(rows)).set_index("model").loc["m", "accuracy"] == pytest.approx(62.5)
    assert table.loc["n", "pooled_accuracy"] == 0.0


def test_leaving_errors_and_cut_off_replies_out_of_the_headline_is_named_as_cobes_rule():
    # the paper does not say how it counted them: neither the module nor SCORING.md may credit it with the rule
    from pathlib import Path

    import cobe.score.accuracy as module

    scoring = (Path(__file__).resolve().parents[2] / "docs" / "SCORING.md").read_text(encoding="utf-8")
    for text in (module.__doc__ or "", scoring):
        flat = " ".join(text.split())
        assert "cobe's rule" in flat and "follows the paper and leaves" not in flat
        assert "as the paper does" not in flat
    assert "accuracy_incl_errors" in (module.__doc__ or "")
