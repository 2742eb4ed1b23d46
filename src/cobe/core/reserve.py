"""Room kept on disk for the last writes of a command that meets a full disk, and how a full disk is told.

A command that writes a run directory holds a reserve file (`cobe.reserve`, RESERVE_BYTES really
allocated) there while it runs. When a store write fails because the disk is full, the store gives
the reserve up (its blocks go back to the file system) and writes again: the answers of calls
already paid for, and the run's state, still get committed while the command stops sending new
calls. The reserve is removed when the command ends; the next one makes it again. A disk with less than
twice RESERVE_BYTES free gets half of what is free: a small disk needs the room as much as a large one.
Once the disk is full, the store's write-ahead log gives its room back too (`shrink_log`: its pages are
copied into the database and the log cut to nothing), so the answers of calls still in flight get stored.

`is_disk_full` recognises the error whichever layer raised it: SQLite's "database or disk is full",
or the OS's ENOSPC / EDQUOT.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from cobe.core.errors import DiskFull

RESERVE_NAME = "cobe.reserve"
# enough for the rows of a few hundred calls in flight (a call's commit adds about three pages to
# the log) and the run's closing state, yet small beside any disk that holds runs
RESERVE_BYTES = 8 * 1024 * 1024
_PAGE = 4096
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}


def is_disk_full(exc: BaseException) -> bool:
    """Whether `exc` says the disk (or the user's quota) is full."""
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_FULL
    return isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS


class DiskReserve:
    """A file of RESERVE_BYTES allocated blocks, given back to the file system when a write needs the room."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / RESERVE_NAME
        self.held = False

    def hold(self) -> bool:
        """Allocate the reserve: RESERVE_BYTES, or half the free room of a disk with less than twice that (a
        disk already full leaves none); whether it is held."""
        size = reserve_size(self.path.parent)
        if not size:
            return False
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        except OSError:
            return False
        try:
            os.posix_fallocate(fd, 0, size)  # blocks really taken, not a sparse promise
            self.held = True
        except OSError:  # no room for it, or a file system without fallocate: go without
            self.release()
        finally:
            os.close(fd)
        return self.held

    def release(self) -> bool:
        """Give the reserve's room back to the file system; whether there was one to give."""
        had = self.held
        self.held = False
        with contextlib.suppress(OSError):
            self.path.unlink()
        return had


def reserve_size(directory: Path) -> int:
    """The bytes of the reserve made in `directory`: RESERVE_BYTES, or half its disk's free room where that is
    less than twice RESERVE_BYTES (whole pages; 0 when nothing is free)."""
    try:
        disk = os.statvfs(directory)
    except OSError:
        return RESERVE_BYTES
    free = disk.f_bavail * disk.f_frsize
    if free >= 2 * RESERVE_BYTES:
        return RESERVE_BYTES
    return free // 2 // _PAGE * _PAGE


@contextlib.contextmanager
def disk_reserve(directory: str | Path) -> Iterator[DiskReserve]:
    """Hold a reserve in `directory` (which must exist) while the block runs; it is removed afterwards."""
    reserve = DiskReserve(Path(directory))
    reserve.hold()
    try:
        yield reserve
    finally:
        reserve.release()


def out_of_space(where: str | Path | None) -> DiskFull:
    """The one line of a command stopped by a full disk at `where` (a path, when the error named one)."""
    return DiskFull(
        f"{f'{where}: ' if where else ''}no space left on the device (the disk or the quota is full), so the "
        "command stopped; what was finished is saved: free some space and run the same command again"
    )


class _Writer(Protocol):
    path: Path
    reserve: DiskReserve | None
    out_of_space: bool

    def shrink_log(self) -> bool:
        """Give the write-ahead log's room back to the file system; whether it had any to give."""
        ...


_W = TypeVar("_W", bound=_Writer)
_P = ParamSpec("_P")
_R = TypeVar("_R")


def makes_room(write: Callable[Concatenate[_W, _P], _R]) -> Callable[Concatenate[_W, _P], _R]:
    """A store's write that, when the disk is full, gives up the store's reserve and the room of its log and
    writes once more; with no room left to give it raises DiskFull. Either way the store's `out_of_space` is
    set: a caller sending calls stops sending new ones, and the calls in flight still store their answers
    (each write that meets a full disk makes what room it can and tries again)."""

    @functools.wraps(write)
    def written(self: _W, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return write(self, *args, **kwargs)
        except (sqlite3.Error, OSError) as exc:
            if not is_disk_full(exc):
                raise
            self.out_of_space = True
            released = self.reserve is not None and self.reserve.release()
            if not self.shrink_log() and not released:
                raise out_of_space(self.path.parent) from None
        try:  # the room made: a transaction that failed was rolled back whole, so it is written again whole
            return write(self, *args, **kwargs)
        except (sqlite3.Error, OSError) as exc:
            if is_disk_full(exc):
                raise out_of_space(self.path.parent) from None
            raise

    return written
