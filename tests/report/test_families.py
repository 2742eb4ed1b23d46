"""Scenarios in families (a core example and its variations): every interval resamples the cores, and says so."""

from __future__ import annotations

import json

import cobe
from support.cli import run_cobe
from support.results import family_rows, write_run


def test_the_leaderboard_ci_of_20_cores_by_10_variations_is_over_15_points_wide(tmp_path):
    run = write_run(tmp_path / "run", family_rows("mock/a"))
    row = cobe.leaderboard(run).iloc[0]
    assert row["accuracy"] == 50.0
    assert (row["ci_high"] - row["ci_low"]) / 2 > 15
    assert (row["ci_unit"], row["clusters"]) == ("core example", 20)


def test_the_report_names_the_unit_and_the_clusters(tmp_path):
    run = write_run(tmp_path / "run", family_rows("mock/a"))
    done = run_cobe(
        "report", str(run), "--out", str(tmp_path / "out"), "--format", "md,html,json", "--resamples", "200"
    )
    assert done.returncode == 0, done.stderr
    assert "95% CI: bootstrap over core examples (20 clusters)" in done.stdout
    assert (
        "200 bootstrap resamples of core examples (20 clusters) (seed 0)"
        in (tmp_path / "out" / "report.md").read_text()
    )
    assert "resamples of core examples (20 clusters)" in (tmp_path / "out" / "report.html").read_text()
    table = json.loads((tmp_path / "out" / "tables" / "leaderboard.json").read_text())
    assert table[0]["ci_unit"] == "core example" and table[0]["clusters"] == 20


def test_a_paired_comparison_of_families_draws_cores(tmp_path):
    a = write_run(tmp_path / "a", family_rows("mock/a"))
    b = write_run(tmp_path / "b", family_rows("mock/b", passing=frozenset(range(1, 11))))
    done = run_cobe("compare", str(a), str(b), "--json", "--resamples", "300")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["ci_unit"], result["clusters"], result["scenarios"], result["items"]) == (
        "core example",
        20,
        200,
        600,
    )
    # the runs disagree on 10 whole cores: resampled as cores, the difference's CI spans tens of points
    assert result["ci_high"] - result["ci_low"] > 30
    shown = run_cobe("compare", str(a), str(b), "--resamples", "100")
    assert "The CI's paired bootstrap draws 20 core examples (100 resamples)." in shown.stdout
