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
    # every figure is there; how they compare is the machine's (a busy one ran the imports' wall time past the
    # whole process's CPU time): the test checks the arithmetic the bench does on them, never a timing
    for label in ("whole process", "imports, all of them (-X importtime, wall)", *(p.strip() for p in PHASES)):
        _seconds(out, label)
    _seconds(out, "the replay floor, whole process (median round)")
    for label in (PHASES[1], PHASES[2]):
        per_call = re.search(rf"^ +{re.escape(label.strip())} +(\d+\.\d\d) s += +(\d+) us/call$", out, flags=re.M)
        assert per_call, out
        shown_s, us = float(per_call.group(1)), int(per_call.group(2))
        assert abs(us - shown_s / 48 * 1e6) <= 0.005 / 48 * 1e6 + 0.5, per_call.group(0)  # seconds / calls
    rounds = dict(re.findall(r"^  round 1 (\w+) .* = +(\d+) us/call,", out, flags=re.M))
    cobe_bare = re.search(r"^  round 1 cobe .*   cobe/bare (\d+\.\d\d)x$", out, flags=re.M)
    assert cobe_bare and set(rounds) == {"bare", "replay", "cobe", "cli"}, out
    # the ratio of the printed per-call figures (each rounded to a microsecond), and with one pair its median
    ratio, cobe_us, bare_us = float(cobe_bare.group(1)), int(rounds["cobe"]), int(rounds["bare"])
    exact = cobe_us / bare_us
    assert abs(ratio - exact) <= 0.005 + exact * (0.5 / cobe_us + 0.5 / bare_us), (ratio, cobe_us, bare_us)
    assert f"evaluate() in-process / bare loop (median of 1): {cobe_bare.group(1)}x" in out
