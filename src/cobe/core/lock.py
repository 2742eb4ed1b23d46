"""One writer per directory: an OS file lock (flock) that a killed holder releases by dying.

A command that writes a run directory holds `cobe.lock` in it for as long as it runs; the file
says who holds it (pid, host, command, start time), so a second command can name the holder.
The kernel drops a flock when its holder's process ends however it ends (SIGKILL included), so
a stale file never blocks anyone, and "is anyone running here?" is answered by trying the lock.

Within one process the lock is re-entrant along a call chain (the CLI holds it around the
engine, which takes it again), tracked by a context variable; two concurrent tasks started
side by side still exclude each other, because each starts with the context of its creator.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from cobe.core.clock import now
from cobe.core.errors import InputError, RunDirBusy
from cobe.core.files import ensure_dir

LOCK_NAME = "cobe.lock"
_held: ContextVar[frozenset[str]] = ContextVar("cobe_held_locks", default=frozenset())


def _describe(holder: dict[str, Any] | None) -> str:
    if not holder:
        return "another cobe command"
    return (
        f"`{holder.get('command', 'cobe')}` (pid {holder.get('pid', '?')} on {holder.get('host', '?')}, "
        f"since {holder.get('started', '?')})"
    )


def _read(fd: int) -> dict[str, Any] | None:
    try:
        raw = os.pread(fd, 4096, 0)
        data = json.loads(raw.decode("utf-8")) if raw.strip() else None
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _open(path: Path, directory: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except (PermissionError, IsADirectoryError) as exc:
        if isinstance(exc, PermissionError) and not os.access(directory, os.W_OK):
            raise InputError(f"{directory}: the directory is read-only; cobe needs to write there") from None
        raise InputError(f"{path}: cannot create the lock file ({exc.strerror})") from None
    except OSError as exc:
        if exc.errno == errno.EROFS:
            raise InputError(f"{directory}: on a read-only file system; cobe needs to write there") from None
        raise InputError(f"{path}: cannot create the lock file ({exc.strerror})") from None


def _same_file(fd: int, path: Path) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except FileNotFoundError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


@contextlib.contextmanager
def directory_lock(directory: str | Path, command: str, *, wait: Callable[[str], None] | None = None) -> Iterator[Path]:
    """Hold the lock of `directory` (created if missing) while the block runs, or raise RunDirBusy naming its holder.

    With `wait`, a busy directory is waited for instead: `wait` gets one line naming the holder, and the
    lock is taken when the holder lets go (Ctrl-C still interrupts the wait).
    """
    directory = Path(directory)
    key = str(directory.resolve())
    if key in _held.get():  # this call chain holds it already
        yield directory / LOCK_NAME
        return
    ensure_dir(directory, "run directory")
    path = directory / LOCK_NAME
    while True:
        fd = _open(path, directory)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            if wait is None:
                os.close(fd)
                raise RunDirBusy(
                    f"{directory}: in use by {_describe(holder)}; wait for it to finish, or stop it and run "
                    "this command again"
                ) from None
            wait(f"{directory}: in use by {_describe(holder)}; waiting for it to finish")
            wait = _waited  # said once, however many times the file is replaced under us
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                os.close(fd)
                raise
        # the previous holder removes the file as it lets go; if it did so between our open and
        # our lock, we hold a lock on a file nobody else will open: start again on the new one
        if _same_file(fd, path):
            break
        os.close(fd)
    token = _held.set(_held.get() | {key})
    try:
        info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "command": command,
            "started": now(),
        }
        with contextlib.suppress(OSError):  # a full disk: the lock holds without saying who holds it
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(info).encode("utf-8"), 0)
        yield path
    finally:
        _held.reset(token)
        with contextlib.suppress(OSError):
            if _same_file(fd, path):
                os.unlink(path)  # removed while still locked, so no newcomer locks a file about to vanish
        os.close(fd)  # closing the last descriptor releases the lock


def _waited(line: str) -> None:
    pass


def lock_holder(directory: str | Path) -> dict[str, Any] | None:
    """Who holds the lock of `directory` now (pid, host, command, started), or None when nobody does."""
    path = Path(directory) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read(fd) or {}
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
