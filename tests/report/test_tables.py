"""Report tables: the paper's arithmetic, run labels, subsets, tiers and the written outputs."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from cobe.core.errors import InputError
from cobe.report import build_report, load_runs
from cobe.report.tables import build_tables
from support.results import make_rows, rows_with_counts, write_run


def test_leaderboard_reproduces_the_design_worked_example(tmp_path):
    rows = rows_with_counts("paper/model", {"A": (611, 1000), "B": (619, 1000), "C": (611, 1000)})
    run = write_run(tmp_path / "run", rows)
    report = build_report([run], formats="md,csv", resamples=200)
    row = report.leaderboard.iloc[0]
    assert f"{row['accuracy']:.2f} ± {row['std']:.2f}" == "61.37 ± 0.46"
    assert row["ci_low"] < row["accuracy"] < row["ci_high"]
    assert "61.37 ± 0.46" in (run / "report.md").read_text()
    assert pd.read_csv(run / "tables" / "leaderboard.csv")["accuracy"].round(2).tolist() == [61.37]


def test_same_model_in_two_runs_is_kept_apart_by_run_id(tmp_path):
    one = write_run(tmp_path / "one", make_rows("m", 6, 0.5, run_id="r1"))
    two = write_run(tmp_path / "two", make_rows("m", 6, 0.9, run_id="r2"))
    other = write_run(tmp_path / "other", make_rows("x", 6, 0.5, run_id="r3"))
    runs = load_runs([one, two, other])
    assert set(runs.labels) == {"m (r1)", "m (r2)", "x"}


def test_copied_run_with_the_same_id_still_stays_apart(tmp_path):
    rows = make_rows("m", 4, 0.5, run_id="same")
    runs = load_runs([write_run(tmp_path / "a", rows), write_run(tmp_path / "b", rows)])
    assert len(runs.labels) == 2


def test_unscored_and_errors_are_counted_apart(tmp_path):
    rows = make_rows("m", 60, 0.5, unscored_rate=0.1, error_rate=0.1)
    tables = build_tables(load_runs([write_run(tmp_path / "r", rows)]).frame, resamples=0)
    board, status = tables["leaderboard"].iloc[0], tables["status"].iloc[0]
    assert board["unscored"] > 0 and board["errors"] > 0
    assert board["scored"] + board["unscored"] + board["errors"] == board["n"] == len(rows)
    assert board["passes"] == status["passed"] and status["error"] == board["errors"]


def test_breakdowns_subsets_and_human_failure_mode_labels(tmp_path):
    tables = build_tables(load_runs([write_run(tmp_path / "r", make_rows("m", 40, 0.5))]).frame, resamples=0)
    assert set(tables["graph_type"]["graph_type"]) == {"chain", "collider", "fork", "diamond", "correlated", "hybrid"}
    assert tables["failure_mode"]["failure_mode_label"].str.startswith("(").all()
    checks = tables["checks"]
    assert set(checks["subset"]) == {"all", "numeric", "latent"}
    assert set(checks["check_label"]) == {"preserve (upstream)", "change (downstream)", "connectors"}
    assert "tiers" not in tables


def test_several_tiers_get_a_tier_table_and_a_tier1_leaderboard(tmp_path):
    rows = make_rows("m", 10, 0.2) + make_rows("m", 10, 0.9, templates=("H1",), tier=3, seed=1)
    tables = build_tables(load_runs([write_run(tmp_path / "r", rows)]).frame, resamples=0)
    assert tables["tiers"]["tier"].tolist() == [1, 3]
    assert tables["leaderboard"].iloc[0]["tier"] == 1 and tables["leaderboard"].iloc[0]["phrasings"] == 3


def test_every_format_is_written(tmp_path):
    run = write_run(tmp_path / "r", make_rows("m", 12, 0.5), agreement={"metrics": {"kappa": 0.81, "f1": 0.868}})
    out = tmp_path / "out"
    report = build_report([run], out=out, resamples=50)
    names = {p.relative_to(out).as_posix() for p in report.files}
    for figure in ("phrasing", "graph_type", "domain", "failure_mode", "checks"):
        assert f"figures/{figure}.png" in names and f"figures/{figure}.svg" in names
    for table in ("leaderboard", "phrasing", "graph_type", "domain", "failure_mode", "checks", "status"):
        assert f"tables/{table}.csv" in names
        json.loads((out / "tables" / f"{table}.json").read_text())
    assert (out / "figures" / "phrasing.png").read_bytes()[:4] == b"\x89PNG"
    md = (out / "report.md").read_text()
    assert "Agreement with human ratings" in md and "0.81" in md
    html = (out / "report.html").read_text()
    assert "Agreement with human ratings" in html and "kappa" in html


def test_bad_inputs_are_one_line_errors(tmp_path):
    with pytest.raises(InputError, match="no results file"):
        load_runs([tmp_path])
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "results.jsonl").write_text('{"run_id": "x"}\n')
    with pytest.raises(InputError, match=r"results.jsonl:1: "):
        load_runs([bad])
    with pytest.raises(InputError, match="--format"):
        build_report([bad], formats="pdf")


def test_parquet_holds_every_row_with_one_column_per_check(tmp_path):
    import pandas as pd

    from cobe.report.writer import build_report
    from support.results import make_rows, write_run

    run = write_run(tmp_path / "run", make_rows("m", n_scenarios=5, unscored_rate=0.2, seed=3))
    build_report([run], out=tmp_path / "out", formats="parquet", resamples=0)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert len(table) == 15
    assert {"verdict_preserve", "verdict_change", "verdict_connectors", "unscored_change"} <= set(table.columns)
    assert set(table["verdict_preserve"].dropna()) <= {"T", "F"}


def test_tier_table_compares_every_tier_on_one_shared_scenario_set(tmp_path):
    # tier 1 answered 12 scenarios, tier 3 only the first 8 (as when some could not be asked): Table 7 uses those 8
    tier1 = make_rows("m", 12, 0.5)
    first_eight = {row["scenario_id"] for row in tier1[: 8 * 3]}
    tier3 = [r for r in make_rows("m", 12, 0.5, templates=("H1",), tier=3, seed=1) if r["scenario_id"] in first_eight]
    frame = load_runs([write_run(tmp_path / "r", tier1 + tier3)]).frame
    tables = build_tables(frame, resamples=0)
    tiers = tables["tiers"].set_index("tier")
    assert set(tiers["scenarios"]) == {8} and set(tiers["left_out"]) == {4}
    assert tiers.loc[1, "n"] == 8 * 3 and tiers.loc[3, "n"] == 8
    shared = frame[frame["scenario_id"].isin({r["scenario_id"] for r in tier3})]
    expected = shared[shared["tier"] == 1].groupby("template")["pass"].mean().mean() * 100
    assert tiers.loc[1, "accuracy"] == pytest.approx(expected)
    assert tables["leaderboard"].iloc[0]["n"] == 12 * 3  # the leaderboard keeps every tier-1 row
    md = (build_report([tmp_path / "r"], formats="md", resamples=0).out / "report.md").read_text()
    assert "one shared set of scenarios" in md


def test_figure_6_has_five_error_types_and_errors_as_failures_reach_the_leaderboard(tmp_path):
    import cobe

    run = write_run(tmp_path / "r", make_rows("m", 24, 0.5, error_rate=0.2, seed=4))
    report = build_report([run], formats="md,csv,svg", resamples=0)
    errors = report.tables["error_types"]
    assert errors["error"].tolist() == ["E1", "E2", "E3", "E4", "E5"]
    assert (errors["counted"] > 0).all()
    svg = (run / "figures" / "checks.svg").read_text()
    for label in ("E1 upstream", "E2 downstream", "E3 connectors", "E4 numeric", "E5 latent"):
        assert label in svg  # the five bars' labels (long ones wrap after these words)
    board = cobe.leaderboard(run, resamples=0).iloc[0]
    assert board["errors"] > 0 and board["accuracy_incl_errors"] < board["accuracy"]
    md = (run / "report.md").read_text()
    assert "errors as failures" in md and "Failure rate by error type (Fig. 6)" in md


def test_status_table_splits_out_cut_off_and_marker_less_replies(tmp_path):
    rows = make_rows("m", 5, 1.0)
    # cut off twice, and a marker-less reply as rows written before such replies were judged whole say it
    for row, code in zip(rows[:3], ("truncated", "truncated", "no_final_marker")):
        row |= {"status": "unscored", "passed": None, "unjudged": code, "verdicts": dict.fromkeys(row["verdicts"])}
    rows[3] |= {"no_marker": True}  # judged whole, and scored
    tables = build_tables(load_runs([write_run(tmp_path / "r", rows)]).frame, resamples=0)
    status = tables["status"].iloc[0]
    assert (status["unscored"], status["cut_off"], status["no_marker"], status["passed"]) == (3, 2, 2, 12)
    # the cut-off replies (A and B of the first scenario) fail once errors count as failures; the old
    # marker-less row (C) stays out, as an unscored row does
    board = tables["leaderboard"].iloc[0]
    assert board["accuracy"] == 100.0 and board["accuracy_incl_errors"] == pytest.approx((80 + 80 + 100) / 3)
