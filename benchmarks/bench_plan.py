"""`cobe plan` at the edges of its ranges: each answer's time against the 2 s every plan must answer in, and
against the default plan's in the same run.

    python benchmarks/bench_plan.py             # each edge of tests/support/plan_edges.py, the median of 3
    python benchmarks/bench_plan.py --repeat 9

The plans run in this process, their modules already loaded (one default plan first), so each figure is the
plan's own work and not the start of a Python. The edges are those tests/reliability/test_plan_ranges.py checks
the answers of; before issue 23, item 1, some ran for minutes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

TARGET_S = 2.0
DEFAULT = ("--pass-rate", "0.5")


def seconds(args: tuple[str, ...], repeat: int) -> float:
    """The median wall time of `cobe plan ARGS` in-process."""
    from support.cli import run_cobe

    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run_cobe("plan", *args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    """Time the default plan, then every edge, and say which are over the target."""
    from support.plan_edges import EXTREMES, OUTSIDE, TENTH_OF_A_POINT

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per plan (the median is shown)")
    options = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    seconds(DEFAULT, 1)  # the plan's modules load once, outside every figure
    base = seconds(DEFAULT, options.repeat)
    print(f"default plan ({' '.join(DEFAULT)}): {base * 1000:.1f} ms")
    over = []
    for args in [edge for edge, _ in OUTSIDE] + [TENTH_OF_A_POINT] + EXTREMES:
        took = seconds(args, options.repeat)
        verdict = "OK" if took < TARGET_S else "OVER"
        print(f"{took * 1000:8.1f} ms  {took / base:6.1f}x the default  {verdict}  cobe plan {' '.join(args)}")
        if took >= TARGET_S:
            over.append(" ".join(args))
    print("every plan under 2 s" if not over else f"over 2 s: {'; '.join(over)}")


if __name__ == "__main__":
    main()
