"""`cobe export --to inspect` never replaces a file cobe did not write, and a place no log can go is one line.

Issue 23, item 6: `export RUN mydata.json --to inspect` overwrote a user's JSON file; a .txt path, a
folder or a path under a file ended in tracebacks ("No recorder for location", FileExistsError).
"""

from __future__ import annotations

import pytest

from support.cli import assert_one_line_error, run_cobe
from support.run_data import write_dataset

pytest.importorskip("inspect_ai")


@pytest.fixture
def run_dir(tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 2)
    run = tmp_path / "run"
    args = ["eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--run-dir", str(run)]
    assert run_cobe(*args, "--no-report").returncode == 0
    return run


def export(run_dir, out):
    return run_cobe("export", str(run_dir), str(out), "--to", "inspect")


def test_a_file_cobe_did_not_write_is_never_replaced(run_dir, tmp_path):
    mine = tmp_path / "mydata.json"
    mine.write_text('{"my": "precious data"}')
    result = export(run_dir, mine)
    assert result.returncode == 2
    assert_one_line_error(result, str(mine), "not an inspect log cobe exported")
    assert mine.read_text() == '{"my": "precious data"}'


def test_an_inspect_log_cobe_exported_is_replaced(run_dir, tmp_path):
    log = tmp_path / "cobe.eval"
    assert export(run_dir, log).returncode == 0
    first = log.stat().st_mtime_ns
    again = export(run_dir, log)
    assert again.returncode == 0, again.stderr
    assert log.stat().st_mtime_ns >= first
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no partial file left


@pytest.mark.parametrize(
    ("place", "needle"),
    [
        ("log.txt", ".eval or .json"),
        ("folder.eval", "is a directory"),
        ("afile/log.eval", "is a regular file, not a directory"),
    ],
)
def test_a_place_no_log_can_go_is_one_line(run_dir, tmp_path, place, needle):
    (tmp_path / "folder.eval").mkdir()
    (tmp_path / "afile").write_text("a file, not a folder")
    result = export(run_dir, tmp_path / place)
    assert result.returncode == 2
    assert_one_line_error(result, needle)
    assert (tmp_path / "afile").read_text() == "a file, not a folder"
