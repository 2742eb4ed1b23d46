"""A store holding what cobe never wrote there: a field that does not parse, a value of the wrong type, a dropped
table. A command reading one says so in one line (exit 2, the README's "damaged store") naming the store and the
field, never with a traceback; `cobe runs ROOT` lists such a run as damaged, and every other run as usual."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cobe.core.sqlite import UnusableDatabase, database_error

WHAT = "cobe store"


class DamagedStore(UnusableDatabase):
    """A store whose tables or fields are not what cobe wrote there (an InputError: exit 2)."""

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(path, f"damaged {WHAT} ({detail}); restore it from a copy, or run again in a new --run-dir")
        self.detail = detail


def excerpt(value: object) -> str:
    """A stored value as a message shows it: its repr, cut to 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def text_field(path: Path, row: sqlite3.Row, table: str, column: str, *, null: bool = False) -> str | None:
    """One text column of a stored row (None only where `null`); another type means the store is damaged."""
    value = row[column]
    if isinstance(value, str) or (null and value is None):
        return value
    raise DamagedStore(path, f"{table}.{column} is {excerpt(value)}: expected text")


def run_config(path: Path, row: sqlite3.Row) -> dict[str, Any]:
    """runs.config of a stored run: a JSON object naming its data, models and templates; else the store is damaged."""
    text = row["config"]
    try:
        config = json.loads(text)
    except (TypeError, ValueError):  # not text, or not JSON
        config = None
    if (
        not isinstance(config, dict)
        or not isinstance(config.get("data"), str)
        or not _strings(config.get("models"))
        or not _strings(config.get("template_names"))
    ):
        raise DamagedStore(
            path,
            f"runs.config of run {row['id']} is {excerpt(text)}: "
            "expected a JSON object with its data, models and template_names",
        )
    return config


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


@contextlib.contextmanager
def reading(path: Path) -> Iterator[None]:
    """An SQLite error while this block reads the store at `path` (a dropped table, a damaged page) as its one
    line: DamagedStore, or where the machine is at fault (a lock, a full disk) the error that says so."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        error = database_error(path, WHAT, exc)
        raise (DamagedStore(path, str(exc)) if isinstance(error, UnusableDatabase) else error) from None
