"""What a judge audit costs in calls and in time, beside the self-test it extends, against the local fake server.

    python benchmarks/bench_audit.py                    # --n 50 --repeats 3 on builtin:starter
    python benchmarks/bench_audit.py --n 10 --repeats 2

Both run in one process against one fake server (the judge answers T or F by a hash of its request), each in a
fresh run directory: first `judges check` on the same scenarios (three probes, the checks they must pass or
fail, one ask each), then the audit (every probe, three checks, K asks each). Printed: the audit's calls as
`--dry-run` counts them, the calls it made, its wall time, and both as ratios to the self-test's, with the
seconds per call of each. A second audit in the same directory shows what a resume pays: nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the fake server lives with the tests

from cobe.judge.audit import estimate_audit, plan_audit, run_audit  # noqa: E402
from cobe.judge.selftest import judge_check  # noqa: E402
from support.openai_server import ThreadedServer  # noqa: E402

JUDGE = "openai-api/benchfake/fake-model"


def main() -> None:
    """Time the self-test, then the audit, then the audit again."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50, help="scenarios (default 50)")
    parser.add_argument("--repeats", type=int, default=3, help="asks per check (default 3)")
    parser.add_argument("--data", default="builtin:starter")
    args = parser.parse_args()
    server = ThreadedServer(verdict="hash")
    os.environ["BENCHFAKE_BASE_URL"] = server.base_url
    try:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            check = judge_check(JUDGE, data=args.data, n=args.n, run_dir=Path(tmp) / "check")
            check_s = time.perf_counter() - started
            plan = plan_audit(JUDGE, data=args.data, n=args.n, repeats=args.repeats)
            ahead = estimate_audit(plan, Path(tmp) / "audit")
            started = time.perf_counter()
            audit = run_audit(plan, Path(tmp) / "audit", preflight=False)
            audit_s = time.perf_counter() - started
            started = time.perf_counter()
            again = run_audit(plan, Path(tmp) / "audit", preflight=False)
            again_s = time.perf_counter() - started
    finally:
        server.close()
    asked = ahead.calls + ahead.same
    print(
        f"data {args.data}, --n {args.n}, --repeats {args.repeats}: {len(plan.cases)} probes of {len(plan.scenarios)} scenarios"
    )
    print(
        f"  audit questions (probe x check x repeat): {asked}; calls to make: {ahead.calls} ({ahead.same} the same call as another)"
    )
    print(
        f"  self-test: {check.calls_made} calls, {check_s:.2f} s ({check_s / max(check.calls_made, 1) * 1000:.1f} ms a call)"
    )
    print(
        f"  audit:     {audit.calls_made} calls, {audit_s:.2f} s ({audit_s / max(audit.calls_made, 1) * 1000:.1f} ms a call)"
    )
    print(
        f"  ratio audit / self-test: {audit.calls_made / max(check.calls_made, 1):.1f}x calls, {audit_s / check_s:.1f}x time"
    )
    print(
        f"  audit again (a resume): {again.calls_made} calls made, {again.calls_cached} from the store, {again_s:.2f} s"
    )


if __name__ == "__main__":
    main()
