"""What a driver SIGKILLed mid-run costs its resume: calls paid twice, at fixed requests of the fake server.

    python benchmarks/bench_driver_kill.py                       # both executors, the kill points below
    python benchmarks/bench_driver_kill.py --executor ray --at 65 --at 118,177

The run of issue 43 (item 9): `cobe eval --model openai-api/fake/fake-model --judge openai-api/fake/judge-model`
on 20 scenarios (60 respondent calls, 180 judge calls), the fake server answering each request after 20 ms,
32 connections per model (the provider's default). The command is SIGKILLed once the server has received the
kill point's request (`118,177`: killed at 118, run again and killed at 177, then run to its end), then run
again to its end. For each kill the lines give what the server had received and had not yet answered (in
flight) at the kill and what was in the store; the last line the requests the server received twice (paid
again) against the calls each killed command had sent and not stored. These are counts, not timings, but
where the kill lands depends on the machine's speed: the figures vary a little from run to run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

CALLS = 240  # 60 respondent calls and 180 judge calls
DELAY_S = 0.02
DEFAULT_POINTS = ["65", "167", "200", "240", "118,177"]


def measure(work: Path, executor: str, points: list[int]) -> None:
    """Kill the run at each point in turn, then resume it to its end; print what each kill cost."""
    from support.driver_kill import kill_mid_run, resume, sent_twice
    from support.openai_server import ThreadedServer
    from support.ray_local import QUIET, private_temp, release_temp
    from support.run_data import write_dataset

    data = write_dataset(work / "data.jsonl", CALLS // 12)
    run_dir = work / "run"
    args = ["eval", "--model", "openai-api/fake/fake-model", "--judge", "openai-api/fake/judge-model"]
    args += ["--data", str(data), "--run-dir", str(run_dir), "--no-preflight", "--no-report", "-q"]
    args += ["--max-retries", "0", "--executor", executor]
    server = ThreadedServer(delay_s=DELAY_S)
    temp = private_temp() if executor == "ray" else None
    env = {"FAKE_BASE_URL": server.base_url, "FAKE_API_KEY": "sk-bench", **QUIET}
    if temp is not None:
        env["RAY_TMPDIR"] = temp
    try:
        out = []
        for at in points:
            kill = kill_mid_run(server, args, env, at, run_dir)
            out.append(kill.unstored)
            print(
                f"{executor:5} killed at request {at}: the server had {kill.at_death} ({kill.in_flight} in flight), "
                f"{kill.after - kill.at_death} after the kill; {kill.stored} calls stored, "
                f"{kill.unstored} sent and not stored"
            )
        done = resume(args, env)
        if done.returncode != 0:
            raise SystemExit(f"the resume failed: {done.stderr.strip()[-500:]}")
        total = server.stats()["requests"]
        print(
            f"{executor:5} kills at {','.join(map(str, points))}: re-paid {sent_twice(server)} "
            f"(requests {total} for {CALLS} calls); sent and not stored at the kills: {' + '.join(map(str, out))}"
        )
    finally:
        server.close()
        if temp is not None:
            release_temp(temp)


def main() -> None:
    """Parse the kill points and measure each under each executor asked for."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executor", action="append", choices=["local", "ray"], help="default: both")
    parser.add_argument("--at", action="append", help="a kill point, or several joined by commas (killed in turn)")
    options = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for executor in options.executor or ["local", "ray"]:
        for point in options.at or DEFAULT_POINTS:
            with tempfile.TemporaryDirectory(prefix="cobe-kill-") as work:
                measure(Path(work), executor, [int(at) for at in point.split(",")])


if __name__ == "__main__":
    main()
