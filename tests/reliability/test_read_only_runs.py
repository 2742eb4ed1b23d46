"""`cobe runs` only reads: a healthy run on a read-only folder or mount is listed as it is, and a
listing leaves no -wal or -shm file in the run folders it reads.

Issue 23, item 14: the store was opened `mode=ro` only, which for a WAL database still makes a -wal
and a -shm file beside it: refused on a read-only mount ("unreadable"), left behind elsewhere.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from reliability_helpers import run_cobe_unprivileged

from support.cli import run_cobe
from support.run_data import write_dataset


def finished_run(root: Path, name: str = "run") -> Path:
    data = write_dataset(root / "data.jsonl", 2)
    run_dir = root / "runs" / name
    args = [
        "eval",
        "--model",
        "mock/echo",
        "--judge",
        "mock/judge-pass",
        "--data",
        str(data),
        "--run-dir",
        str(run_dir),
    ]
    assert run_cobe(*args, "--no-report").returncode == 0
    return run_dir


def listing(result) -> dict[str, dict]:
    assert result.returncode == 0, result.stderr
    return {Path(entry["run_dir"]).name: entry for entry in json.loads(result.stdout)["runs"]}


def files_of(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def killed_writer(run_dir: Path) -> None:
    """A process that committed a change and died without closing: its -wal and -shm stay, holding the commit."""
    code = (
        "import os, sqlite3, sys\n"
        "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "db.execute(\"UPDATE runs SET state = 'running'\")\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(run_dir / "cobe.sqlite")], check=True)
    assert (run_dir / "cobe.sqlite-wal").stat().st_size > 0


def test_listing_runs_leaves_their_folders_as_they_were(tmp_path):
    run_dir = finished_run(tmp_path)
    before = files_of(run_dir)
    assert not any(name.endswith(("-wal", "-shm")) for name in before)
    listed = listing(run_cobe("runs", str(tmp_path / "runs"), "--json"))
    assert listed["run"]["state"] == "complete" and listed["run"]["responses"] == 6
    assert files_of(run_dir) == before


def test_a_run_in_a_read_only_folder_is_listed_as_it_is(tmp_path):
    run_dir = finished_run(tmp_path)
    other = finished_run(tmp_path, "killed")
    killed_writer(other)
    folders = [run_dir, other, tmp_path / "runs"]
    for folder in folders:
        folder.chmod(0o555)
    try:
        listed = listing(run_cobe_unprivileged("runs", str(tmp_path / "runs"), "--json"))
    finally:
        for folder in folders:
            folder.chmod(0o755)
    assert listed["run"]["state"] == "complete" and listed["run"]["responses"] == 6
    # the killed writer's commit is read from its log: "running" with nobody holding the lock
    assert listed["killed"]["state"] == "interrupted"


def test_a_run_on_a_read_only_mount_is_listed_as_it_is(tmp_path):
    run_dir = finished_run(tmp_path)
    before = files_of(run_dir)
    mount = tmp_path / "mounted"
    mount.mkdir()
    bound = subprocess.run(["mount", "--bind", str(tmp_path / "runs"), str(mount)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {bound.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(mount)], check=True)
        listed = listing(run_cobe("runs", str(mount), "--json"))
    finally:  # a file still open there keeps the mount busy: detach it then, so no mount outlives the test
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "--lazy", str(mount)], check=True)
    assert listed["run"]["state"] == "complete" and listed["run"]["responses"] == 6
    assert files_of(run_dir) == before
