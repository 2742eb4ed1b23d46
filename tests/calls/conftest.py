"""Fixtures for the call path tests: synthetic datasets in the native shape, a clean working dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.run_data import write_dataset
from support.workdir import isolate


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    """Four scenarios → 12 items per model with templates A, B, C."""
    return write_dataset(tmp_path / "data.jsonl", 4)


@pytest.fixture(autouse=True)
def _workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Default run dirs land in the test's tmp dir; no COBE_* of the caller's shell leaks in."""
    isolate(tmp_path, monkeypatch)
