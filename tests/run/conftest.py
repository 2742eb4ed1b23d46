"""Fixtures for the run tests: synthetic datasets in the native shape, a clean working dir."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from support.run_data import scenario, write_dataset  # noqa: F401  (re-exported for fixtures)
from support.workdir import isolate

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
PYTHON = sys.executable


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    """Four scenarios → 12 items per model with templates A, B, C."""
    return write_dataset(tmp_path / "data.jsonl", 4)


@pytest.fixture(autouse=True)
def _workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Default run dirs land in the test's tmp dir; no COBE_* of the caller's shell leaks in."""
    isolate(tmp_path, monkeypatch)
