"""`cobe data validate` streams like loading does: its peak memory is flat in the file's length.

Issue 23, item 2: a 1,000,000-line (1 GB) file peaked at 5.3 GB RSS. Here the real CLI validates
files of 5,000 and 60,000 lines, each in a fresh process that reports its own peak RSS; twelve
times the lines may cost a few MB more, not the hundreds the whole-file reader took.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.run_data import scenario

# the CLI in a fresh process that writes its own peak RSS (KiB) to argv[1] as it ends: VmHWM, the high-water
# mark of this process's memory; ru_maxrss would also count the pytest worker it was forked from
_MEASURED = """
import resource, sys
from cobe.cli.main import main
try:
    main(sys.argv[2:])
except SystemExit as done:
    code = done.code
try:
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with open(sys.argv[1], "w") as out:
    out.write(f"{peak} {code}")
"""
GROWTH_KIB = 15 * 1024


def _dataset(path: Path, n: int, bad_every: int = 0) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for i in range(1, n + 1):
            record = scenario(i)
            if bad_every and i % bad_every == 0:
                record["domain"] = 7  # an error on this line, printed as it is found
            out.write(json.dumps(record) + "\n")
    return path


def _measured(tmp_path: Path, *args: str) -> tuple[int, int, str]:
    """(peak RSS in KiB, exit code, stdout) of `cobe ARGS` in a fresh process."""
    report = tmp_path / "rss.txt"
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, str(report), *args], capture_output=True, text=True, timeout=600
    )
    assert "Traceback" not in done.stderr, done.stderr
    peak, code = report.read_text().split()
    return int(peak), int(code), done.stdout


def test_peak_memory_does_not_grow_with_the_number_of_lines(tmp_path):
    small = _dataset(tmp_path / "small.jsonl", 5_000, bad_every=100)
    large = _dataset(tmp_path / "large.jsonl", 60_000, bad_every=100)
    small_kib, small_code, small_out = _measured(tmp_path, "data", "validate", str(small))
    large_kib, large_code, large_out = _measured(tmp_path, "data", "validate", str(large))
    assert (small_code, large_code) == (1, 1)
    assert small_out.endswith("50 errors, 0 warnings in 1 file / 4950 scenarios\n")
    assert large_out.endswith("600 errors, 0 warnings in 1 file / 59400 scenarios\n")
    assert len(large_out.splitlines()) == 602  # each problem printed, one line each; the shape line; the summary
    assert large_kib - small_kib < GROWTH_KIB, (small_kib, large_kib)


def test_the_json_report_streams_too_and_stays_one_document(tmp_path):
    large = _dataset(tmp_path / "large.jsonl", 30_000, bad_every=50)
    other = _dataset(tmp_path / "other.jsonl", 3)  # ids 1v0-3v0 again: repeated across files
    peak, code, out = _measured(tmp_path, "data", "validate", "--json", str(large), str(other))
    report = json.loads(out)
    assert code == 1
    assert (report["errors"], report["files"], report["scenarios"]) == (603, 2, 29_403)
    assert [p["message"] for p in report["problems"][-3:]] == [f"duplicate id (already in {large})"] * 3
    assert peak < 100 * 1024  # the whole-file reader took about 190 MB here; streamed, about 40
