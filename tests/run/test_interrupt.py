"""SIGKILL mid-run, re-run the same command: every item finishes exactly once, nothing finished is redone."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from cobe.store.store import STORE_NAME
from support.cli import run_cobe
from support.openai_server import ThreadedServer
from support.run_data import write_dataset

SPEC = "openai-api/fake/fake-model"
# the tests wait on events (the server's counts, the process ending); this bound is only ever reached by
# a process that hangs, so a busy machine never makes a healthy run fail
HUNG_S = 600
CONCURRENCY = 4
SCENARIOS = 8
ITEMS, CALLS = 24, 96  # 8 scenarios × templates A–C; one respondent and three judge calls each
PREFLIGHT = 2  # the run's first calls: one with the respondent's settings, one with the judge's


def eval_args(data: Path, run_dir: Path) -> list[str]:
    return [
        "eval",
        *("--model", SPEC, "--judge", SPEC, "--data", str(data)),
        *("--concurrency", str(CONCURRENCY), "--run-dir", str(run_dir), "--no-report"),
    ]


def start_eval(server: ThreadedServer, args: list[str], answered: int, **popen: object) -> subprocess.Popen:
    """`cobe eval` in its own process (it is what gets killed), stopped once `answered` calls were answered.

    Every later call is held unanswered; when all concurrency slots hold one, each call answered
    before has been stored (a slot sends its next request only after storing the last answer).
    """
    server.control(hold_after=answered)
    env = os.environ | {"FAKE_BASE_URL": server.base_url}
    proc = subprocess.Popen([sys.executable, "-c", "from cobe.cli.main import main; main()", *args], env=env, **popen)
    try:
        server.wait_for(lambda s: s.held == CONCURRENCY, timeout=HUNG_S)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc


def test_sigkill_then_rerun_finishes_each_item_once(tmp_path, openai_server):
    data = write_dataset(tmp_path / "data.jsonl", SCENARIOS)
    run_dir = tmp_path / "run"
    args = eval_args(data, run_dir)
    answered = 30  # of 98 calls
    proc = start_eval(openai_server, args, answered, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=HUNG_S)
    db = sqlite3.connect(run_dir / STORE_NAME)
    assert db.execute("SELECT state FROM runs").fetchone()[0] == "running"  # killed: no chance to mark it
    assert db.execute("SELECT count(*) FROM calls WHERE error IS NULL").fetchone()[0] == answered
    db.close()

    openai_server.control(hold_after=None)
    before = openai_server.stats()["requests"]
    done = run_cobe(*args, env={"FAKE_BASE_URL": openai_server.base_url})
    assert done.returncode == 0, done.stderr
    assert "complete" in done.stdout
    # nothing finished before the kill was asked again; the calls in flight at the kill were
    assert openai_server.stats()["requests"] - before == PREFLIGHT + CALLS - answered
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    keys = [(r["model"], r["scenario_id"], r["template"]) for r in rows]
    assert len(keys) == ITEMS and len(set(keys)) == ITEMS and {r["status"] for r in rows} == {"passed"}
    db = sqlite3.connect(run_dir / STORE_NAME)
    assert db.execute("SELECT count(*) FROM responses").fetchone()[0] == ITEMS
    assert db.execute("SELECT count(*) FROM verdicts").fetchone()[0] == CALLS - ITEMS
    assert db.execute("SELECT count(*) FROM calls").fetchone()[0] == PREFLIGHT + CALLS
    assert db.execute("SELECT state FROM runs").fetchone()[0] == "complete"
    db.close()


def test_ctrl_c_marks_interrupted_and_says_how_to_resume(tmp_path, openai_server):
    data = write_dataset(tmp_path / "data.jsonl", SCENARIOS)
    run_dir = tmp_path / "run"
    answered = 16  # of 98 calls
    proc = start_eval(
        openai_server, eval_args(data, run_dir), answered, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=HUNG_S)
    assert proc.returncode == 130 and "Traceback" not in err
    assert "Run the same command again to resume" in err
    db = sqlite3.connect(run_dir / STORE_NAME)
    assert db.execute("SELECT state FROM runs").fetchone()[0] == "interrupted"
    assert db.execute("SELECT count(*) FROM calls WHERE error IS NULL").fetchone()[0] == answered
    db.close()
    assert (run_dir / "results.jsonl").is_file()
