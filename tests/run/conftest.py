"""Fixtures for the run tests: synthetic datasets in the native shape, a clean working dir."""

from __future__ import annotations

import sys
from pathlib import Path

from support.run_data import scenario, write_dataset  # noqa: F401  (re-exported for fixtures)
from support.workdir import data_file, isolated  # noqa: F401  (fixtures, registered by importing them)

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
PYTHON = sys.executable
