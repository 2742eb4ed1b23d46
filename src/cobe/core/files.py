"""Files cobe writes: private to their owner (0600) unless made to be shared (reports: the user's umask
decides), replaced atomically, no temp file left behind for good."""

from __future__ import annotations

import errno
import glob
import os
import secrets
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from cobe.core.errors import InputError
from cobe.core.reserve import is_disk_full, out_of_space

PRIVATE = 0o600
#: a file made to be shared, before the umask takes its bits
SHARED = 0o666
# when this process began (near enough: when cobe.core.files was first imported), for telling
# a temp file left by an earlier, killed writer from one a live writer is filling right now
_STARTED = time.time()


def create_private(path: Path) -> None:
    """Create an empty file only its owner may read or write; FileExistsError if something is there."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE)
    try:
        os.fchmod(fd, PRIVATE)  # the umask may have taken bits away: 0600 exactly
    finally:
        os.close(fd)


def _temp_file(path: Path, shared: bool) -> tuple[int, str]:
    # the writer's pid is part of the name, so a later process can tell whether the writer is gone
    prefix = f".{path.name}.{os.getpid()}."
    if not shared:
        return tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
    while True:  # mkstemp's 0600 would outlive the rename; 0666 through the umask, as any file the user writes
        tmp = path.parent / f"{prefix}{secrets.token_hex(4)}.tmp"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, SHARED), str(tmp)
        except FileExistsError:
            continue


@contextmanager
def atomic_open(path: Path, *, shared: bool = False) -> Iterator[IO[str]]:
    """Write via a temp file in the same directory and os.replace, so readers never see half a file.

    The file is 0600, or with `shared` (a report, made to be handed on) whatever the user's umask leaves."""
    remove_stale_temps(path)
    fd, tmp = _temp_file(path, shared)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            if not shared:
                os.fchmod(handle.fileno(), PRIVATE)
            yield handle
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if is_disk_full(exc):
            raise out_of_space(path) from None
        raise


def atomic_write(path: Path, text: str, *, shared: bool = False) -> None:
    """Replace `path` with `text` atomically; the file is 0600, or as the umask decides with `shared`."""
    with atomic_open(path, shared=shared) as handle:
        handle.write(text)


def remove_stale_temps(path: Path) -> list[Path]:
    """Delete the `.<name>.*.tmp` files beside `path` that a writer now gone left behind; returns them."""
    prefix = f".{path.name}."
    removed = []
    for tmp in path.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        if _abandoned(tmp, tmp.name[len(prefix) : -len(".tmp")]):
            tmp.unlink(missing_ok=True)
            removed.append(tmp)
    return removed


def _abandoned(tmp: Path, middle: str) -> bool:
    # A temp file is stale when it was last written before this process started AND the pid in
    # its name is not a live process here. The age test alone could delete the file of a live
    # writer that paused before our start; the pid test alone could delete the file of a writer
    # on another host sharing the directory. Together they only err towards keeping a file
    # (a reused pid, a writer killed after we started): the next command removes it then.
    # Names written before the pid was added (`.<name>.<random>.tmp`) fall back to the age test.
    try:
        if tmp.stat().st_mtime >= _STARTED:
            return False
    except FileNotFoundError:
        return False
    pid, dot, _ = middle.partition(".")
    if dot and pid.isascii() and pid.isdigit():
        return int(pid) != os.getpid() and not _alive(int(pid))
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # gone, or a number no process can have
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def ensure_dir(path: Path, what: str = "directory") -> Path:
    """`path` as an existing directory (made with its parents when missing), or InputError saying why it cannot be."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        try:
            kind = file_kind(os.stat(path).st_mode)
        except OSError:
            kind = "not a directory"
        raise InputError(f"{path}: is {kind}, not a directory; expected a {what}") from None
    except NotADirectoryError:
        raise InputError(f"{path}: a part of the path is a file, not a directory; expected a {what}") from None
    except PermissionError:
        raise InputError(f"{path}: cannot be created here (permission denied; a read-only parent?)") from None
    except OSError as exc:
        if is_disk_full(exc):
            raise out_of_space(path) from None
        raise InputError(f"{path}: cannot be created ({exc.strerror or exc})") from None
    return path


def check_new_directory(path: Path, option: str = "--out", what: str = "a new run directory") -> None:
    """`path` is missing or an empty directory, so a new directory can take its place; else InputError."""
    try:
        taken = os.path.lexists(path) and (not path.is_dir() or any(path.iterdir()))
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc}); choose another {option}") from None
    if taken:
        raise InputError(f"{path}: already exists and is not empty; expected {what} for {option}")


@contextmanager
def new_directory(path: Path, option: str = "--out", what: str = "a new run directory") -> Iterator[Path]:
    """A new directory made whole: the block fills a staging folder beside `path`, which then takes its place in
    one rename, so a failure leaves nothing there. Every way it cannot be is one line (InputError): `path` not
    empty, below a file, in a folder that cannot be written, or filled by another command meanwhile (a rename
    replaces only a missing or empty directory, so the command that comes second is refused, not mixed in)."""
    check_new_directory(path, option, what)
    parent = ensure_dir(path.parent, f"directory for {option}")
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=parent))
    except OSError as exc:
        if is_disk_full(exc):
            raise out_of_space(parent) from None
        raise InputError(f"{parent}: cannot write here ({exc.strerror or exc}); choose another {option}") from None
    try:
        yield staging
        _take_place(staging, path, option)
    except OSError as exc:  # a write the folder refused (a full disk says so wherever it is met)
        shutil.rmtree(staging, ignore_errors=True)
        if is_disk_full(exc):
            raise
        raise InputError(f"{path}: could not be written ({exc.strerror or exc}); nothing was written there") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _take_place(staging: Path, path: Path, option: str) -> None:
    try:
        os.rename(staging, path)
    except OSError as exc:
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
            raise InputError(
                f"{path}: another command wrote there meanwhile (it is not empty now); nothing was written to "
                f"{option} {path}"
            ) from None
        raise


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def file_kind(mode: int) -> str:
    """What a file mode says the file is, in words: a directory, a FIFO (named pipe), ..., a regular file."""
    return next((kind for test, kind in _KINDS if test(mode)), "a regular file")


def check_output(path: Path, what: str = "an output file") -> Path:
    """`path` as a place a file can be (re)written, or InputError: its folder must exist and be writable, and
    anything already there must be a regular file (replacing a FIFO or a device would block or destroy it)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except NotADirectoryError:
        raise InputError(f"{path}: a part of the path is a file, not a directory; expected {what}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be used ({exc.strerror or exc}); expected {what}") from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: is {file_kind(info.st_mode)}; expected {what}")
    parent = path.parent
    if not parent.is_dir():
        raise InputError(f"{parent}: no such directory; create it first, or choose another place for {what}")
    if not os.access(parent, os.W_OK):
        raise InputError(f"{parent}: the directory is read-only; choose another place for {what}")
    return path


def cache_store(command: str) -> Path:
    """Where a command that keeps its calls outside any run (`cobe models check`, `cobe judges check`) keeps
    them without --run-dir: $XDG_CACHE_HOME/cobe/<command>/cobe.sqlite (~/.cache by default)."""
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "cobe" / command / "cobe.sqlite"
