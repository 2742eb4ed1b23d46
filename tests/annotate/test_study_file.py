"""The study file holds the CSRF secret: created 0600, old files adopted, an empty one refused in one line."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from cobe.annotate.store import MIGRATIONS, StudyStore
from cobe.core.errors import InputError
from cobe.core.sqlite import migrations_in

# made by the store of commit 0a5cac0, which kept its migrations in a list in code (data/make_legacy_study.py)
LEGACY_STUDY = Path(__file__).parent / "data" / "legacy_study.sqlite"


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
    first = migrations_in(MIGRATIONS)[0]
    db = sqlite3.connect(path)  # as the old store wrote it: the first script, counted in user_version
    db.executescript(first.sql + ";\nPRAGMA user_version = 1;")
    db.execute("INSERT INTO meta VALUES ('secret', 'kept-secret')")
    db.commit()
    db.close()
    store = StudyStore(tmp_path)
    assert store.secret() == "kept-secret"
    with store.connect() as db:
        # version 1 adopted from user_version, every later migration applied on top
        adopted = [tuple(r) for r in db.execute("SELECT version, name FROM schema_migrations ORDER BY version")]
        assert adopted == [(n, f"{n:04d}_study") for n in range(1, len(migrations_in(MIGRATIONS)) + 1)]
        assert db.execute("PRAGMA user_version").fetchone()[0] == 0


def _schema(path: Path) -> list[tuple[str, str, str]]:
    """Every table and index with its SQL, whitespace folded: what two files must share to be one schema."""
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").fetchall()
    finally:
        db.close()
    return [(kind, name, " ".join(sql.replace("(", " ( ").replace(")", " ) ").split())) for kind, name, sql in rows]


def test_a_study_made_with_the_inline_migrations_opens_and_keeps_working(tmp_path: Path) -> None:
    path = tmp_path / "study.sqlite"
    shutil.copyfile(LEGACY_STUDY, path)
    store = StudyStore(tmp_path)
    with store.connect() as db:
        recorded = [tuple(r)[:2] for r in db.execute("SELECT version, name FROM schema_migrations ORDER BY version")]
    # the same versions under the same names: nothing re-applied, nothing refused
    assert recorded == [(1, "0001_study"), (2, "0002_study")]
    assert [m.name for m in migrations_in(MIGRATIONS)][:2] == ["0001_study", "0002_study"]
    assert _schema(path) == _schema(StudyStore(tmp_path / "fresh", create=True).path)

    assert store.meta("title") == "Legacy study" and len(store.secret()) > 20
    rater = store.principal_by_token("legacy-token-rater-1")
    assert rater is not None and rater.name == "rater-1"
    assert store.principal_by_token("legacy-token-rater-2") is None  # its link was revoked, and stays so
    assert store.assignment(rater.id) == [2, 1, 3]
    assert store.save_rating(rater.id, 1, "Other", "new answer")
    answers = [(r.rater, r.item_id, r.label, r.comment) for r in store.all_ratings()]
    assert answers == [
        ("rater-1", 1, "Other", "new answer"),
        ("rater-1", 2, "Yes", "kept the cause"),
        ("rater-2", 3, "No", ""),
    ]
    progress = {p["name"]: (p["answered"], p["assigned"]) for p in store.progress()}
    assert progress == {"rater-1": (2, 3), "rater-2": (1, 3)}


def test_an_empty_study_file_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "study.sqlite").write_bytes(b"")
    with pytest.raises(InputError, match=r"study.sqlite: not a usable rating study \(an empty file, 0 bytes\)") as e:
        StudyStore(tmp_path)
    assert "\n" not in str(e.value)
    assert (tmp_path / "study.sqlite").read_bytes() == b"" and len(list(tmp_path.iterdir())) == 1
