"""What a test reads straight from a run's cobe.sqlite, behind cobe's back: the file as another process finds it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def stored(run_dir: Path, sql: str) -> Any:
    """The first column of the first row `sql` selects from the run's store (None where it selects none)."""
    db = sqlite3.connect(run_dir / "cobe.sqlite")
    try:
        row = db.execute(sql).fetchone()
        return None if row is None else row[0]
    finally:
        db.close()


def stored_count(run_dir: Path, table: str = "calls") -> int:
    """How many rows the store's `table` holds."""
    return int(stored(run_dir, f"SELECT count(*) FROM {table}"))


def stored_state(run_dir: Path) -> str:
    """The state the store records for its run."""
    return str(stored(run_dir, "SELECT state FROM runs"))


def committed_calls(run_dir: Path, *, answered: bool = False) -> int:
    """Calls committed in a run's store so far, read-only while a command may still write it (`answered`: only
    those that did not fail); 0 before the store or its schema exists (a command killed early)."""
    path = run_dir / "cobe.sqlite"
    if not path.exists():
        return 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        where = " WHERE error IS NULL" if answered else ""
        return int(db.execute(f"SELECT count(*) FROM calls{where}").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is still being made
        return 0
    finally:
        db.close()
