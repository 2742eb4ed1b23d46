"""The judge audit's reliability figure: P(T) binned against the observed share, one series per table that has
verdicts (the probes' pooled checks, and each of a reference's tables), the diagonal for a perfect judge."""

from __future__ import annotations

from cobe.report.audit_figure import reliability_svg


def table(check: str, ece: float, bins: list[tuple[float, float, int]]) -> dict:
    return {
        "check": check,
        "items": sum(items for _, _, items in bins),
        "ece": ece,
        "brier": 0.1,
        "bins": [
            {"low": round(p, 1), "high": round(p, 1) + 0.1, "items": items, "mean_p": p, "observed": seen}
            for p, seen, items in bins
        ],
    }


def card(**extra: object) -> dict:
    return {
        "judge": "openai/gpt-5.4",
        "calibration": [table("change", 0.02, [(0.95, 0.9, 10)]), table("all checks", 0.031, [(0.95, 0.9, 30)])],
        **extra,
    }


def test_the_figure_draws_the_probes_pooled_table_and_each_reference_table():
    reference = {
        "reference": "the human majority of run/study/study.sqlite",
        "tables": [table("pass", 0.148, [(0.99, 0.8, 15), (0.0, 0.0, 5)])],
    }
    svg = reliability_svg(card(reference=reference)).decode()
    assert svg.startswith("<?xml")
    assert "against the verdicts the probes must get, all checks (ECE 0.031)" in svg
    assert "pass against the human majority of run/study/study.sqlite (ECE 0.148)" in svg
    assert "change (ECE 0.020)" not in svg  # the probes' per-check tables stay in the card's text
    assert svg == reliability_svg(card(reference=reference)).decode()  # the same card draws the same bytes


def test_without_any_p_true_there_is_no_figure():
    assert reliability_svg({"judge": "anthropic/claude-opus-4-7", "calibration": []}) is None
    empty_reference = {"reference": "cobe-site (published)", "tables": []}
    assert reliability_svg({"judge": "x", "calibration": [], "reference": empty_reference}) is None
