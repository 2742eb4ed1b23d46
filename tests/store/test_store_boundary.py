"""No module outside `cobe.store` reaches into a run's store: it asks the store's named methods and reads the
typed rows they return (`cobe.store.rows`), never the connection, a cursor or a `sqlite3.Row`.

Read from the source with `ast`, so a new query written elsewhere fails here, naming its file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import cobe

SRC = Path(cobe.__file__).parent
#: what reaches a connection: its attribute on the store, and what is only called on a connection or cursor
CONNECTION = {"db", "conn", "execute", "executemany", "executescript", "cursor", "row_factory"}
#: modules with SQLite databases of their own, never a run's store: the annotation and curation projects (opened
#: through core/sqlite.py), the web apps' access tables in those projects, the opening of any database itself,
#: and the validator's private temporary index of scenario ids
OWN_DATABASES = ("store/", "annotate/", "curate/", "web/access.py", "core/sqlite.py", "dataset/idindex.py")


def reaches_into_the_store(root: Path) -> list[str]:
    """`file:line what` for every use of a connection or a `sqlite3.Row` in the package at `root`, outside
    the modules that own a database."""
    found: list[tuple[str, int, str]] = []
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name.startswith(OWN_DATABASES):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Attribute) and node.attr in CONNECTION:
                found.append((name, node.lineno, f".{node.attr}"))
            elif isinstance(node, ast.Attribute) and node.attr == "Row" and ast.unparse(node.value) == "sqlite3":
                found.append((name, node.lineno, "sqlite3.Row"))
    return [f"{name}:{line} {what}" for name, line, what in sorted(found)]


def test_no_module_outside_the_store_touches_its_connection_or_indexes_its_rows_by_name():
    assert reaches_into_the_store(SRC) == []


def test_the_scan_finds_a_query_and_a_row_read_by_name(tmp_path):
    module = tmp_path / "run" / "export.py"
    module.parent.mkdir()
    module.write_text(
        "import sqlite3\n"
        "def usage(store) -> None:\n"
        "    for row in store.db.execute('SELECT model FROM responses'):\n"
        "        print(row)\n"
        "def text(row: sqlite3.Row) -> str:\n"
        "    return row['text']\n"
    )
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "store.py").write_text("def get(self):\n    return self.db.execute('SELECT 1')\n")
    assert reaches_into_the_store(tmp_path) == [
        "run/export.py:3 .db",
        "run/export.py:3 .execute",
        "run/export.py:5 sqlite3.Row",
    ]
