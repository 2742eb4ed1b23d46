"""The docs stay true to the tree: README's layout and docs/ARCHITECTURE.md name every package in the real layer
order, and every file they name exists."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "cobe"
ARCHITECTURE = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def packages() -> set[str]:
    """Every subpackage of cobe, and the api module (a layer of its own)."""
    return {p.parent.name for p in PACKAGE.glob("*/__init__.py")} | {"api"}


def layer_rows() -> list[tuple[list[str], str]]:
    """(the packages a row of the layers table names, the row's text), top to bottom."""
    rows = []
    for line in ARCHITECTURE.splitlines():
        cells = line.split(" | ")
        if line.startswith("| `cobe.") and len(cells) >= 3:
            rows.append((re.findall(r"`cobe\.(\w+)`", cells[0]), line))
    return rows


def contract_layers() -> list[set[str]]:
    """The layers of pyproject's import-linter contract, top to bottom."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [contract] = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return [{name.strip().removeprefix("cobe.") for name in layer.split("|")} for layer in contract["layers"]]


def test_the_architecture_table_names_every_package_in_the_contracts_order() -> None:
    named = [set(names) for names, _ in layer_rows()]
    assert set().union(*named) == packages()
    # rows may split a layer of independent packages (in any order among themselves), never reorder layers
    depth = {name: i for i, layer in enumerate(contract_layers()) for name in layer}
    seen = [depth[name] for names, _ in layer_rows() for name in names]
    assert seen == sorted(seen)


def test_the_readme_layout_names_every_package() -> None:
    layout = README[README.index("## Layout") :]
    named = set(re.findall(r"`(\w+)(?:\.py)?`", layout))
    assert packages() <= named
    assert {"tests/", "benchmarks/", "scripts/"} <= set(re.findall(r"`(\w+/)`", layout))


@pytest.mark.parametrize("names, row", layer_rows(), ids=lambda v: v[0] if isinstance(v, list) else "")
def test_each_module_a_layer_row_names_exists(names: list[str], row: str) -> None:
    for file in re.findall(r"`([\w/]+\.(?:py|yaml))`", row):
        found = (PACKAGE / file).exists() or any(any((PACKAGE / name).rglob(file)) for name in names)
        assert found, f"{file} named in the cobe.{names[0]} row does not exist"


def test_the_architecture_names_only_files_of_the_repository() -> None:
    assert "../" not in ARCHITECTURE
    for path in set(re.findall(r"(?<![\w/])((?:docs|scripts|src|tests|benchmarks)/[\w./-]+\w)", ARCHITECTURE)):
        assert (ROOT / path).exists(), path
