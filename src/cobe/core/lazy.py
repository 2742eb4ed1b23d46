"""Packages whose public names load on first use, each name written once: in the package's `__init__.pyi`
stub, as `from MODULE import NAME as NAME`. Type checkers read the stub as the package; `attach` reads
the same lines to import each name's module when the name is first asked for.

    # cobe/run/__init__.py
    __getattr__, __all__ = attach(__name__, __file__)
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any


def stub_exports(init_file: str) -> dict[str, tuple[str, str]]:
    """public name → (module, name there) of every absolute `from ... import` in the stub beside `init_file`."""
    tree = ast.parse(Path(init_file).with_suffix(".pyi").read_text(encoding="utf-8"))
    return {
        alias.asname or alias.name: (node.module, alias.name)
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module and not node.level and node.module != "__future__"
        for alias in node.names
    }


def attach(package: str, init_file: str) -> tuple[Callable[[str], Any], list[str]]:
    """(`__getattr__`, `__all__`) of a package whose public names its `__init__.pyi` lists."""
    exports = stub_exports(init_file)

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = exports[name]
        return getattr(import_module(module), attribute)

    return __getattr__, sorted(exports)
