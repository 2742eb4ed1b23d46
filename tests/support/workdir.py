"""Run tests in their own directory, with none of the caller's COBE_* settings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def isolate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Default run dirs land in `tmp_path`; no COBE_* variable of the caller's shell leaks in."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("COBE_"):
            monkeypatch.delenv(name)


# fixtures a package's conftest takes by importing them (`from support.workdir import data_file, isolated`)
@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Default run dirs land in the test's tmp dir; no COBE_* of the caller's shell leaks in."""
    isolate(tmp_path, monkeypatch)


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    """Four scenarios in the native shape → 12 items per model with templates A, B, C."""
    from support.run_data import write_dataset

    return write_dataset(tmp_path / "data.jsonl", 4)
