"""One writer per run directory: a second command stops at once, naming the first, and pays for nothing.

The first `cobe eval` runs in its own process (it is what gets killed) against the fake server,
which holds its requests unanswered; while it holds the run directory's lock every other command
that writes there exits 7. `cobe runs` shows it `running`; once SIGKILLed, `interrupted`, and
the same command then finishes the run, each call sent once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from reliability_helpers import cobe_at, eval_args, provider_env

from cobe.core.errors import RunDirBusy
from cobe.core.lock import LOCK_NAME, directory_lock, lock_holder
from support.cli import assert_one_line_error
from support.openai_server import ThreadedServer

CONCURRENCY = 2
CALLS = 9 + 27  # 3 scenarios × A-C: one respondent and three judge calls per item


def start_holder(server: ThreadedServer, args: list[str]) -> subprocess.Popen:
    """`cobe ARGS` in its own process, returned once it holds the lock and has requests waiting."""
    server.control(hold_after=0)
    env = os.environ | provider_env(server)
    code = "from cobe.cli.main import main; main()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        server.wait_for(lambda s: s.held == CONCURRENCY)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc


def listed_state(server: ThreadedServer, root: Path) -> dict:
    (entry,) = json.loads(cobe_at(server, "runs", str(root), "--json").stdout)["runs"]
    return entry


def test_a_second_command_on_a_locked_run_dir_exits_7_and_sends_nothing(fake, data_file, tmp_path):
    run_dir = tmp_path / "runs" / "one"
    args = eval_args(data_file, run_dir, "--concurrency", str(CONCURRENCY))
    proc = start_holder(fake, args)
    try:
        sent = fake.stats()["requests"]
        for second in (
            args,
            ["generate", *args[1:3], "--data", str(data_file), "--run-dir", str(run_dir)],
            ["judge", str(run_dir), "--judge", "mock/judge-pass"],
            ["report", str(run_dir)],
        ):
            result = cobe_at(fake, *second)
            assert result.returncode == RunDirBusy.exit_code, (second, result.stderr)
            assert_one_line_error(result, str(run_dir), f"pid {proc.pid}", "`eval`", "in use by")
        assert fake.stats()["requests"] == sent  # the refused commands paid for nothing
        entry = listed_state(fake, tmp_path / "runs")
        assert entry["state"] == "running" and entry["held_by"]["pid"] == proc.pid
        assert entry["held_by"]["command"] == "eval"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    # killed: the store still says running, but nobody holds the lock
    assert listed_state(fake, tmp_path / "runs")["state"] == "interrupted"
    fake.control(reset=True)
    done = cobe_at(fake, *args)
    assert done.returncode == 0, done.stderr
    assert fake.stats()["requests"] == CALLS  # nothing had finished, so each call is sent once now
    assert listed_state(fake, tmp_path / "runs")["state"] == "complete"
    assert not (run_dir / LOCK_NAME).exists()  # the holder removes the lock file as it lets go


def test_the_lock_is_reentrant_along_one_call_chain_only(tmp_path):
    with directory_lock(tmp_path, "outer") as path:
        holder = json.loads(path.read_text())
        assert holder["command"] == "outer" and holder["pid"] == os.getpid()
        with directory_lock(tmp_path, "inner"):  # the same chain: no deadlock, no second holder
            assert lock_holder(tmp_path)["command"] == "outer"
    assert lock_holder(tmp_path) is None and not path.exists()


def test_another_task_in_the_same_process_is_refused(tmp_path):
    import asyncio

    async def both() -> None:
        entered = asyncio.Event()
        release = asyncio.Event()

        async def first() -> None:
            with directory_lock(tmp_path, "first"):
                entered.set()
                await release.wait()

        async def second() -> None:
            await entered.wait()
            try:
                with pytest.raises(RunDirBusy, match="`first`"), directory_lock(tmp_path, "second"):
                    pass
            finally:
                release.set()

        await asyncio.gather(first(), second())

    asyncio.run(both())
