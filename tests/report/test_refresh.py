"""A run directory's report is redrawn only when its results change."""

from __future__ import annotations

from cobe.report.writer import refresh_run_report
from support.results import make_rows, write_run


def test_report_is_drawn_once_then_again_only_after_results_change(tmp_path):
    run = write_run(tmp_path / "run", make_rows("m", n_scenarios=6, seed=1))
    assert refresh_run_report(run, formats=("html",)) is True
    html = run / "report.html"
    first = html.stat().st_mtime_ns
    assert refresh_run_report(run, formats=("html",)) is False
    assert html.stat().st_mtime_ns == first
    write_run(run, make_rows("m", n_scenarios=7, seed=2))
    assert refresh_run_report(run, formats=("html",)) is True


def test_nothing_to_report_without_results(tmp_path):
    assert refresh_run_report(tmp_path) is False
