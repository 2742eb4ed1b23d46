"""Full speed under a provider's rate limit: cobe against a server that answers 429 beyond 600 requests a minute.

    python benchmarks/bench_ratelimit.py               # a 3-minute run
    python benchmarks/bench_ratelimit.py --minutes 1   # the quick form

The fake OpenAI-compatible server (tests/support/openai_server.py) runs in its own process with
`--rpm-limit`: a token bucket refilled at limit / 60 a second, holding one second's worth; a request
beyond it answers 429 with Retry-After. Each reply waits --latency seconds, 429s included, as a hosted
API's would. cobe runs a workload sized to fill --minutes at the limit (1 generation + 3 judge calls
per sample) with --concurrency 64 and no --rpm of its own: it has to find the pace from the 429s.

Reported: the sustained rate (2xx answers per minute between the server's first and last one, on the
server's clock), the 429s, the calls that failed, and the accounting: every request the server saw is
a 2xx or a 429, every call cobe made was answered once, and every 429 cost exactly one retry.
Targets (issue 13): rate >= 95% of the limit, 0 failed calls, every call accounted.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_harness import SPEC, write_data  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="length of the workload at the limit")
    parser.add_argument("--limit", type=int, default=600, help="the server's requests per minute")
    parser.add_argument("--latency", type=float, default=1.0, help="seconds each server reply waits")
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()

    from cobe.run import EvalConfig, evaluate
    from support.openai_server import ServerClient

    samples = math.ceil(args.minutes * args.limit / 4)
    server = subprocess.Popen(
        [sys.executable, "-m", "support.openai_server", "--port", "0", "--unique", "--rpm-limit", str(args.limit)],
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONPATH": str(ROOT / "tests")},
    )
    try:
        assert server.stdout is not None
        client = ServerClient(f"http://127.0.0.1:{int(server.stdout.readline())}")
        client.control(delay_s=args.latency)
        os.environ["BENCH_BASE_URL"] = client.base_url
        print(
            f"{samples} samples = {4 * samples} calls against a {args.limit} rpm limit (about {args.minutes:g} min), "
            f"{args.concurrency} in flight at most, replies after {args.latency:g} s"
        )
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "data.jsonl"
            write_data(data, samples)
            start = time.perf_counter()
            summary = evaluate(
                EvalConfig(
                    data=str(data),
                    models=[SPEC],
                    judge=SPEC,
                    templates=["A"],
                    run_dir=Path(tmp) / "run",
                    concurrency=args.concurrency,
                )
            )
            wall = time.perf_counter() - start
        served = client.stats()
    finally:
        server.kill()
        server.wait()
    stats = summary.stats
    made = stats["respondent"]["calls_made"] + stats["judge"]["calls_made"]
    failed = stats["respondent"]["errors"] + stats["judge"]["errors"]
    retries = stats["retries"]
    ok, limited, requests = served["ok"], served["rate_limited"], served["requests"]
    span = (served["last_ok_s"] or 0.0) - (served["first_ok_s"] or 0.0)
    rate = (ok - 1) / span * 60 if span > 0 else float("nan")
    share = rate / args.limit
    print(f"cobe: {made} calls made, {failed} failed, {retries} retries, state {summary.state}, wall {wall:.1f} s")
    print(f"server: {requests} requests = {ok} answered 2xx + {limited} answered 429, over {span:.1f} s")
    print(
        f"sustained rate: {rate:.1f} per minute = {share:.1%} of the {args.limit} rpm limit (target >= 95%) "
        f"{'OK' if share >= 0.95 else 'UNDER'}"
    )
    accounted = requests == ok + limited and ok == made and limited == retries
    print(
        f"accounting: requests = 2xx + 429: {requests == ok + limited}; calls made = 2xx: {ok == made}; "
        f"429s = retries: {limited == retries} -> {'OK' if accounted else 'NOT ACCOUNTED'}"
    )
    print(f"failed calls: {failed} (target 0) {'OK' if failed == 0 else 'OVER'}")


if __name__ == "__main__":
    main()
