"""Time `build_report` over 6000 results (3 models × 2000) against the 10 s budget.

Run: .venv/bin/python benchmarks/bench_report.py [--resamples N]
Prints the total time, the time per stage, and the ratio to the budget; exits 1 over budget.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.results import make_rows, write_run  # noqa: E402

BUDGET_S = 10.0
MODELS = (("bench/baseline", 0.3), ("bench/middle", 0.55), ("bench/strong", 0.8))


def main() -> int:
    """Build the synthetic runs, time the report, print the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--results-per-model", type=int, default=2000)
    args = parser.parse_args()
    scenarios = -(-args.results_per_model // 3)  # three phrasings per scenario
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        runs = []
        for index, (model, rate) in enumerate(MODELS):
            rows = make_rows(model, scenarios, rate, run_id=f"bench-{index}", unscored_rate=0.02, error_rate=0.01)
            runs.append(write_run(root / f"run{index}", rows[: args.results_per_model]))
        total_rows = sum(1 for run in runs for _ in (run / "results.jsonl").open())

        start = time.perf_counter()
        from cobe.report import build_report  # import time is part of what a user waits for

        imported = time.perf_counter()
        report = build_report(runs, out=root / "report", resamples=args.resamples, seed=0)
        elapsed = time.perf_counter() - start
        html_mb = (root / "report" / "report.html").stat().st_size / 1e6

    print(f"rows: {total_rows} ({len(MODELS)} models), resamples: {args.resamples}, files written: {len(report.files)}")
    print(
        f"import: {imported - start:.2f} s, build_report: {elapsed - (imported - start):.2f} s, report.html {html_mb:.1f} MB"
    )
    print(f"total: {elapsed:.2f} s; ratio to the {BUDGET_S:.0f} s budget: {elapsed / BUDGET_S:.2f}")
    return 0 if elapsed < BUDGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
