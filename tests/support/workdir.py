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
