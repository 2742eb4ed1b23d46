"""A report is made to be shared: report.html, report.md, its tables and figures take the user's umask."""

from __future__ import annotations

import os

import pytest

from cobe.report import build_report
from support.results import make_rows, write_run


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640)])
def test_every_report_file_is_written_as_the_umask_decides(tmp_path, umask, mode):
    run = write_run(tmp_path / "run", make_rows("m", 6, 0.5))
    old = os.umask(umask)
    try:
        report = build_report([run], out=tmp_path / "out", formats="md,html,csv,json,svg", resamples=0)
    finally:
        os.umask(old)
    names = {p.relative_to(tmp_path / "out").as_posix(): p.stat().st_mode & 0o777 for p in report.files}
    assert {"report.html", "report.md", "tables/leaderboard.csv", "figures/phrasing.svg"} <= set(names)
    assert set(names.values()) == {mode}, names
