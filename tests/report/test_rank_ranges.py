"""The leaderboard says which ranks the data tells apart (a rank range per model) and how it decided, in every table."""

from __future__ import annotations

import json

import cobe
from support.cli import run_cobe
from support.results import make_rows, write_run

#: nine models in three tiers of three close ones
RATES = {f"mock/m{i}": (0.85, 0.5, 0.15)[i // 3] - 0.01 * (i % 3) for i in range(9)}


def _nine(tmp_path):
    return write_run(tmp_path / "nine", [row for m, rate in RATES.items() for row in make_rows(m, 45, rate)])


def test_close_models_share_ranks_and_far_ones_do_not(tmp_path):
    board = cobe.leaderboard(_nine(tmp_path), resamples=300).set_index("label")
    for tier in range(3):
        models = [f"mock/m{3 * tier + i}" for i in range(3)]
        for model in models:  # every model's range stays within its tier, and no close model gets a rank alone
            low, high = board.loc[model, "rank_low"], board.loc[model, "rank_high"]
            assert 3 * tier + 1 <= low < high <= 3 * tier + 3, (model, low, high)


def test_the_cli_table_and_report_md_show_the_ranges_and_the_method(tmp_path):
    run = _nine(tmp_path)
    done = run_cobe("report", str(run), "--resamples", "200", "--format", "md,json")
    assert done.returncode == 0, done.stderr
    assert "ranks" in done.stdout and "Rank range: the central 95% of the ranks" in done.stdout
    assert "200 bootstrap resamples of core examples" in done.stdout
    board = json.loads((run / "tables" / "leaderboard.json").read_text())
    shown = {f"{int(r['rank_low'])}–{int(r['rank_high'])}" for r in board}
    assert any(text in done.stdout for text in shown)
    md = (run / "report.md").read_text()
    assert "| # | rank range | model |" in md and "Rank range: the central 95%" in md
    for row in board:
        assert f"| {int(row['rank_low'])}–{int(row['rank_high'])} | {row['label']} |" in md


def test_no_resamples_no_ranges_and_it_says_so(tmp_path):
    run = _nine(tmp_path)
    done = run_cobe("report", str(run), "--resamples", "0", "--format", "md")
    assert done.returncode == 0, done.stderr
    assert "Rank range: none, as --resamples 0 draws no bootstrap" in (run / "report.md").read_text()
