"""The study file holds the CSRF secret: created 0600, old files adopted, an empty one refused in one line."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from cobe.annotate.store import MIGRATIONS, StudyStore
from cobe.core.errors import InputError


def test_a_new_study_file_and_its_wal_are_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        store = StudyStore(tmp_path / "study", create=True)
        secret = store.secret()
        with store.connect() as db:  # an open connection keeps the -wal and -shm files in place
            db.execute("SELECT 1 FROM meta").fetchall()
            modes = {p.name: p.stat().st_mode & 0o777 for p in (tmp_path / "study").iterdir()}
    finally:
        os.umask(old)
    assert modes == {"study.sqlite": 0o600, "study.sqlite-wal": 0o600, "study.sqlite-shm": 0o600}
    assert StudyStore(tmp_path / "study").secret() == secret


def test_a_study_made_before_schema_migrations_is_adopted(tmp_path: Path) -> None:
    path = tmp_path / "study.sqlite"
    db = sqlite3.connect(path)  # as the old store wrote it: the first script, counted in user_version
    db.executescript(MIGRATIONS[0] + ";\nPRAGMA user_version = 1;")
    db.execute("INSERT INTO meta VALUES ('secret', 'kept-secret')")
    db.commit()
    db.close()
    store = StudyStore(tmp_path)
    assert store.secret() == "kept-secret"
    with store.connect() as db:
        # version 1 adopted from user_version, every later migration applied on top
        adopted = [tuple(r) for r in db.execute("SELECT version, name FROM schema_migrations ORDER BY version")]
        assert adopted == [(n, f"{n:04d}_study") for n in range(1, len(MIGRATIONS) + 1)]
        assert db.execute("PRAGMA user_version").fetchone()[0] == 0


def test_an_empty_study_file_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "study.sqlite").write_bytes(b"")
    with pytest.raises(InputError, match=r"study.sqlite: not a usable rating study \(an empty file, 0 bytes\)") as e:
        StudyStore(tmp_path)
    assert "\n" not in str(e.value)
    assert (tmp_path / "study.sqlite").read_bytes() == b"" and len(list(tmp_path.iterdir())) == 1
