"""Fixtures for the run tests: synthetic datasets in the native shape, a clean working dir."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
PYTHON = sys.executable


def scenario(i: int) -> dict:
    """A small invented scenario (no paper text) with the three tier-1 queries."""
    had = f"the baker {i} had closed early"
    return {
        "id": f"{i}v0", "core_id": i, "variation": 0, "domain": "Daily life",
        "story": f"Baker {i} kept the shop open late because a festival was on. Many visitors bought bread, so the shelves were empty by night.",
        "queries": [
            f"Rewrite the original text, based on what would have happened instead had the baker {i} closed early.",
            f"Based on the preceding text, rewrite the scenario to reflect what would have happened if {had}.",
            f"Rewrite the above passage to illustrate what would have occurred had the baker {i} closed early.",
        ],
        "illustrative_answer": f"Instead, baker {i} closed the shop early although a festival was on. Few visitors bought bread, so the shelves stayed full.",
        "preserve": ["A festival was on."], "change": ["Many visitors bought bread."],
        "intervention": had,
    }


def write_dataset(path: Path, n: int) -> Path:
    """A native JSONL file of `n` synthetic scenarios."""
    path.write_text("".join(json.dumps(scenario(i)) + "\n" for i in range(1, n + 1)), encoding="utf-8")
    return path


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    """Four scenarios → 12 items per model with templates A, B, C."""
    return write_dataset(tmp_path / "data.jsonl", 4)


@pytest.fixture(autouse=True)
def _workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Default run dirs land in the test's tmp dir; no COBE_* from the caller's shell leaks in."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("COBE_"):
            monkeypatch.delenv(name)
