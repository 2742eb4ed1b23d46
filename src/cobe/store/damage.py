"""A store holding what cobe never wrote there: a field that does not parse, a value of the wrong type, a dropped
table. A command reading one says so in one line (exit 2, the README's "damaged store") naming the store and the
field, never with a traceback; `cobe runs ROOT` lists such a run as damaged, and every other run as usual.

Its tables are checked once, as the store is opened (`check_schema`): every table and column its recorded
migrations made is there as they made it, or the command stops before any work, naming the table. A row is
checked where it is read (`text_field`, `run_config`, `stored_scenario`), naming its table and key.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cobe.core.errors import validation_problem
from cobe.core.sqlite import Migration, UnusableDatabase, database_error, split_statements
from cobe.dataset.schema import Scenario
from cobe.store.rows import RunRow

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


def text_field(path: Path, row: object, table: str, column: str, *, null: bool = False) -> str | None:
    """One text column of a stored row (`cobe.store.rows`; None only where `null`); another type means the store
    is damaged."""
    value = getattr(row, column)
    if isinstance(value, str) or (null and value is None):
        return value
    raise DamagedStore(path, f"{table}.{column} is {excerpt(value)}: expected text")


def run_config(path: Path, row: RunRow) -> dict[str, Any]:
    """runs.config of a stored run: a JSON object naming its data, models and templates; else the store is damaged."""
    text = row.config
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
            f"runs.config of run {row.id} is {excerpt(text)}: "
            "expected a JSON object with its data, models and template_names",
        )
    epochs = config.get("epochs")  # runs made before --epochs hold none
    if epochs is not None and (isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1):
        raise DamagedStore(path, f"runs.config of run {row.id} has epochs {excerpt(epochs)}: expected a count from 1")
    return config


def json_object(path: Path, text: object, where: str) -> dict[str, Any]:
    """A stored JSON object (`where`: its table, column and row, e.g. "verdicts.judge_settings of verdict 7"); a
    field that is no JSON object is the store's damage, in one line naming it."""
    try:
        value = json.loads(text) if isinstance(text, str | bytes) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise DamagedStore(path, f"{where} is {excerpt(text)}: expected a JSON object")
    return value


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


#: a table as its migrations make it: column name → (declared NOT NULL, position in the primary key)
Columns = dict[str, tuple[bool, int]]


def check_schema(db: sqlite3.Connection, path: Path, migrations: Sequence[Migration]) -> None:
    """Every table and column of the migrations the store records is there, as they made it; else DamagedStore
    naming the first table that is not (a dropped table, a column gone, a table made again without NOT NULL)."""
    with reading(path):
        recorded = {int(row[0]) for row in db.execute("SELECT version FROM schema_migrations")}
        expected = _schema(tuple(m for m in sorted(migrations) if m.version in recorded))
        found = {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table, columns in expected.items():
            if table not in found:
                raise DamagedStore(path, f"table {table} is missing")
            problem = _differs(columns, _columns(db, table))
            if problem:
                raise DamagedStore(path, f"table {table}: {problem}")


@functools.cache
def _schema(migrations: tuple[Migration, ...]) -> dict[str, Columns]:
    """The tables these migrations make, read from an empty database they are applied to (once per process)."""
    db = sqlite3.connect(":memory:")
    try:
        for migration in migrations:
            for statement in split_statements(migration.sql):
                db.execute(statement)
        names = [str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: _columns(db, name) for name in names}
    finally:
        db.close()


def _columns(db: sqlite3.Connection, table: str) -> Columns:
    return {str(row[1]): (bool(row[3]), int(row[5])) for row in db.execute(f'PRAGMA table_info("{table}")')}


def _differs(expected: Columns, found: Columns) -> str | None:
    """What of the expected columns a table lacks or holds otherwise, in words; None when it has them all."""
    for name, (not_null, key) in expected.items():
        if name not in found:
            return f"column {name} is missing"
        if found[name][0] != not_null:
            return f"column {name} {'allows' if not_null else 'refuses'} NULL; cobe made it {'NOT NULL' if not_null else 'nullable'}"
        if bool(found[name][1]) != bool(key):
            return (
                f"column {name} is {'not ' if key else ''}in its primary key; cobe made it {'' if key else 'not '}a key"
            )
    return None


def stored_scenario(path: Path, run_id: str, scenario_id: str, text: object) -> Scenario:
    """One row of the scenarios table as the Scenario it holds; a row that is none is the store's damage, named
    by its table and key."""
    try:
        if not isinstance(text, str | bytes):
            raise TypeError(f"not text but {type(text).__name__}")
        return Scenario.model_validate_json(text)
    except (ValidationError, TypeError, ValueError) as exc:
        raise DamagedStore(
            path,
            f"scenarios.data of run {run_id}, scenario {scenario_id!r} is {excerpt(text)}: "
            f"expected a scenario as JSON ({_problem(exc)})",
        ) from None


def _problem(exc: Exception) -> str:
    return validation_problem(exc) if isinstance(exc, ValidationError) else str(exc)
