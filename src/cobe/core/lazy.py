"""Packages whose public names load on first use, each name written once: in the package's `__init__.pyi`
stub, one `from MODULE import NAME as NAME` per line. Type checkers read the stub as the package;
`attach` reads the same lines to import each name's module when the name is first asked for.

    # cobe/run/__init__.py
    __getattr__, __all__ = attach(__name__, __file__)

The package's `dir()` (what tab completion and `help()` read) then lists those names, not the machinery
its `__init__.py` imports (`attach`) or the subpackages loaded so far (`core`).
"""

from __future__ import annotations

import re
import sys
import types
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

# a regular expression, not `ast`: `import cobe` reads a stub, and parsing Python would double its cost
_EXPORT = re.compile(r"from ([\w.]+) import (\w+) as (\w+)")


def stub_exports(init_file: str) -> dict[str, tuple[str, str]]:
    """public name → (module, name there) of every import line of the stub beside `init_file`."""
    stub = init_file.removesuffix(".py") + ".pyi"
    exports: dict[str, tuple[str, str]] = {}
    with open(stub, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            found = _EXPORT.fullmatch(line)
            if found is None:  # any other form would be public to type checkers and missing at run time
                raise ImportError(f"{stub}:{number}: expected `from MODULE import NAME as NAME`, got {line!r}")
            module, name, public = found.groups()
            exports[public] = (module, name)
    return exports


class _Package(types.ModuleType):
    """A lazy package: a public name that one of its submodules also bears (`cobe.dataset.validate`, whose
    `validate` the package lists) stays the listed object when that submodule is imported, as an eager
    `from .validate import validate` in `__init__.py` left it; the import system would bind the module."""

    _lazy_exports: dict[str, tuple[str, str]]

    def __setattr__(self, name: str, value: Any) -> None:
        listed = self.__dict__.get("_lazy_exports", {}).get(name)
        if isinstance(value, types.ModuleType) and listed is not None and listed[0] == value.__name__:
            value = getattr(value, listed[1])
        super().__setattr__(name, value)


def attach(package: str, init_file: str, *, keep_listed: bool = False) -> tuple[Callable[[str], Any], list[str]]:
    """(`__getattr__`, `__all__`) of a package whose public names its `__init__.pyi` lists; its `dir()` lists them
    too (a module's `__dir__`, PEP 562, set on the package being initialised). With `keep_listed`, a listed name
    that one of its submodules also bears stays the listed object once that submodule is imported (`_Package`)."""
    exports = stub_exports(init_file)
    public = sorted(exports)

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = exports[name]
        return getattr(import_module(module), attribute)

    def __dir__() -> list[str]:
        return list(public)

    module = sys.modules.get(package)
    if module is not None:  # attach is called from the package's own __init__, while it is being imported
        module.__dir__ = __dir__  # type: ignore[method-assign]
        if keep_listed:  # a package that was eager before: its listed names win over its submodules, as they did
            module.__class__ = _Package
            module._lazy_exports = exports  # type: ignore[attr-defined]
    return __getattr__, list(public)
