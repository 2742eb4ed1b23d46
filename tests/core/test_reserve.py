"""The room kept for a full disk: its size on a small disk, and the log's room given back (issue 30, item 6)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from cobe.core import reserve as reserve_module
from cobe.core.errors import DiskFull
from cobe.core.reserve import RESERVE_BYTES, DiskReserve, makes_room, reserve_size
from cobe.store.store import Store


def _free(monkeypatch: pytest.MonkeyPatch, free: int) -> None:
    monkeypatch.setattr(reserve_module.os, "statvfs", lambda _: SimpleNamespace(f_bavail=free // 512, f_frsize=512))


def test_a_large_disk_gets_the_whole_reserve(monkeypatch, tmp_path):
    _free(monkeypatch, 10 * RESERVE_BYTES)
    assert reserve_size(tmp_path) == RESERVE_BYTES


def test_a_disk_with_less_than_twice_the_reserve_free_gets_half_of_it_in_whole_pages(monkeypatch, tmp_path):
    _free(monkeypatch, 600 * 1024 + 512)
    assert reserve_size(tmp_path) == 300 * 1024
    reserve = DiskReserve(tmp_path)
    assert reserve.hold() and os.path.getsize(reserve.path) == 300 * 1024
    assert reserve.release() and not reserve.path.exists()


def test_a_full_disk_leaves_no_reserve(monkeypatch, tmp_path):
    _free(monkeypatch, 0)
    reserve = DiskReserve(tmp_path)
    assert not reserve.hold() and not reserve.path.exists()


def _full() -> sqlite3.OperationalError:
    exc = sqlite3.OperationalError("database or disk is full")
    exc.sqlite_errorcode = sqlite3.SQLITE_FULL  # type: ignore[misc]
    return exc


class _Writer:
    """A store's writer whose first `fails` writes meet a full disk; its log gives back room or not."""

    def __init__(self, tmp_path: Path, fails: int, log_room: bool) -> None:
        self.path, self.reserve, self.out_of_space = tmp_path / "cobe.sqlite", None, False
        self.fails, self.log_room, self.written = fails, log_room, 0

    def shrink_log(self) -> bool:
        return self.log_room

    @makes_room
    def write(self) -> str:
        if self.fails:
            self.fails -= 1
            raise _full()
        self.written += 1
        return "written"


def test_with_no_reserve_a_write_meeting_a_full_disk_is_made_again_in_the_room_the_log_gives_back(tmp_path):
    # a disk too small for any reserve: the answers of calls in flight still go in, once the log is cut
    writer = _Writer(tmp_path, fails=1, log_room=True)
    assert writer.write() == "written" and writer.out_of_space
    writer.fails = 1
    assert writer.write() == "written"  # each later write that meets the full disk makes room again


def test_with_no_room_to_give_the_write_stops_the_command(tmp_path):
    writer = _Writer(tmp_path, fails=1, log_room=False)
    with pytest.raises(DiskFull):
        writer.write()
    assert writer.out_of_space and not writer.written


def test_shrink_log_copies_the_log_into_the_store_and_cuts_it(tmp_path):
    store = Store(tmp_path / "cobe.sqlite")
    try:
        store.create_run("r1", {}, "0")
        log = tmp_path / "cobe.sqlite-wal"
        assert log.stat().st_size > 0
        assert store.shrink_log()
        assert log.stat().st_size == 0 and store.latest_run().id == "r1"
        with store.batch():  # a batch's pages are the log's alone: never cut under it
            store.set_state("r1", "complete")
            assert not store.shrink_log()
    finally:
        store.close()


def test_a_new_store_is_created_whole_in_its_file_with_no_log_left(tmp_path):
    # the migrations never wait in a -wal that a full disk could keep from being copied back
    store = Store(tmp_path / "cobe.sqlite")
    store.close()
    assert not (tmp_path / "cobe.sqlite-wal").exists() or (tmp_path / "cobe.sqlite-wal").stat().st_size == 0
    assert (tmp_path / "cobe.sqlite").read_bytes()[18:20] == b"\2\2"  # the header's WAL mode: kept in the file
    db = sqlite3.connect(f"file:{tmp_path / 'cobe.sqlite'}?immutable=1", uri=True)
    try:
        assert db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'calls'").fetchone()[0] == 1
    finally:
        db.close()
