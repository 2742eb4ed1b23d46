"""The one SQLite helper: whole-or-nothing migrations, versions in one table, private files, one-line refusals."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from cobe.core import sqlite as helper
from cobe.core.errors import CobeError
from cobe.core.sqlite import (
    Migration,
    UnusableDatabase,
    migrate,
    open_database,
    split_statements,
    write_transaction,
)

FIRST = Migration(1, "0001_notes", "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);")
# several statements, a trigger whose body holds semicolons, and a failure at the very end
BROKEN = Migration(
    2,
    "0002_tags",
    """
    CREATE TABLE tags (note_id INTEGER NOT NULL REFERENCES notes(id), tag TEXT NOT NULL);
    CREATE INDEX tags_note ON tags (note_id);
    INSERT INTO notes (text) VALUES ('semi; colon');
    CREATE TRIGGER notes_gone AFTER DELETE ON notes BEGIN
        DELETE FROM tags WHERE note_id = old.id;
        INSERT INTO notes (text) VALUES ('deleted; once');
    END;
    INSERT INTO no_such_table VALUES (1);
    """,
)
FIXED = BROKEN._replace(sql=BROKEN.sql.replace("INSERT INTO no_such_table VALUES (1);", ""))


def applied_versions(db: sqlite3.Connection) -> list[int]:
    """The migration versions a database records, in order."""
    return [row[0] for row in db.execute("SELECT version FROM schema_migrations ORDER BY version")]


def names(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master")}


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)  # the usual umask, under which a plain open() makes 0644 files
    yield
    os.umask(old)


def test_statements_are_split_where_sqlite_says_they_end() -> None:
    parts = split_statements(BROKEN.sql)
    assert len(parts) == 5
    assert "'semi; colon'" in parts[2] and parts[3].strip().startswith("CREATE TRIGGER") and "END;" in parts[3]
    assert split_statements("-- a note; with a semicolon\nCREATE TABLE a (x);;\n\nCREATE INDEX i ON a (x)") == [
        "-- a note; with a semicolon\nCREATE TABLE a (x);",
        "\n\nCREATE INDEX i ON a (x)",
    ]


def test_a_failing_migration_leaves_nothing_behind(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    open_database(path, [FIRST], what="notes file", create=True).close()
    with pytest.raises(
        UnusableDatabase, match=r"notes.sqlite: not a usable notes file \(no such table: no_such_table\)"
    ):
        open_database(path, [FIRST, BROKEN], what="notes file")
    db = sqlite3.connect(path)
    assert names(db) == {"notes", "schema_migrations"}  # no tags table, index or trigger
    assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == 0  # the insert was rolled back too
    assert applied_versions(db) == [1]
    assert not db.in_transaction
    db.close()
    # the same connection goes on working after the rollback, and the fixed migration then applies
    db = open_database(path, [FIRST, FIXED], what="notes file")
    assert {"tags", "tags_note", "notes_gone"} <= names(db) and applied_versions(db) == [1, 2]


def test_migrate_raises_the_sqlite_error_and_rolls_back(tmp_path: Path) -> None:
    db = helper.connect(tmp_path / "n.sqlite")
    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        migrate(db, [FIRST, BROKEN], path=tmp_path / "n.sqlite", what="notes file")
    assert names(db) == {"notes", "schema_migrations"} and applied_versions(db) == [1]


def test_migrations_apply_once(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    db = open_database(path, [FIRST, FIXED], what="notes file", create=True)
    assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == 1
    db.close()
    db = open_database(path, [FIRST, FIXED], what="notes file")
    assert migrate(db, [FIRST, FIXED], path=path, what="notes file") == []
    assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == 1  # 0002's insert ran once
    rows = db.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
    assert [tuple(r) for r in rows] == [(1, "0001_notes"), (2, "0002_tags")]


def test_a_user_version_file_is_adopted(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old = sqlite3.connect(path)  # what the study and project stores wrote before: PRAGMA user_version
    old.executescript(FIRST.sql + "INSERT INTO notes (text) VALUES ('kept'); PRAGMA user_version = 1;")
    old.close()
    db = open_database(path, [FIRST, FIXED], what="notes file")
    assert applied_versions(db) == [1, 2]
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0  # one record of the schema, not two
    assert [r[0] for r in db.execute("SELECT text FROM notes ORDER BY id")] == ["kept", "semi; colon"]


def test_a_newer_or_foreign_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "n.sqlite"
    open_database(path, [FIRST, FIXED], what="notes file", create=True).close()
    with pytest.raises(UnusableDatabase, match=r"made by a newer cobe \(schema version 2; this one knows up to 1\)"):
        open_database(path, [FIRST], what="notes file")
    other = tmp_path / "other.sqlite"
    open_database(other, [FIRST], what="notes file", create=True).close()
    with pytest.raises(UnusableDatabase, match="its migration 1 is '0001_notes', expected '0001_study'"):
        open_database(other, [Migration(1, "0001_study", "CREATE TABLE x (a)")], what="rating study")


def test_new_files_and_their_wal_are_private(tmp_path: Path, umask_022: None) -> None:
    path = tmp_path / "n.sqlite"
    db = open_database(path, [FIRST], what="notes file", create=True)
    db.execute("INSERT INTO notes (text) VALUES ('x')")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    for name in ("n.sqlite", "n.sqlite-wal", "n.sqlite-shm"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o600, name
    db.close()


def test_a_umask_that_removes_the_owner_write_bit_still_gives_0600(tmp_path: Path) -> None:
    old = os.umask(0o277)
    try:
        open_database(tmp_path / "n.sqlite", [FIRST], what="notes file", create=True).close()
    finally:
        os.umask(old)
    assert (tmp_path / "n.sqlite").stat().st_mode & 0o777 == 0o600


def _corrupt_root_page(path: Path, table: str) -> None:
    db = sqlite3.connect(path)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    db.close()
    with open(path, "r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(os.urandom(page_size))


@pytest.mark.parametrize("kind", ["empty", "random", "text", "corrupt page", "directory"])
def test_a_file_that_is_no_database_is_refused_and_left_as_it_is(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "n.sqlite"
    if kind == "directory":
        path.mkdir()
    elif kind == "corrupt page":
        db = open_database(path, [FIRST], what="notes file", create=True)
        with write_transaction(db):
            db.executemany("INSERT INTO notes (text) VALUES (?)", [("x" * 500,)] * 50)
        db.close()
        _corrupt_root_page(path, "notes")
    else:
        path.write_bytes({"empty": b"", "random": os.urandom(8192), "text": b"id,text\n1,hello\n"}[kind])
    before = path.read_bytes() if path.is_file() else None
    reason = {
        "empty": "an empty file, 0 bytes",
        "random": "not an SQLite database",
        "text": "not an SQLite database",
        "corrupt page": "damaged notes file",
        "directory": "not a regular file",
    }[kind]
    with pytest.raises(UnusableDatabase, match=reason) as caught:
        open_database(path, [FIRST], what="notes file", create=True)
    assert "\n" not in str(caught.value) and str(caught.value).startswith(f"{path}: ")
    assert str(caught.value).endswith("nothing was changed")
    assert (path.read_bytes() if path.is_file() else None) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.sqlite"]  # no -wal or -shm left either


def test_a_locked_file_is_a_plain_error_never_unusable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy database may be perfectly good: it must never be treated as one to move aside."""
    path = tmp_path / "n.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")  # a rollback-journal file: an exclusive lock keeps readers out
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr(helper, "BUSY_TIMEOUT_S", 0.05)
    with pytest.raises(CobeError, match="database is locked") as caught:
        open_database(path, [FIRST], what="notes file")
    assert not isinstance(caught.value, UnusableDatabase)
    holder.execute("ROLLBACK")
    holder.close()


def test_write_transaction_rolls_back_on_error(tmp_path: Path) -> None:
    db = open_database(tmp_path / "n.sqlite", [FIRST], what="notes file", create=True)
    with pytest.raises(KeyError), write_transaction(db):
        db.execute("INSERT INTO notes (text) VALUES ('gone')")
        raise KeyError("x")
    assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == 0 and not db.in_transaction


def test_a_file_made_here_that_could_not_be_opened_is_not_left_empty(tmp_path: Path, monkeypatch) -> None:
    def refuse(*args: object, **options: object) -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(helper, "connect", refuse)
    with pytest.raises(UnusableDatabase, match="unable to open database file"):
        open_database(tmp_path / "n.sqlite", [FIRST], what="notes file", create=True)
    assert list(tmp_path.iterdir()) == []  # no empty file that the next open would refuse


def test_memory_path_opens_an_in_memory_database_and_leaves_no_file(tmp_path: Path, monkeypatch) -> None:
    from cobe.store.store import Store

    monkeypatch.chdir(tmp_path)
    for _ in range(2):  # a second open must not find a file named ':memory:' and refuse it
        store = Store(":memory:")
        assert store.latest_run() is None
        store.close()
    assert list(tmp_path.iterdir()) == []
