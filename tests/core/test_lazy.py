"""Lazily loaded public names, listed once in a package's __init__.pyi."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import cobe
import cobe.dataset
import cobe.integrations
import cobe.judge
import cobe.run
import cobe.score
from cobe.core.lazy import attach, stub_exports

ROOT = Path(__file__).resolve().parents[2] / "src" / "cobe"


def write_stub(tmp_path: Path, text: str) -> str:
    (tmp_path / "__init__.pyi").write_text(text, encoding="utf-8")
    return str(tmp_path / "__init__.py")


def test_a_name_loads_its_module_when_first_asked_for(tmp_path: Path) -> None:
    init = write_stub(tmp_path, "# a comment\nfrom json import dumps as dumps\nfrom os.path import join as path_join\n")
    getattr_, names = attach("pkg", init)
    assert names == ["dumps", "path_join"]
    assert getattr_("path_join")("a", "b") == "a/b"
    with pytest.raises(AttributeError, match="'pkg' has no attribute 'loads'"):
        getattr_("loads")


@pytest.mark.parametrize("line", ["from json import dumps", "import json", "from json import dumps, loads"])
def test_any_other_line_is_refused_with_its_place(tmp_path: Path, line: str) -> None:
    with pytest.raises(ImportError, match=r"__init__\.pyi:1: expected `from MODULE import NAME as NAME`"):
        stub_exports(write_stub(tmp_path, line + "\n"))


@pytest.mark.parametrize("package", [cobe, cobe.run, cobe.score, cobe.integrations, cobe.judge, cobe.dataset])
def test_every_listed_name_of_the_packages_resolves(package) -> None:
    assert package.__all__ == sorted(stub_exports(package.__file__))
    for name in package.__all__:
        assert getattr(package, name) is not None, name


@pytest.mark.parametrize("package", [cobe, cobe.run, cobe.score, cobe.integrations, cobe.judge, cobe.dataset])
def test_dir_lists_the_public_names_and_no_machinery(package) -> None:
    # dir() is what tab completion and help() read: the names a user can call, not `attach` or `core`
    shown = dir(package)
    assert set(package.__all__) <= set(shown)
    assert "attach" not in shown and "core" not in shown


def test_dir_of_cobe_shows_the_api_a_user_reaches_for() -> None:
    assert {"run_eval", "results", "leaderboard", "report", "load_dataset", "__version__"} <= set(dir(cobe))


@pytest.mark.parametrize(("package", "name"), [(cobe.dataset, "validate"), (cobe.judge, "preview")])
def test_a_name_its_submodule_also_bears_stays_the_listed_object_once_that_submodule_is_imported(package, name):
    # importing cobe.dataset.validate binds the package's `validate`; it must stay the function the stub lists
    module_name, attribute = stub_exports(package.__file__)[name]
    module = importlib.import_module(module_name)
    assert getattr(package, name) is getattr(module, attribute)
    assert callable(getattr(package, name))
