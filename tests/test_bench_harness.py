"""benchmarks/bench_harness.py runs end to end on a few samples: its four ratios, the repeat, and where the whole
command's CPU goes, phase by phase, beside the replay floor."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_harness.py"
PHASES = (
    "plan: data, models, run dir",
    "calls (items: prompts, cache, calls, store)",
    "  of which the store (SQLite reads and writes)",
    "exports: results.jsonl, summary.json, report.md",
    "report.html, tables, figures",
    "end-of-run table",
)


def _seconds(out: str, label: str) -> float:
    found = re.search(rf"^ +{re.escape(label)} +(\d+\.\d\d) s", out, flags=re.M)
    assert found, f"no line for {label!r} in:\n{out}"
    return float(found.group(1))


def test_the_bench_prints_its_ratios_and_where_the_command_spends_its_cpu(tmp_path):
    done = subprocess.run(
        [sys.executable, str(BENCH), "--samples", "12", "--pairs", "1", "--scale", "0"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "N = 12 samples = 12 respondent + 36 judge calls" in out
    for part in ("bare", "replay", "cobe", "cli"):
        assert re.search(rf"^  round 1 {part} +48 calls, 0 failed", out, flags=re.M), out
    ratios = re.findall(r"^CPU per call, .*: (\d+\.\d\d)x \(target <= 1\.2x\) (OK|OVER)$", out, flags=re.M)
    assert len(ratios) == 4
    assert re.search(r"^repeat of the finished run: 0 calls", out, flags=re.M)

    assert "where the whole command's CPU goes (one extra `cobe eval` at 48 calls, phases wrapped):" in out
    whole = _seconds(out, "whole process")
    assert 0 < _seconds(out, "imports, all of them (-X importtime, wall)") < whole
    phases = {label: _seconds(out, label.strip()) for label in PHASES}
    # At 48 calls the store's share rounds to a hundredth of a second or less: its per-call figure shows it ran.
    assert all(seconds > 0 for label, seconds in phases.items() if label != PHASES[2]), phases
    store_us = re.search(r"^ +of which the store .* s += +(\d+) us/call$", out, flags=re.M)
    assert store_us and int(store_us.group(1)) > 0, out
    assert phases[PHASES[2]] < phases[PHASES[1]]  # the store's share lies inside the calls
    assert sum(v for k, v in phases.items() if k != PHASES[2]) < whole
    assert _seconds(out, "the replay floor, whole process (median round)") > 0
