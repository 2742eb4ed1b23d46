"""SIGKILL mid-run, re-run the same command: every item finishes exactly once, nothing finished is redone."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from cobe.run.store import STORE_NAME
from support.openai_server import ServerClient

TESTS = Path(__file__).resolve().parents[1]
SPEC = "openai-api/fake/fake-model"
CONCURRENCY = 4


def start_server() -> tuple[subprocess.Popen, ServerClient]:
    env = os.environ | {"PYTHONPATH": str(TESTS)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "support.openai_server", "--port", "0"], stdout=subprocess.PIPE, text=True, env=env
    )
    port = int(proc.stdout.readline())
    return proc, ServerClient(f"http://127.0.0.1:{port}")


def test_sigkill_then_rerun_finishes_each_item_once(tmp_path, monkeypatch):
    from support.run_data import write_dataset

    data = write_dataset(tmp_path / "data.jsonl", 20)  # 60 items: 60 respondent + 180 judge calls
    server_proc, server = start_server()
    try:
        server.control(delay_s=0.03)
        env = os.environ | {"FAKE_BASE_URL": server.base_url}
        cmd = [
            sys.executable,
            "-c",
            "from cobe.cli.main import main; main()",
            "eval",
            "--model",
            SPEC,
            "--judge",
            SPEC,
            "--data",
            str(data),
            "--concurrency",
            str(CONCURRENCY),
            "--run-dir",
            str(tmp_path / "run"),
        ]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while server.stats()["requests"] < 60 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed_at = server.stats()["requests"]
        assert 60 <= killed_at < 240, "the run should have been killed midway"
        db = sqlite3.connect(tmp_path / "run" / STORE_NAME)
        assert db.execute("SELECT state FROM runs").fetchone()[0] == "running"  # killed: no chance to mark it
        finished_before = db.execute("SELECT count(*) FROM calls WHERE error IS NULL").fetchone()[0]
        db.close()
        assert finished_before > 0

        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "complete" in done.stdout
        rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
        keys = [(r["model"], r["scenario_id"], r["template"]) for r in rows]
        assert len(keys) == 60 and len(set(keys)) == 60 and {r["status"] for r in rows} == {"passed"}
        db = sqlite3.connect(tmp_path / "run" / STORE_NAME)
        assert db.execute("SELECT count(*) FROM responses").fetchone()[0] == 60
        assert db.execute("SELECT count(*) FROM verdicts").fetchone()[0] == 180
        assert db.execute("SELECT count(*) FROM calls").fetchone()[0] == 240
        assert db.execute("SELECT state FROM runs").fetchone()[0] == "complete"
        # only calls in flight at the kill (at most one per concurrency slot) were asked twice
        assert server.stats()["requests"] <= 240 + CONCURRENCY
    finally:
        server_proc.kill()
        server_proc.wait()


def test_ctrl_c_marks_interrupted_and_says_how_to_resume(tmp_path):
    from support.run_data import write_dataset

    data = write_dataset(tmp_path / "data.jsonl", 20)
    server_proc, server = start_server()
    try:
        server.control(delay_s=0.03)
        env = os.environ | {"FAKE_BASE_URL": server.base_url}
        cmd = [
            sys.executable,
            "-c",
            "from cobe.cli.main import main; main()",
            "eval",
            "--model",
            SPEC,
            "--judge",
            SPEC,
            "--data",
            str(data),
            "--concurrency",
            str(CONCURRENCY),
            "--run-dir",
            str(tmp_path / "run"),
        ]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while server.stats()["requests"] < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and "Traceback" not in err
        assert "Run the same command again to resume" in err
        db = sqlite3.connect(tmp_path / "run" / STORE_NAME)
        assert db.execute("SELECT state FROM runs").fetchone()[0] == "interrupted"
        assert (tmp_path / "run" / "results.jsonl").is_file()
    finally:
        server_proc.kill()
        server_proc.wait()
