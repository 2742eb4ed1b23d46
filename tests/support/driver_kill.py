"""SIGKILL a `cobe` command mid-run at a fixed request of the fake server, and count what its resume re-pays.

Shared by tests/reliability/test_driver_kill.py and benchmarks/bench_driver_kill.py. The command runs in a
session of its own, so whatever it started (a private Ray's GCS, raylet and workers) can be found and ended by
its process ids once the kill has been counted.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from support.openai_server import ThreadedServer
from support.store_reads import committed_calls

HUNG_S = 600  # reached only by a process that hangs
CLI = "import sys; from cobe.cli.main import main; main(sys.argv[1:])"


@dataclass(frozen=True)
class Kill:
    """What the server and the store held when a command was SIGKILLed."""

    at_death: int  # requests the server had received when the driver was reaped
    in_flight: int  # requests the server was answering as the kill was sent
    after: int  # requests once nothing the command started was left
    stored: int  # calls in the store after the kill
    unstored: int  # calls this command sent whose answers it did not store: what a resume re-pays


def stored_calls(run_dir: Path) -> int:
    """Calls committed in a run's store (0 where the store was never made)."""
    return committed_calls(run_dir)


def session_pids(session: int) -> list[int]:
    """The processes left of a killed command's session (its private Ray's, under the Ray executor)."""
    import psutil

    found = []
    for process in psutil.process_iter():
        try:
            if os.getsid(process.pid) == session:
                found.append(process.pid)
        except (OSError, psutil.Error):
            continue
    return found


def kill_mid_run(server: ThreadedServer, args: list[str], env: dict[str, str], at: int, run_dir: Path) -> Kill:
    """Run `cobe ARGS` in a session of its own and SIGKILL it once the server has had `at` requests; what the
    server and the store hold then, and once every worker it started is gone."""
    sent_before, stored_before = server.stats()["requests"], stored_calls(run_dir)
    driver = subprocess.Popen(
        [sys.executable, "-c", CLI, *args],
        env=os.environ | env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    seen = None
    try:
        seen = server.wait_for(lambda stats: stats.requests >= at, timeout=HUNG_S)
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=HUNG_S)
    stats = server.stats()
    import psutil

    left = [psutil.Process(pid) for pid in session_pids(driver.pid)]
    workers = [p for p in left if "CallWorker" in " ".join(_cmdline(p))]
    psutil.wait_procs(workers, timeout=60)  # a worker of a dead driver sends nothing more, then Ray ends it
    after = server.stats()["requests"]
    for pid in session_pids(driver.pid):  # the private Ray it started (its GCS, raylet), by their ids
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    stored = stored_calls(run_dir)
    in_flight = seen.in_flight if seen is not None else 0
    unstored = (stats["requests"] - sent_before) - (stored - stored_before)  # each call is sent once a command
    return Kill(stats["requests"], in_flight, after, stored, unstored)


def resume(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The same command again, to its end."""
    return subprocess.run([sys.executable, "-c", CLI, *args], env=os.environ | env, capture_output=True, text=True)


def sent_twice(server: ThreadedServer) -> int:
    """Request bodies the server received more than once: the calls a resume paid again."""
    return sum(times - 1 for times in server.app.stats.bodies.values() if times > 1)


def _cmdline(process: object) -> list[str]:
    try:
        return process.cmdline()  # type: ignore[attr-defined, no-any-return]
    except Exception:  # noqa: BLE001 - a process that ended meanwhile
        return []
