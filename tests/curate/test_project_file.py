"""The project database file: created 0600, old files adopted, an empty one refused in one line."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.curate import init_project, open_project
from cobe.curate.project import MIGRATIONS


def test_a_new_project_file_and_its_wal_are_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        project = init_project(tmp_path / "p")
        project.conn.execute("SELECT 1 FROM items").fetchall()
        modes = {p.name: p.stat().st_mode & 0o777 for p in (tmp_path / "p").iterdir()}
        project.close()
    finally:
        os.umask(old)
    assert modes == {"project.sqlite": 0o600, "project.sqlite-wal": 0o600, "project.sqlite-shm": 0o600}


def test_a_project_made_before_schema_migrations_is_adopted(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    db = sqlite3.connect(root / "project.sqlite")  # as the old code wrote it: each script, counted in user_version
    old_scripts = sorted(MIGRATIONS.glob("*.sql"))[:2]  # 0001 and 0002: all the old code knew
    for number, script in enumerate(old_scripts, start=1):
        db.executescript(f"BEGIN;\n{script.read_text()}\nPRAGMA user_version = {number};\nCOMMIT;")
    db.execute("INSERT INTO meta VALUES ('csrf_secret', 'kept')")
    db.commit()
    db.close()
    with open_project(root) as project:
        rows = project.conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
        names = [path.stem for path in sorted(MIGRATIONS.glob("*.sql"))]
        assert [tuple(r) for r in rows] == list(enumerate(names, start=1))  # two adopted, the rest applied
        assert project.conn.execute("SELECT value FROM meta").fetchone()[0] == "kept"
        assert project.conn.execute("PRAGMA user_version").fetchone()[0] == 0


def test_an_empty_project_file_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "project.sqlite").write_bytes(b"")
    with pytest.raises(InputError, match=r"project.sqlite: not a usable dataset project \(an empty file, 0 bytes\)"):
        open_project(tmp_path)
    assert (tmp_path / "project.sqlite").read_bytes() == b""


def test_migration_4_keeps_audit_ratings_and_lets_a_question_stay_unanswered(tmp_path: Path) -> None:
    from cobe.core.sqlite import migrations_in, open_database

    root = tmp_path / "p"
    root.mkdir()
    three = [m for m in migrations_in(MIGRATIONS) if m.version <= 3]  # a project made before 0004
    db = open_database(root / "project.sqlite", three, what="dataset project", create=True)
    db.execute("INSERT INTO audit_ratings VALUES (1, 'a1-expert1', '1v1', 5, 4, 3, 'then')")
    with pytest.raises(sqlite3.IntegrityError):  # the old table forced a score on every question
        db.execute("INSERT INTO audit_ratings VALUES (1, 'a1-expert1', '2v1', 5, NULL, 3, 'then')")
    db.close()
    with open_project(root) as project:
        rows = project.conn.execute("SELECT item_id, coherence, grammar, validity FROM audit_ratings").fetchall()
        assert [tuple(r) for r in rows] == [("1v1", 5, 4, 3)]
        project.conn.execute("INSERT INTO audit_ratings VALUES (1, 'a1-expert1', '2v1', 5, NULL, 3, 'now')")
        with pytest.raises(sqlite3.IntegrityError):  # still never a score outside 1-5
            project.conn.execute("INSERT INTO audit_ratings VALUES (1, 'a1-expert1', '3v1', 0, NULL, 3, 'now')")


def test_stamps_written_as_offset_by_older_cobe_still_read_and_order(tmp_path: Path) -> None:
    from cobe.core.clock import parse
    from cobe.curate import import_file, promote
    from cobe.curate.review import add_reviewer, record_review, reviews_of
    from support.curate_project import CORES

    with init_project(tmp_path / "p") as project:
        import_file(project, CORES)
        promote(project, ["1v0"])
        add_reviewer(project, "amy")
        add_reviewer(project, "zoe")
        record_review(project, "1v0", "zoe", "approve")
        # what the project's own clock wrote before it took the common form: "+00:00", not "Z"
        old = "2026-01-01T09:00:00+00:00"
        with project.transaction() as conn:
            conn.execute("UPDATE reviews SET at = ?", (old,))
            conn.execute("UPDATE items SET created_at = ?, updated_at = ?", (old, old))
            conn.execute("UPDATE events SET at = ?", (old,))
    with open_project(tmp_path / "p") as project:
        promote(project, ["2v0"])
        record_review(project, "1v0", "amy", "approve")
        reviews = [(r["reviewer"], r["at"]) for r in reviews_of(project, "1v0")]
        assert [name for name, _ in reviews] == ["zoe", "amy"]  # by time, whatever the form, not by name
        assert reviews[1][1].endswith("Z") and parse(reviews[0][1]) < parse(reviews[1][1])
        events = project.events("2v0")  # imported then, promoted now
        assert [e["at"] == old for e in events] == [True, False] and events[-1]["at"].endswith("Z")
        assert project.item("2v0").created_at == old
