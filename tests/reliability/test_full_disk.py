"""A full disk: one line, exit 1, every answered call kept, and a resume after space is freed pays nothing twice.

Issue 23, item 3: with 0 bytes free the lock raised `OSError: [Errno 28]` as a traceback; a disk filling
mid-run raised `database or disk is full` from the store, and the resume paid 57 calls again (calls
answered while the run fell apart were never stored, and workers kept sending after the first failed
write). Here a small tmpfs is really filled (where this machine lets the test mount one), and where it
does not, the store's connection says "no space" until the run gives up its reserve.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from reliability_helpers import KEY, cobe_at, eval_args

from cobe.core.reserve import RESERVE_NAME
from support.cli import assert_one_line_error, run_cobe
from support.run_data import write_dataset
from support.store_reads import stored_count

NO_SPACE = "no space left on the device"
_CLI = "import sys; from cobe.cli.main import main; main(sys.argv[1:])"


@contextmanager
def mounted_tmpfs(disk: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` mounted at `disk` (made here), unmounted afterwards; skipped where mounting is not allowed."""
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield disk
    finally:
        if subprocess.run(["umount", str(disk)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "--lazy", str(disk)], check=True)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MB tmpfs of the test's own."""
    with mounted_tmpfs(tmp_path / "disk", "16m") as disk:
        yield disk


def fill(disk: Path) -> Path:
    """Fill `disk` to its last byte with a file; returns it (delete it to free the space).

    It writes no more than the room free when it starts and stops at the first "no space": a run writing to
    the disk meanwhile gives up its reserve once the disk is full, and a filler that went on writing would
    take that room too (under load it did, and an answered call found no room to be stored).
    """
    filler = disk / "filler"
    stat = os.statvfs(disk)
    budget = stat.f_bavail * stat.f_frsize  # whole blocks: writing exactly this leaves 0 bytes free
    with open(filler, "wb", buffering=0) as out:
        try:
            while budget > 0:
                budget -= out.write(b"\1" * min(65536, budget))
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


def answered_calls(run_dir: Path) -> int:
    db = sqlite3.connect(run_dir / "cobe.sqlite")
    try:
        return int(db.execute("SELECT count(*) FROM calls WHERE error IS NULL").fetchone()[0])
    finally:
        db.close()


def test_a_disk_filling_mid_run_stops_in_one_line_and_the_resume_pays_nothing_twice(fake, tmp_path, small_disk):
    data = write_dataset(tmp_path / "data.jsonl", 40)  # 120 respondent + 360 judge calls
    run_dir = small_disk / "run"
    args = [sys.executable, "-c", _CLI, *eval_args(data, run_dir, "--concurrency", "16", "--max-retries", "0")]
    env = os.environ | {"FAKE_BASE_URL": fake.base_url, "FAKE_API_KEY": KEY}
    fake.control(delay_s=0.005)
    cobe = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        fake.wait_for(lambda stats: stats.requests >= 60, timeout=120)
        filler = fill(small_disk)
        out, err = cobe.communicate(timeout=300)
    finally:
        cobe.kill()
    assert cobe.returncode == 1, err
    assert "Traceback" not in err and "never awaited" not in err and "never retrieved" not in err
    (line,) = [line for line in err.strip().splitlines() if not line.startswith("progress: ")]
    assert line.startswith(f"error: {run_dir}: {NO_SPACE}") and "run the same command again" in line
    stopped = fake.stats()
    assert stopped["requests"] < 480  # it stopped sending
    # every call the server answered is in the store, though the disk filled while some were in flight
    assert answered_calls(run_dir) == len(stopped["bodies"]) == stopped["requests"]
    assert not (run_dir / RESERVE_NAME).exists()

    filler.unlink()
    resumed = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    total = fake.stats()
    assert total["requests"] == len(total["bodies"]) == 480  # 0 calls paid twice


# ---- issue 30, item 6: a disk with no room for the whole reserve ---------------------------------------------
@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs of the test's own (grown later with `grow`)."""
    with mounted_tmpfs(tmp_path / "tiny", "2m") as disk:
        yield disk


def leave_free(disk: Path, room: int) -> Path:
    """Fill `disk` until `room` bytes are left; returns the filler (delete it to free the space)."""
    stat = os.statvfs(disk)
    filler = disk / "filler"
    filler.write_bytes(b"\1" * (stat.f_bavail * stat.f_frsize - room))
    return filler


@pytest.mark.parametrize("free_kb", [400, 600, 1400])
def test_a_disk_too_small_for_the_whole_reserve_still_pays_nothing_twice(fake, tmp_path, tiny_disk, free_kb):
    # issue 30, item 6: with 400-600 KB free the 8 MB reserve could not be made, so the calls in flight when the
    # disk filled were answered, never stored, and paid again by the resume (14 and 24); with 400 KB free a
    # new store's migrations, held in its log, never reached the file: "database disk image is malformed"
    data = write_dataset(tmp_path / "data.jsonl", 8)
    more = ("--epochs", "2", "--temperature", "0.5", "--concurrency", "16", "--max-retries", "0")
    assert cobe_at(fake, *eval_args(data, tmp_path / "whole", *more)).returncode == 0
    needed = fake.stats()["requests"]  # what the run costs, on a disk with room
    fake.control(reset=True)

    run_dir = tiny_disk / "run"
    filler = leave_free(tiny_disk, free_kb * 1024)
    args = eval_args(data, run_dir, *more)
    stopped = cobe_at(fake, *args)
    assert stopped.returncode == 1, stopped.stderr
    assert_one_line_error(stopped, NO_SPACE)
    filler.unlink()
    sent = fake.stats()["requests"]
    assert sent < needed
    assert not sent or stored_count(run_dir) == sent  # every call answered while the disk filled is kept
    assert not (run_dir / RESERVE_NAME).exists()

    subprocess.run(["mount", "-o", "remount,size=32m", str(tiny_disk)], check=True)  # room for the whole run
    resumed = cobe_at(fake, *args)
    assert resumed.returncode == 0, resumed.stderr
    assert fake.stats()["requests"] == stored_count(run_dir) == needed  # 0 calls paid twice


def test_no_byte_free_at_the_start_is_one_line(fake, data_file, small_disk):
    fill(small_disk)
    result = cobe_at(fake, *eval_args(data_file, small_disk / "run"))
    assert result.returncode == 1
    assert_one_line_error(result, NO_SPACE)
    assert fake.stats()["requests"] == 0


def test_reports_and_exports_onto_a_full_disk_are_one_line_and_leave_no_half_output(
    fake, data_file, tmp_path, small_disk
):
    run_dir = tmp_path / "run"
    assert cobe_at(fake, *eval_args(data_file, run_dir)).returncode == 0
    filler = fill(small_disk)
    commands = {
        "report": ["report", str(run_dir), "--out", str(small_disk / "report")],
        "hf": ["export", str(run_dir), str(small_disk / "hf"), "--to", "hf"],
    }
    if _has("inspect_ai"):
        commands["inspect"] = ["export", str(run_dir), str(small_disk / "log.eval"), "--to", "inspect"]
    for name, args in commands.items():
        result = run_cobe(*args)
        assert result.returncode == 1, (name, result.stderr)
        assert_one_line_error(result, NO_SPACE)
    assert not (small_disk / "hf").exists() and not (small_disk / "log.eval").exists()
    filler.unlink()
    for name, args in commands.items():
        again = run_cobe(*args)
        assert again.returncode == 0, (name, again.stderr)


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


# ---- everywhere: ENOSPC injected at the store's connection --------------------------------------------------
class _FillingConnection:
    """The store's connection, saying "no space" for every write once `after` calls are stored, until the run
    gives up its reserve (which is what frees room on a real disk)."""

    def __init__(self, db: sqlite3.Connection, reserve_path: Path, after: int) -> None:
        self._db, self._reserve_path, self._left = db, reserve_path, after

    def execute(self, sql: str, *args: object) -> object:
        if sql.startswith("INSERT OR REPLACE INTO calls"):
            if self._left <= 0 and self._reserve_path.exists():
                raise OSError(errno.ENOSPC, "No space left on device")
            self._left -= 1
        return self._db.execute(sql, *args)

    def __getattr__(self, name: str) -> object:
        return getattr(self._db, name)


def test_the_reserve_keeps_every_answered_call_where_no_disk_can_be_filled(fake, tmp_path, monkeypatch):
    from cobe.store import store as store_module

    data = write_dataset(tmp_path / "data.jsonl", 10)
    run_dir = tmp_path / "run"
    original = store_module.Store.__init__
    filling = {"on": True}

    def init(self, path):
        original(self, path)
        if filling["on"]:
            self.db = _FillingConnection(self.db, Path(path).parent / RESERVE_NAME, after=20)

    monkeypatch.setattr(store_module.Store, "__init__", init)
    fake.control(delay_s=0.01)
    args = eval_args(data, run_dir, "--concurrency", "8", "--max-retries", "0")
    result = cobe_at(fake, *args)
    assert result.returncode == 1
    assert_one_line_error(result, NO_SPACE, str(run_dir))
    stopped = fake.stats()
    assert stopped["requests"] < 120 and answered_calls(run_dir) == stopped["requests"]

    filling["on"] = False
    assert cobe_at(fake, *args).returncode == 0
    total = fake.stats()
    assert total["requests"] == len(total["bodies"]) == 120
