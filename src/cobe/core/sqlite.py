"""How every cobe SQLite file is opened: private on disk, WAL, and numbered migrations applied whole or not at all.

The run store (`cobe.sqlite`), a rating study (`study.sqlite`) and a dataset project
(`project.sqlite`) all go through `open_database`, each with its migrations as numbered
`NNNN_name.sql` files in its package's `migrations/` folder (`migrations_in`). Versions live in one table,
`schema_migrations`, written in the same transaction as the migration it records; files made
before that table existed (PRAGMA user_version) are adopted the first time they are opened.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Literal, NamedTuple

from cobe.core.clock import now
from cobe.core.errors import CobeError, InputError
from cobe.core.files import create_private
from cobe.core.reserve import is_disk_full, out_of_space

BUSY_TIMEOUT_S = 30.0
#: the path that asks SQLite for an in-memory database instead of a file
MEMORY = ":memory:"
SQLITE_MAGIC = b"SQLite format 3\x00"
VERSIONS_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations"
    " (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)"
)
# errors that say something about the machine (a lock, a full disk, permissions), not about what
# the file holds: the file may be fine, so it is never treated as unusable and moved aside
_ENVIRONMENT = {
    sqlite3.SQLITE_PERM,
    sqlite3.SQLITE_BUSY,
    sqlite3.SQLITE_LOCKED,
    sqlite3.SQLITE_NOMEM,
    sqlite3.SQLITE_READONLY,
    sqlite3.SQLITE_INTERRUPT,
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_AUTH,
}


class Migration(NamedTuple):
    """One numbered schema change: applied once, in a transaction of its own."""

    version: int
    name: str
    sql: str


class UnusableDatabase(InputError):
    """The file is there but is not (or no longer) a database of the expected kind; nothing was written to it."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def migrations_in(folder: Path) -> list[Migration]:
    """The `NNNN_name.sql` files of a folder, in version order."""
    return [
        Migration(int(path.name[:4]), path.stem, path.read_text(encoding="utf-8"))
        for path in sorted(folder.glob("[0-9][0-9][0-9][0-9]_*.sql"))
    ]


def split_statements(sql: str) -> list[str]:
    """The statements of a script, cut where SQLite's own tokenizer says one is complete.

    A `;` inside a string, a comment or a trigger body does not end a statement; text after
    the last `;` counts as a final statement, so a missing last semicolon is harmless.
    """
    found, start = [], 0
    for end, char in enumerate(sql):
        if char == ";" and sqlite3.complete_statement(sql[start : end + 1]):
            found.append(sql[start : end + 1])
            start = end + 1
    found.append(sql[start:])
    return [statement for statement in found if statement.strip().strip(";").strip()]


def connect(
    path: Path,
    *,
    synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
    foreign_keys: bool = True,
    check_same_thread: bool = True,
) -> sqlite3.Connection:
    """A connection to an existing database in autocommit mode: transactions are explicit (`write_transaction`)."""
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=check_same_thread)
    try:
        db.row_factory = sqlite3.Row
        # WAL + NORMAL: a commit is an append to the log with no fsync, yet a killed process
        # loses nothing committed; only a power loss can drop the last commits (FULL keeps them)
        db.execute(f"PRAGMA synchronous={synchronous}")
        db.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
    except BaseException:
        db.close()
        raise
    return db


def connect_read_only(path: Path, *, idle: bool) -> sqlite3.Connection:
    """A connection that can only read the database at `path` and leaves no file beside it.

    `idle`: no process writes the database now (its lock is free). Then, unless a -wal file with
    commits is left behind, every committed page is in the file itself, and it is opened immutable:
    SQLite makes no -wal or -shm file, which a read-only mount would refuse and a writable folder
    would keep. Otherwise it is opened mode=ro, which also reads what a writer's log holds.
    """
    wal = path.with_name(path.name + "-wal")
    try:
        logged = wal.stat().st_size > 0
    except OSError:
        logged = False
    query = "mode=ro&immutable=1" if idle and not logged else "mode=ro"
    # as_uri percent-encodes a path's ? and #, which SQLite would read as the start of the query
    return sqlite3.connect(f"{path.absolute().as_uri()}?{query}", uri=True, timeout=BUSY_TIMEOUT_S)


@contextmanager
def write_transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE … COMMIT, or ROLLBACK on any error: the write lock is taken up front, so writers queue."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.in_transaction:  # some errors (a full disk, an I/O error) have already rolled back
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def open_database(
    path: Path,
    migrations: Sequence[Migration],
    *,
    what: str,
    create: bool = False,
    synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
    foreign_keys: bool = True,
    check_same_thread: bool = True,
) -> sqlite3.Connection:
    """Open (or, with `create`, make when missing) a database, check it, and apply its pending migrations.

    A file that is empty, unreadable, not SQLite, damaged or of another schema raises
    UnusableDatabase naming it, before anything is written to it. A new file is created 0600;
    SQLite gives its -wal and -shm files the mode of the database file, so they are 0600 too.
    """
    if str(path) == MEMORY:  # a private database for one process (judging pairs without a cache file)
        return _open_checked(path, migrations, what, True, synchronous, foreign_keys, check_same_thread)
    if create and not os.path.lexists(path):
        _create_whole(path, migrations, what)
    _check_file(path, what)
    return _open_checked(path, migrations, what, False, synchronous, foreign_keys, check_same_thread)


def _create_whole(path: Path, migrations: Sequence[Migration], what: str) -> None:
    """Make `path` a migrated database that appears at once, whole: built under a temporary name, then linked.

    Had the file been created empty and filled in place, another thread or process opening it in between
    would find "an empty file, 0 bytes" and refuse it. If another opener links its own first, that one is kept.
    """
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.creating")
    try:
        create_private(temp)
        # built with its rollback journal in memory (a file no one else sees yet): every migration's pages go
        # straight into it, no -wal to copy them from. In WAL mode the log grew to 3 times the file, and where
        # the disk had no room to copy it back the close said nothing: the file linked lacked the log's pages
        db = _open_checked(temp, migrations, what, True, "NORMAL", True, True, journal="MEMORY")
        try:
            db.execute("PRAGMA journal_mode=WAL")  # kept in the file: every later connection is WAL
        finally:
            db.close()
        _link(temp, path)
    except FileExistsError:  # another opener was first: its database is the one
        pass
    except (OSError, sqlite3.Error) as exc:
        if is_disk_full(exc):
            raise out_of_space(path.parent) from None
        if not isinstance(exc, OSError):
            raise
        raise InputError(f"{path}: cannot create the {what} ({exc.strerror})") from exc
    finally:
        for leftover in (temp, temp.with_name(temp.name + "-wal"), temp.with_name(temp.name + "-shm")):
            with suppress(OSError):
                leftover.unlink()


def _open_checked(
    path: Path,
    migrations: Sequence[Migration],
    what: str,
    created: bool,
    synchronous: Literal["NORMAL", "FULL"],
    foreign_keys: bool,
    check_same_thread: bool,
    *,
    journal: Literal["WAL", "MEMORY"] = "WAL",
) -> sqlite3.Connection:
    try:
        db = connect(path, synchronous=synchronous, foreign_keys=False, check_same_thread=check_same_thread)
    except sqlite3.DatabaseError as exc:
        raise database_error(path, what, exc) from exc
    try:
        if not created:
            _check_pages(db, path, what)
        db.execute(f"PRAGMA journal_mode={journal}")  # WAL is kept in the file: every later connection is WAL too
        migrate(db, migrations, path=path, what=what)
        if foreign_keys:  # switched on after migrating, as SQLite advises for schema changes
            db.execute("PRAGMA foreign_keys=ON")
    except sqlite3.ProgrammingError:
        db.close()
        raise
    except sqlite3.DatabaseError as exc:
        db.close()
        raise database_error(path, what, exc) from exc
    except BaseException:
        db.close()
        raise
    return db


def _link(temp: Path, path: Path) -> None:
    """Give `temp`'s file the name `path` unless `path` exists (FileExistsError then)."""
    try:
        os.link(temp, path)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS):
            raise
        # a file system without hard links: a rename, which only this moment's check keeps from replacing
        if os.path.lexists(path):
            raise FileExistsError(errno.EEXIST, "exists", str(path)) from None
        os.rename(temp, path)


def migrate(db: sqlite3.Connection, migrations: Sequence[Migration], *, path: Path, what: str) -> list[int]:
    """Apply every migration not yet recorded, each in its own transaction with its version row; returns those applied."""
    known = {m.version: m for m in migrations}
    applied = _recorded(db)
    newer = sorted(set(applied) - set(known))
    if newer:
        raise UnusableDatabase(
            path,
            f"made by a newer cobe (schema version {newer[-1]}; this one knows up to {max(known, default=0)});"
            " nothing was changed",
        )
    for version, name in applied.items():
        if known[version].name != name:
            expected = known[version].name
            reason = f"not a {what} (its migration {version} is {name!r}, expected {expected!r}); nothing was changed"
            raise UnusableDatabase(path, reason)
    done = []
    for migration in sorted(migrations):
        if migration.version in applied:
            continue
        with write_transaction(db):
            _adopt_user_version(db, migrations)
            # read again under the write lock: another process may have applied it meanwhile
            if db.execute("SELECT 1 FROM schema_migrations WHERE version = ?", (migration.version,)).fetchone():
                continue
            for statement in split_statements(migration.sql):
                db.execute(statement)
            broken = db.execute("PRAGMA foreign_key_check").fetchone()
            if broken is not None:
                raise UnusableDatabase(
                    path,
                    f"migration {migration.name} would break a reference in table {broken[0]}; nothing was changed",
                )
            db.execute(
                "INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)",
                (migration.version, migration.name, now()),
            )
        done.append(migration.version)
    return done


def _recorded(db: sqlite3.Connection) -> dict[int, str]:
    """version → name from schema_migrations; a file that only has PRAGMA user_version reads as empty here."""
    if not _has_versions_table(db):
        return {}
    return {int(row[0]): str(row[1]) for row in db.execute("SELECT version, name FROM schema_migrations")}


def _has_versions_table(db: sqlite3.Connection) -> bool:
    found = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").fetchone()
    return found is not None


def _adopt_user_version(db: sqlite3.Connection, migrations: Sequence[Migration]) -> None:
    # Study and project files counted their migrations in PRAGMA user_version (N = the first N
    # had run). They move to schema_migrations inside the caller's transaction, and user_version
    # goes back to 0 so there is one record of the schema, not two that could disagree.
    if _has_versions_table(db):
        return
    db.execute(VERSIONS_TABLE)
    count = int(db.execute("PRAGMA user_version").fetchone()[0])
    if count == 0:
        return
    stamp = now()
    db.executemany(
        "INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)",
        [(m.version, m.name, stamp) for m in sorted(migrations)[:count]],
    )
    db.execute("PRAGMA user_version = 0")


def _check_file(path: Path, what: str) -> None:
    """Refuse, before SQLite touches it, a file that cannot be a database: SQLite would make an empty one its own."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise UnusableDatabase(path, f"not a usable {what} (not a regular file); nothing was changed")
        if info.st_size == 0:
            raise UnusableDatabase(path, f"not a usable {what} (an empty file, 0 bytes); nothing was changed")
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such file; expected a {what}") from exc
    except PermissionError as exc:
        reason = f"not a usable {what} (cannot be read: {exc.strerror}); nothing was changed"
        raise UnusableDatabase(path, reason) from exc
    except OSError as exc:
        raise CobeError(f"{path}: cannot read the {what} ({exc.strerror})") from exc
    if head != SQLITE_MAGIC:
        raise UnusableDatabase(path, f"not a usable {what} (not an SQLite database); nothing was changed")


def _check_pages(db: sqlite3.Connection, path: Path, what: str) -> None:
    # quick_check reads every page (about 0.2 s per 100 MB), so a damaged page is one line
    # here rather than a traceback from whichever query first happens to read it
    found = [str(row[0]) for row in db.execute("PRAGMA quick_check(3)")]
    if found != ["ok"]:
        lines = [line.strip() for text in found for line in text.splitlines() if line.strip().strip("*").strip()]
        lines = [line for line in lines if not line.startswith("***")]
        raise UnusableDatabase(path, f"damaged {what} ({'; '.join(lines[:2])}); nothing was changed")


def database_error(path: Path, what: str, exc: sqlite3.DatabaseError) -> CobeError:
    """The one-line error of an SQLite failure on `path`: a full disk, the machine (a lock, permissions: exit 1,
    the file may be fine), or else the file itself (UnusableDatabase, exit 2)."""
    if is_disk_full(exc):
        return out_of_space(path.parent)
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in _ENVIRONMENT:
        return CobeError(f"{path}: cannot use the {what} ({exc})")
    return UnusableDatabase(path, f"not a usable {what} ({exc}); nothing was changed")
