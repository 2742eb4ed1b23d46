"""Peak memory of a run's own report as the run grows: N = 2,000 against N = 10,000 results.

Run: .venv/bin/python benchmarks/bench_report_memory.py [--small 2000] [--large 10000]

Each size is a synthetic run directory (tests/support/results.py rows, one model, three phrasings a
scenario); a fresh subprocess imports the report, notes its RSS (the floor: interpreter and libraries),
builds the run's own report (`refresh_run_report`'s formats) and notes its peak RSS. Printed: the floor,
the peak and what the report added at each size, and the ratios large/small of the peak and of the part
the report added. The target (issue 28): the whole process's peak at the large N within 1.15x of the small.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def measure(run_dir: Path) -> dict:
    """In this process: RSS after the imports, then the peak once the report is built."""
    from cobe.report.writer import RUN_REPORT_FORMATS, build_report

    floor = _rss_mb()
    build_report([run_dir], out=run_dir / "report", formats=RUN_REPORT_FORMATS)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"floor_mb": floor, "peak_mb": peak, "added_mb": peak - floor}


def write_run_dir(root: Path, n: int) -> Path:
    """A run directory of `n` synthetic results."""
    from support.results import make_rows, write_run

    rows = make_rows("bench/model", -(-n // 3), 0.6, run_id=f"bench-{n}", unscored_rate=0.02, error_rate=0.01)
    return write_run(root / f"run{n}", rows[:n])


def main() -> int:
    """Build both runs, measure each in its own process, print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=2000)
    parser.add_argument("--large", type=int, default=10000)
    parser.add_argument("--part", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part is not None:
        print(json.dumps(measure(args.part)))
        return 0
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (args.small, args.large):
            run_dir = write_run_dir(Path(tmp), n)
            done = subprocess.run(
                [sys.executable, __file__, "--part", str(run_dir)], check=True, capture_output=True, text=True
            )
            found[n] = json.loads(done.stdout.strip().splitlines()[-1])
            r = found[n]
            print(
                f"N = {n:>6}: floor {r['floor_mb']:6.1f} MB  peak {r['peak_mb']:6.1f} MB  report added {r['added_mb']:6.1f} MB"
            )
    small, large = found[args.small], found[args.large]
    print(f"peak {args.large}/{args.small}: {large['peak_mb'] / small['peak_mb']:.2f}x (target <= 1.15x)")
    print(f"added by the report {args.large}/{args.small}: {large['added_mb'] / max(small['added_mb'], 1e-9):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
