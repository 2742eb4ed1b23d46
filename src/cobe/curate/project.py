"""The dataset project: one SQLite file holding every item, its stage, lineage and history."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from cobe.core.clock import now
from cobe.core.errors import InputError
from cobe.core.files import ensure_dir
from cobe.core.sqlite import migrations_in, open_database, write_transaction
from cobe.dataset.schema import Scenario

DB_NAME = "project.sqlite"
CALLS_NAME = "calls.sqlite"  # the engine's call store, for augmentation and judge calls
MIGRATIONS = Path(str(files("cobe.curate").joinpath("migrations")))

STATUSES = ("candidate", "core", "variation", "approved", "rejected", "released")
# which status changes the workflow allows; anything else is a mistake worth an error
TRANSITIONS: dict[str, frozenset[str]] = {
    "candidate": frozenset({"core", "rejected"}),
    "core": frozenset({"approved", "rejected"}),
    "variation": frozenset({"approved", "rejected"}),
    "approved": frozenset({"released", "rejected"}),
    "rejected": frozenset({"approved"}),  # an admin's recorded decision may overturn a rejection
    "released": frozenset(),
}
REVIEWABLE = ("core", "variation")
RELEASABLE = ("approved", "released")


@dataclass
class Item:
    """One row of the items table: the scenario and where it came from."""

    id: str
    core_id: int
    variation: int
    status: str
    is_core: bool
    parent_id: str | None
    source: str
    model: str | None
    prompt_fingerprint: str | None
    scenario: Scenario
    created_at: str
    updated_at: str


def _open(path: Path, *, create: bool) -> sqlite3.Connection:
    # FULL, not NORMAL: reviews and decisions are typed by people, so a power loss must not drop the last ones
    return open_database(
        path,
        migrations_in(MIGRATIONS),
        what="dataset project",
        create=create,
        synchronous="FULL",
        check_same_thread=False,
    )


class Project:
    """An open dataset project directory."""

    def __init__(self, root: Path, conn: sqlite3.Connection) -> None:
        self.root = root
        self.conn = conn

    @property
    def calls_path(self) -> Path:
        """Where the engine's call store lives (cache of augmentation and judge calls)."""
        return self.root / CALLS_NAME

    def close(self) -> None:
        """Close the database connection."""
        self.conn.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: BEGIN IMMEDIATE so concurrent writers queue instead of failing."""
        with write_transaction(self.conn):
            yield self.conn

    # ---- items -------------------------------------------------------------------------
    def add_item(
        self,
        scenario: Scenario,
        *,
        status: str,
        source: str,
        actor: str,
        reason: str = "",
        is_core: bool = False,
        parent_id: str | None = None,
        model: str | None = None,
        prompt_fingerprint: str | None = None,
    ) -> Item:
        """Insert a new item and its first event; InputError when the id is taken."""
        if status not in STATUSES:
            raise InputError(f"unknown status {status!r}; expected one of {', '.join(STATUSES)}")
        stamp = now()
        with self.transaction() as conn:
            if conn.execute("SELECT 1 FROM items WHERE id = ?", (scenario.id,)).fetchone():
                raise InputError(f"{self.root}: id {scenario.id} is already in the project")
            conn.execute(
                "INSERT INTO items (id, core_id, variation, status, is_core, parent_id, source, model,"
                " prompt_fingerprint, data, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    scenario.id,
                    scenario.core_id,
                    scenario.variation,
                    status,
                    int(is_core),
                    parent_id,
                    source,
                    model,
                    prompt_fingerprint,
                    scenario.model_dump_json(),
                    stamp,
                    stamp,
                ),
            )
            self._event(conn, scenario.id, None, status, actor, reason, stamp)
        return self.item(scenario.id)

    def item(self, item_id: str) -> Item:
        """The item with this id; InputError when there is none."""
        row = self.conn.execute("SELECT * FROM items WHERE id = ?", (item_id,)).fetchone()
        if row is None:
            raise InputError(f"{self.root}: no item with id {item_id!r}")
        return _item(row)

    def items(self, *statuses: str, core_only: bool = False) -> list[Item]:
        """Items in any of `statuses` (all when none given), ordered by core id and variation."""
        sql, args = "SELECT * FROM items", list[object]()
        clauses = []
        if statuses:
            clauses.append(f"status IN ({','.join('?' * len(statuses))})")
            args.extend(statuses)
        if core_only:
            clauses.append("is_core = 1")
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        rows = self.conn.execute(sql + " ORDER BY core_id, variation", args).fetchall()
        return [_item(r) for r in rows]

    def set_status(self, item_id: str, to: str, *, actor: str, reason: str = "", is_core: bool | None = None) -> None:
        """Move an item to status `to`, recording the event; InputError for a move the workflow forbids."""
        with self.transaction() as conn:
            self._move(conn, item_id, to, actor=actor, reason=reason, is_core=is_core)

    def _move(
        self, conn: sqlite3.Connection, item_id: str, to: str, *, actor: str, reason: str, is_core: bool | None = None
    ) -> None:
        row = conn.execute("SELECT status FROM items WHERE id = ?", (item_id,)).fetchone()
        if row is None:
            raise InputError(f"{self.root}: no item with id {item_id!r}")
        current = row["status"]
        if to not in TRANSITIONS.get(current, frozenset()):
            raise InputError(f"item {item_id}: cannot move from {current} to {to}")
        stamp = now()
        conn.execute("UPDATE items SET status = ?, updated_at = ? WHERE id = ?", (to, stamp, item_id))
        if is_core is not None:
            conn.execute("UPDATE items SET is_core = ? WHERE id = ?", (int(is_core), item_id))
        self._event(conn, item_id, current, to, actor, reason, stamp)

    @staticmethod
    def _event(
        conn: sqlite3.Connection, item_id: str, src: str | None, dst: str, actor: str, reason: str, stamp: str
    ) -> None:
        conn.execute(
            "INSERT INTO events (item_id, from_status, to_status, actor, reason, at) VALUES (?,?,?,?,?,?)",
            (item_id, src, dst, actor, reason, stamp),
        )

    def events(self, item_id: str | None = None) -> list[sqlite3.Row]:
        """The status history of one item, or of the whole project, oldest first."""
        if item_id is None:
            return self.conn.execute("SELECT * FROM events ORDER BY seq").fetchall()
        return self.conn.execute("SELECT * FROM events WHERE item_id = ? ORDER BY seq", (item_id,)).fetchall()

    def next_variation(self, core_id: int) -> int:
        """The next free variation number of a core example."""
        row = self.conn.execute("SELECT MAX(variation) FROM items WHERE core_id = ?", (core_id,)).fetchone()
        return 0 if row[0] is None else row[0] + 1

    def next_core_id(self) -> int:
        """The next free core id (one past the largest in the project)."""
        row = self.conn.execute("SELECT MAX(core_id) FROM items").fetchone()
        return 1 if row[0] is None else row[0] + 1

    def status_counts(self) -> dict[str, int]:
        """How many items are in each status now."""
        counts = {s: 0 for s in STATUSES}
        for row in self.conn.execute("SELECT status, COUNT(*) AS n FROM items GROUP BY status"):
            counts[row["status"]] = row["n"]
        return counts


def _item(row: sqlite3.Row) -> Item:
    return Item(
        id=row["id"],
        core_id=row["core_id"],
        variation=row["variation"],
        status=row["status"],
        is_core=bool(row["is_core"]),
        parent_id=row["parent_id"],
        source=row["source"],
        model=row["model"],
        prompt_fingerprint=row["prompt_fingerprint"],
        scenario=Scenario.model_validate(json.loads(row["data"])),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def init_project(directory: str | Path) -> Project:
    """Create a dataset project in `directory` (made if missing); InputError if one is there already."""
    root = Path(directory)
    if (root / DB_NAME).exists():
        raise InputError(f"{root}: already a dataset project ({DB_NAME} exists)")
    if root.exists() and not root.is_dir():
        raise InputError(f"{root}: exists and is not a directory")
    ensure_dir(root, "project directory")
    return Project(root, _open(root / DB_NAME, create=True))


def open_project(directory: str | Path) -> Project:
    """Open an existing project, running any migrations it has not seen; InputError if none is there."""
    root = Path(directory)
    if not (root / DB_NAME).is_file():
        raise InputError(f"{root}: not a dataset project (no {DB_NAME}); create one with `cobe curate init {root}`")
    return Project(root, _open(root / DB_NAME, create=False))
