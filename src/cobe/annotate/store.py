"""The SQLite file of a rating study: items, raters, their shuffled assignments, ratings, sessions."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from cobe.core.clock import now
from cobe.core.errors import InputError
from cobe.core.files import ensure_dir
from cobe.core.sqlite import connect as connect_db
from cobe.core.sqlite import migrations_in, open_database, write_transaction
from cobe.web.access import Access, AccessTables
from cobe.web.tokens import hash_token, new_token

STUDY_FILE = "study.sqlite"
LABELS: tuple[str, ...] = ("Yes", "No", "Other")
# links and sessions follow the policy shared with the review app (cobe.web.access)
ACCESS_TABLES = AccessTables(principals="principals", key="id", owner="principal_id")

# numbered .sql files, append-only: a new schema change is a new file, never an edit of an old one
MIGRATIONS = Path(str(files("cobe.annotate").joinpath("migrations")))


@dataclass(frozen=True)
class Item:
    """One rated response: what a rater sees, plus the run row it came from."""

    id: int
    key: str  # "scenario_id:template:model"
    scenario_id: str
    template: str
    model: str
    story: str
    query: str
    response: str
    row_json: str


@dataclass(frozen=True)
class Principal:
    """A rater (rater-1..n) or the admin, as identified by a token or a session."""

    id: int
    name: str
    role: str


@dataclass(frozen=True)
class Rating:
    """One saved answer."""

    rater: str
    item_id: int
    item_key: str
    label: str
    comment: str
    answered_at: str


def study_file(path: str | Path) -> Path:
    """The study's SQLite file from a study directory or the file itself."""
    path = Path(path)
    return path / STUDY_FILE if path.is_dir() or path.suffix != ".sqlite" else path


class StudyStore:
    """Opens a short-lived connection per operation, so web requests on many threads never share one."""

    # the app replaces it with one carrying its own session policy and clock
    access: Access = Access(ACCESS_TABLES)

    def __init__(self, path: str | Path, *, create: bool = False) -> None:
        self.path = study_file(path)
        if create:
            if self.path.exists():
                raise InputError(f"{self.path}: a study already exists here; choose another --out directory")
            ensure_dir(self.path.parent, "study directory")
        elif not self.path.is_file():
            raise InputError(
                f"{path}: no rating study found (expected {STUDY_FILE}; create one with `cobe annotate create`)"
            )
        # the study file holds the CSRF secret: created 0600, checked and migrated before any use
        open_database(self.path, migrations_in(MIGRATIONS), what="rating study", create=create).close()

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A connection in autocommit mode with a busy timeout and foreign keys; closed afterwards."""
        # WAL (set in the file) + NORMAL: a saved answer survives a killed server; a power loss may drop the last
        db = connect_db(self.path)
        try:
            yield db
        finally:
            db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT: the write lock is taken up front, so concurrent writers queue, not fail."""
        with self.connect() as db, write_transaction(db):
            yield db

    # ---- configuration -----------------------------------------------------------------
    def meta(self, key: str, default: str | None = None) -> str | None:
        """A study setting (seed, run directory, base URL, the CSRF secret …)."""
        with self.connect() as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, values: dict[str, str]) -> None:
        """Store study settings."""
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(values.items()))

    def secret(self) -> str:
        """The server secret that CSRF tokens are derived from; made once per study."""
        value = self.meta("secret")
        if value is None:
            value = new_token()
            with self.transaction() as db:
                db.execute("INSERT OR IGNORE INTO meta VALUES ('secret', ?)", (value,))
                value = db.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()[0]
        return value

    # ---- items and people --------------------------------------------------------------
    def add_items(self, items: list[dict[str, str]]) -> None:
        """Insert items (dicts with the Item fields except id); ids follow the list order from 1."""
        with self.transaction() as db:
            db.executemany(
                "INSERT INTO items (item_key, scenario_id, template, model, story, query, response, row_json)"
                " VALUES (:key, :scenario_id, :template, :model, :story, :query, :response, :row_json)",
                items,
            )

    def add_principal(self, name: str, role: str, token: str, item_order: list[int] | None = None) -> int:
        """A rater with its ordered assignment, or the admin; only the token's hash is kept."""
        with self.transaction() as db:
            cur = db.execute(
                "INSERT INTO principals (name, role, token_hash) VALUES (?, ?, ?)", (name, role, hash_token(token))
            )
            principal_id = int(cur.lastrowid or 0)
            db.executemany(
                "INSERT INTO assignments (rater_id, item_id, position) VALUES (?, ?, ?)",
                [(principal_id, item_id, pos) for pos, item_id in enumerate(item_order or [], start=1)],
            )
        return principal_id

    def principals(self) -> list[Principal]:
        """Raters in order, then the admin."""
        with self.connect() as db:
            rows = db.execute("SELECT id, name, role FROM principals ORDER BY role = 'admin', id").fetchall()
        return [Principal(row["id"], row["name"], row["role"]) for row in rows]

    def rotate_link(self, principal_id: int) -> str:
        """A new token for a principal; the old link and all its sessions stop working at once."""
        with self.transaction() as db:
            return self.access.issue_link(db, principal_id)

    def revoke_link(self, principal_id: int) -> None:
        """Disable a principal's link and end its sessions, until the next rotation."""
        with self.transaction() as db:
            self.access.revoke_link(db, principal_id)

    def revoked_links(self) -> dict[int, str]:
        """Principal ids whose link is revoked, with when."""
        with self.connect() as db:
            return {int(key): at for key, at in self.access.revoked(db).items()}

    def principal_by_token(self, token: str) -> Principal | None:
        """The principal whose (unrevoked) link token this is; every stored hash is compared in constant time."""
        with self.connect() as db:
            key = self.access.holder(db, token)
        return None if key is None else self._principal(int(key))

    def new_session(self, principal_id: int) -> str:
        """A fresh random session id for a cookie; only its hash is stored."""
        with self.transaction() as db:
            return self.access.start_session(db, principal_id)

    def session_principal(self, session_id: str) -> Principal | None:
        """The principal of a live session, or None when unknown, expired or its link was rotated or revoked."""
        with self.connect() as db:
            key = self.access.session_holder(db, session_id)
        return None if key is None else self._principal(int(key))

    def end_session(self, session_id: str) -> None:
        """Forget one session (log out)."""
        with self.transaction() as db:
            self.access.end_session(db, session_id)

    def _principal(self, principal_id: int) -> Principal | None:
        with self.connect() as db:
            row = db.execute("SELECT id, name, role FROM principals WHERE id = ?", (principal_id,)).fetchone()
        return None if row is None else Principal(row["id"], row["name"], row["role"])

    # ---- assignments and ratings -------------------------------------------------------
    def assignment(self, rater_id: int) -> list[int]:
        """The rater's item ids in their shuffled order (position 1 first)."""
        with self.connect() as db:
            rows = db.execute("SELECT item_id FROM assignments WHERE rater_id = ? ORDER BY position", (rater_id,))
            return [row[0] for row in rows]

    def item(self, item_id: int) -> Item:
        """One item by id."""
        with self.connect() as db:
            row = db.execute("SELECT * FROM items WHERE id = ?", (item_id,)).fetchone()
        if row is None:
            raise InputError(f"item {item_id} is not in this study")
        return _item(row)

    def items(self) -> list[Item]:
        """All items by id."""
        with self.connect() as db:
            return [_item(row) for row in db.execute("SELECT * FROM items ORDER BY id")]

    def ratings_of(self, rater_id: int) -> dict[int, Rating]:
        """One rater's answers by item id; never anyone else's."""
        return {r.item_id: r for r in self._ratings("WHERE r.rater_id = ?", (rater_id,))}

    def all_ratings(self) -> list[Rating]:
        """Every answer, by rater then item id (admin export and agreement)."""
        return self._ratings("", ())

    def _ratings(self, where: str, args: tuple) -> list[Rating]:
        with self.connect() as db:
            rows = db.execute(
                "SELECT p.name, r.item_id, i.item_key, r.label, r.comment, r.answered_at FROM ratings r"
                " JOIN principals p ON p.id = r.rater_id JOIN items i ON i.id = r.item_id"
                f" {where} ORDER BY p.id, r.item_id",
                args,
            ).fetchall()
        return [Rating(*row) for row in rows]

    def save_rating(self, rater_id: int, item_id: int, label: str, comment: str) -> bool:
        """Upsert one answer in one transaction; False (nothing written) when the item is not the rater's."""
        if label not in LABELS:
            raise InputError(f"label {label!r}: expected one of {', '.join(LABELS)}")
        with self.transaction() as db:
            assigned = db.execute(
                "SELECT 1 FROM assignments WHERE rater_id = ? AND item_id = ?", (rater_id, item_id)
            ).fetchone()
            if assigned is None:
                return False
            db.execute(
                "INSERT INTO ratings (rater_id, item_id, label, comment, answered_at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (rater_id, item_id) DO UPDATE SET label = excluded.label,"
                " comment = excluded.comment, answered_at = excluded.answered_at",
                (rater_id, item_id, label, comment, now()),
            )
        return True

    def progress(self) -> list[dict[str, object]]:
        """Per rater: answered, assigned, last answer time."""
        with self.connect() as db:
            rows = db.execute(
                "SELECT p.name, (SELECT COUNT(*) FROM assignments a WHERE a.rater_id = p.id) AS assigned,"
                " COUNT(r.item_id) AS answered, MAX(r.answered_at) AS last FROM principals p"
                " LEFT JOIN ratings r ON r.rater_id = p.id WHERE p.role = 'rater' GROUP BY p.id ORDER BY p.id"
            ).fetchall()
        return [dict(row) for row in rows]


def _item(row: sqlite3.Row) -> Item:
    return Item(
        id=row["id"],
        key=row["item_key"],
        scenario_id=row["scenario_id"],
        template=row["template"],
        model=row["model"],
        story=row["story"],
        query=row["query"],
        response=row["response"],
        row_json=row["row_json"],
    )
