"""The Ray executor: the embedded model over 1 and 2 single-threaded actors, Ray's own overhead per call
against the local executor on the mock model, and how fast the driver commits answers to SQLite.

    python benchmarks/bench_ray.py            # 16 embedded-model generations per pool size, 2,000 and 10,000 mock calls
    python benchmarks/bench_ray.py --quick    # 4 generations, 500 and 2,500 mock calls

One private Ray instance with two CPUs serves every part (its start-up is not counted); each part runs
in a fresh run directory, so every call is made. Parts:

1. speedup: `cobe generate --model local/gemma-3-270m` on the same scenarios with COBE_RAY_ACTORS=1, then 2
   (COBE_RAY_CPUS=1: one llama.cpp thread per actor, COBE_RAY_BATCH=1), wall time of the command; the
   ratio is the 1→2 actor speedup (target >= 1.7x on two idle cores: the load average is printed, since
   other users of the machine take cores from it).
2. overhead: `cobe generate --model mock/echo` (no work per call) under the local executor and under Ray,
   each at N and 5N calls (the median of 3 commands each): the extra 4N calls' wall time per call, Ray's over the local executor's, is
   what Ray adds to each call (rows, transfer, a batch's commit); the rest is Ray's start-up per command.
3. commits: the driver's store writes of a call's row, one commit each (the local executor) and in
   batches of 64 in one transaction each (`Store.batch`, as the Ray executor commits what comes back).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def load() -> str:
    """The 1/5/15-minute load averages, as `uptime` shows them."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def generate_s(
    work: Path, name: str, model: str, limit: int, executor: str, data: str = "builtin:starter", **env: str
) -> tuple[float, int]:
    """Wall seconds of one `generate` in a fresh run directory, and the calls it made."""
    from cobe.run.config import EvalConfig
    from cobe.run.engine import generate

    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        start = time.perf_counter()
        summary = generate(
            EvalConfig(data=data, models=[model], limit=limit, templates=["A"], run_dir=work / name, executor=executor)
        )
        wall = time.perf_counter() - start
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert summary.state == "complete", summary.state
    return wall, int(summary.stats["respondent"]["calls_made"])


def speedup(work: Path, calls: int) -> None:
    """Embedded model, 1 vs 2 single-threaded actors."""
    common = {"COBE_RAY_CPUS": "1", "COBE_RAY_BATCH": "1"}
    print(f"load average before: {load()}")
    one, n = generate_s(work, "one", "local/gemma-3-270m", calls, "ray", COBE_RAY_ACTORS="1", **common)
    two, _ = generate_s(work, "two", "local/gemma-3-270m", calls, "ray", COBE_RAY_ACTORS="2", **common)
    print(f"embedded model, {n} generations: 1 actor {one:.1f} s, 2 actors {two:.1f} s")
    print(f"speedup 1 -> 2 actors: {one / two:.2f}x (target >= 1.7x); load average after: {load()}")


def overhead(work: Path, items: int, repeats: int = 3) -> None:
    """Mock model: local executor vs Ray at N and 5N calls, each the median of `repeats` commands; the
    difference is the cost of 4N more calls, so each side's start-up (Ray's actors and its one wave), which
    varies by a second or so from one command to the next, drops out of the per-call figure."""
    from support.run_data import write_dataset

    sizes = (items, 5 * items)
    data = str(write_dataset(work / "mock.jsonl", sizes[1]))
    medians: dict[str, list[float]] = {"local": [], "ray": []}
    for executor, walls in medians.items():
        for n in sizes:
            runs = []
            for r in range(repeats):
                wall, made = generate_s(work, f"{executor}-{n}-{r}", "mock/echo", n, executor, data)
                assert made == n
                runs.append(wall)
            walls.append(statistics.median(runs))
        print(
            f"  {executor:<5} median wall of {repeats}: {sizes[0]} calls {walls[0]:.2f} s, {sizes[1]} calls {walls[1]:.2f} s"
        )
    more = sizes[1] - sizes[0]
    local = (medians["local"][1] - medians["local"][0]) / more * 1e3
    ray_ms = (medians["ray"][1] - medians["ray"][0]) / more * 1e3
    fixed = medians["ray"][0] - ray_ms * sizes[0] / 1e3
    print(f"mock model, {more} more calls: local {local:.3f} ms/call, ray {ray_ms:.3f} ms/call")
    if local <= 0 or ray_ms <= 0:
        print("ray / local per call: not measurable (start-up noise larger than the calls' cost); run without --quick")
        return
    print(f"ray / local per call: {ray_ms / local:.1f}x; Ray's start-up and wave: {fixed:.1f} s a command")


def commits(work: Path, n: int, batch: int = 64) -> None:
    """calls/s of the driver's store writes: one commit per call, and one per batch."""
    from cobe.store.store import Store, now

    def row(i: int, tag: str) -> dict[str, object]:
        return {
            "key": f"{tag}-{i:08d}",
            "role": "judge",
            "spec": "bench/model",
            "request": '{"messages": [{"role": "user", "content": "' + "x" * 1500 + '"}]}',
            "response": "T",
            "finish_reason": "stop",
            "input_tokens": 600,
            "output_tokens": 1,
            "latency_s": 0.1,
            "error": None,
            "attempts": 1,
            "first_token_logprobs": None,
            "cost_usd": None,
            "created": now(),
        }

    store = Store(work / "commits" / "cobe.sqlite")
    start = time.perf_counter()
    for i in range(n):
        store.put_call(row(i, "one"))
    single = n / (time.perf_counter() - start)
    start = time.perf_counter()
    for first in range(0, n, batch):
        with store.batch():
            for i in range(first, min(n, first + batch)):
                store.put_call(row(i, "batch"))
    batched = n / (time.perf_counter() - start)
    store.close()
    print(f"store commits: {single:,.0f} calls/s one commit each, {batched:,.0f} calls/s in batches of {batch}")


def main() -> None:
    """Run the three parts on one private Ray instance."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls: a smoke test of the benchmark")
    args = parser.parse_args()
    from support.ray_local import start_ray

    ray, temp = start_ray(num_cpus=2)
    work = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    try:
        commits(work, 5_000 if args.quick else 20_000)
        overhead(work, 500 if args.quick else 2_000)
        speedup(work, 4 if args.quick else 16)
    finally:
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
