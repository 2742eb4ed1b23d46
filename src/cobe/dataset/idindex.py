"""Where each scenario id was seen, file by file, kept in a temporary SQLite file instead of memory.

Validating a file of a million scenarios must not hold a million ids: `IdIndex` keeps (file, id,
line) rows in a private on-disk database that SQLite deletes when it is closed, so memory stays at
SQLite's page cache whatever the files' length. `IdIndex.file(n)` is the mapping id → line of one
file that the loaders fill as they read (`LoadResult.lines`); `IdIndex.repeated(n)` then names the
ids of file n that an earlier file holds too.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, MutableMapping

_SCHEMA = (
    "CREATE TABLE ids (file INTEGER NOT NULL, id TEXT NOT NULL, line INTEGER, UNIQUE (id, file))",
    "CREATE INDEX ids_by_file ON ids (file)",
)


class IdIndex:
    """Scenario ids of several files and the line each starts on, on disk; close it when done."""

    def __init__(self) -> None:
        # "": a private temporary database on disk, removed by SQLite when the connection closes;
        # one transaction for its whole life, since nothing in it must survive a crash
        self._db = sqlite3.connect("", isolation_level=None)
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        for statement in _SCHEMA:
            self._db.execute(statement)
        self._db.execute("BEGIN")

    def close(self) -> None:
        """Drop the index and its file."""
        self._db.close()

    def __enter__(self) -> IdIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def file(self, number: int) -> FileIds:
        """The mapping id → line of file `number`."""
        return FileIds(self._db, number)

    def repeated(self, number: int) -> Iterator[tuple[str, int | None, int]]:
        """(id, its line in file `number`, the first earlier file holding it) for each id of file `number` that an
        earlier file holds too, in the order the ids were first seen."""
        rows = self._db.execute(
            "SELECT here.id, here.line, (SELECT min(file) FROM ids AS earlier WHERE earlier.id = here.id"
            " AND earlier.file < here.file) AS first FROM ids AS here WHERE here.file = ? AND first IS NOT NULL"
            " ORDER BY here.rowid",
            (number,),
        )
        return ((str(sid), line, int(first)) for sid, line, first in rows)


class FileIds(MutableMapping[str, int | None]):
    """The ids of one file in an IdIndex, as a mapping id → the line its record starts on."""

    def __init__(self, db: sqlite3.Connection, number: int) -> None:
        self._db, self._number = db, number

    def __getitem__(self, sid: str) -> int | None:
        row = self._db.execute("SELECT line FROM ids WHERE id = ? AND file = ?", (sid, self._number)).fetchone()
        if row is None:
            raise KeyError(sid)
        line: int | None = row[0]
        return line

    def __setitem__(self, sid: str, line: int | None) -> None:
        self._db.execute("INSERT OR REPLACE INTO ids (file, id, line) VALUES (?, ?, ?)", (self._number, sid, line))

    def __delitem__(self, sid: str) -> None:
        if self._db.execute("DELETE FROM ids WHERE id = ? AND file = ?", (sid, self._number)).rowcount == 0:
            raise KeyError(sid)

    def __iter__(self) -> Iterator[str]:
        rows = self._db.execute("SELECT id FROM ids WHERE file = ? ORDER BY rowid", (self._number,)).fetchall()
        return (str(row[0]) for row in rows)

    def __len__(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM ids WHERE file = ?", (self._number,)).fetchone()[0])
