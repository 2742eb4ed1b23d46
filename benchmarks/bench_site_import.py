"""`cobe import FILE --from cobe-site` of a site file with many models: 10,000 against 100,000 models.

Run: .venv/bin/python benchmarks/bench_site_import.py [--small 10000] [--large 100000] [--examples 1]

Each size is a site file in JSON lines (our own story, one example per line, `model_outputs` holding every model's
answer and the site's verdict: correct, wrong, unknown in turn); a fresh subprocess imports it exactly as the
command does (`cobe.cli.main.main`, its printed lines to /dev/null) and reports its wall time and peak RSS. Printed:
per size the seconds, the seconds per 1,000 models and the peak; then the ratios large/small of the time per model
(1.0 is linear in the models) and of the peak. Issue 43, item 19: 100,000 models took 11 minutes and 3 GB; the
target is well under 300 s, linear, in bounded memory.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VERDICTS = ("correct", "wrong", "unknown")


def write_site_file(path: Path, models: int, examples: int) -> Path:
    """A site file of `examples` examples, each answered by `models` models."""
    with path.open("w", encoding="utf-8") as handle:
        for e in range(examples):
            core = 500 + e
            example = {
                "example_id": f"{core}v1",
                "coreset_id": core,
                "variation_id": 1,
                "query_idx": 2,
                "original": f"Miller {core} ground the wheat at dawn because the river ran high. The flour sold out.",
                "query": "Rewrite the original text, based on what would have happened instead had the river run low.",
                "gold_answer": "The river ran low, so the mill stood still and there was no flour to sell.",
                "should_not_change": [f"Miller {core} owned a mill."],
                "should_change": ["The flour sold out."],
                "model_outputs": {
                    f"model-{i}": {"response": f"answer {i}", "verdict": VERDICTS[(i + e) % 3]} for i in range(models)
                },
            }
            handle.write(json.dumps(example) + "\n")
    return path


def measure(source: Path, out: Path) -> dict[str, float]:
    """In this process: the import as the command runs it; its seconds and the process's peak RSS."""
    from cobe.cli.main import main

    start = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        sys.stdout = quiet
        try:
            main(["import", str(source), "--from", "cobe-site", "--out", str(out)])
        except SystemExit as done:
            if done.code:
                raise RuntimeError(f"the import ended with exit {done.code}") from None
        finally:
            sys.stdout = sys.__stdout__
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def run_size(root: Path, models: int, examples: int) -> dict[str, float]:
    source = write_site_file(root / f"site-{models}.jsonl", models, examples)
    command = [sys.executable, __file__, "--part", str(source), "--out", str(root / f"run-{models}")]
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    """Import both sizes, each in its own process, and print the figures and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=10_000, help="models in the baseline file")
    parser.add_argument("--large", type=int, default=100_000, help="models in the large file")
    parser.add_argument("--examples", type=int, default=1, help="examples each model answers")
    parser.add_argument("--part", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part is not None:
        print(json.dumps(measure(args.part, args.out)))
        return 0
    with tempfile.TemporaryDirectory() as folder:
        figures = {n: run_size(Path(folder), n, args.examples) for n in (args.small, args.large)}
    for n, f in figures.items():
        per = 1000 * f["seconds"] / n
        print(
            f"{n:>9,} models × {args.examples}: {f['seconds']:7.1f} s ({per:.2f} s per 1,000), peak {f['peak_mb']:,.0f} MB"
        )
    small, large = figures[args.small], figures[args.large]
    time_ratio = (large["seconds"] / args.large) / (small["seconds"] / args.small)
    print(f"time per model, large/small: {time_ratio:.2f}x (1.00 = linear in the models)")
    print(
        f"peak, large/small: {large['peak_mb'] / small['peak_mb']:.2f}x for {args.large / args.small:.0f}x the models"
    )
    print(f"large under 300 s: {'yes' if large['seconds'] < 300 else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
