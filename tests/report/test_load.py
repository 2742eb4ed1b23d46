"""Loading run directories into the report's one results table."""

from __future__ import annotations

import pandas as pd
import pytest

from cobe.core.errors import InputError
from cobe.report.load import load_runs, read_results
from cobe.score.accuracy import rows_frame
from support.results import make_rows, write_run


def test_the_table_gathered_column_by_column_equals_the_rows_read_whole(tmp_path):
    # load_runs keeps no row dicts; a field only some rows have (a panel's member verdicts) is NaN in the rest
    rows = make_rows("mock/a", 6, 0.5, unscored_rate=0.2, error_rate=0.1)
    rows[4]["member_verdicts"] = {"mock/j1": {"preserve": ["T", "F"]}}
    first = write_run(tmp_path / "a", rows)
    second = write_run(tmp_path / "b", make_rows("mock/b", 3, 0.7, run_id="run-2"))
    frame = load_runs([first, second]).frame
    expected = rows_frame(
        {**row, "run": row["run_id"], "source": str(path)} for path in (first, second) for row in read_results(path)
    )
    assert list(frame.columns[: len(expected.columns)]) == list(expected.columns)
    pd.testing.assert_frame_equal(frame[expected.columns], expected)
    assert frame["member_verdicts"].notna().sum() == 1


def test_an_empty_results_file_is_one_line(tmp_path):
    run = tmp_path / "empty"
    run.mkdir()
    (run / "results.jsonl").write_text("")
    with pytest.raises(InputError, match="no result rows"):
        load_runs([run])


def test_a_table_of_counts_loads_no_texts_and_counts_the_same(tmp_path):
    from cobe.report.load import TEXT_COLUMNS
    from cobe.report.tables import leaderboard

    run = write_run(tmp_path / "a", make_rows("mock/a", 9, 0.5, unscored_rate=0.2, error_rate=0.1))
    whole, counts = load_runs([run]).frame, load_runs([run], drop=TEXT_COLUMNS).frame
    assert not set(TEXT_COLUMNS) & set(counts.columns)
    pd.testing.assert_frame_equal(leaderboard(counts), leaderboard(whole))
