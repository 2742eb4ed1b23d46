"""The Python API mirrors the CLI: a dataset in, an evaluation run, DataFrames out."""

from __future__ import annotations

import subprocess
import sys

import cobe


def test_import_cobe_loads_no_sdk_and_no_pandas():
    # a None entry in sys.modules blocks an import rather than recording one
    names = "('pandas', 'openai', 'anthropic', 'llama_cpp')"
    code = f"import sys, cobe; print(any(sys.modules.get(m) is not None for m in {names}))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_every_exported_name_resolves():
    for name in cobe.__all__:
        assert getattr(cobe, name) is not None


def test_run_eval_then_tables_as_dataframes(tmp_path):
    data = cobe.load_dataset("builtin:starter")
    assert len(data) >= 60
    summary = cobe.run_eval("baseline/illustrative", judge="mock/judge-pass", limit=2, run_dir=tmp_path / "run")
    rows = cobe.results(summary.run_dir)
    assert len(rows) == 6 and set(rows["status"]) == {"passed"}
    board = cobe.leaderboard(summary.run_dir, resamples=0)
    assert board.iloc[0]["accuracy"] == 100.0


def test_unscored_rows_are_missing_not_failed_in_results(tmp_path):
    from support.results import make_rows, write_run

    rows = make_rows("m", 60, 0.5, unscored_rate=0.2, error_rate=0.1)
    frame = cobe.results(write_run(tmp_path / "run", rows))
    unscored = frame["status"].isin(["unscored", "error"])
    assert unscored.any() and frame.loc[unscored, "passed"].isna().all() and str(frame["passed"].dtype) == "boolean"
    scored = frame[~unscored]
    # the mean of the column is passes / scored: cobe's own pooled figure, not passes / every row
    assert frame["passed"].mean() == (scored["status"] == "passed").sum() / len(scored)
    assert frame.groupby("model")["passed"].mean().iloc[0] == frame["passed"].mean()


def test_results_has_one_column_for_each_thing(tmp_path):
    """`passed` and `run_id`, as results.jsonl names them; no second spelling of either beside them."""
    from support.results import make_rows, write_run

    frame = cobe.results(write_run(tmp_path / "run", make_rows("m", 6, 0.5)))
    assert {"passed", "run_id", "source", "scored", "label"} <= set(frame.columns)
    assert "pass" not in frame.columns and "run" not in frame.columns
    assert "`passed`" in cobe.results.__doc__ and "`run_id`" in cobe.results.__doc__
