"""A run reads its store one item at a time: the whole-run reads are never made, and the exports stay
byte for byte the golden files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_pipeline import GOLDEN, golden_exports

from cobe.store.store import Store


def test_runs_and_exports_never_load_every_response_or_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def whole_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a whole-run read of responses or verdicts")

    monkeypatch.setattr(Store, "responses", whole_run)
    monkeypatch.setattr(Store, "verdicts", whole_run)
    monkeypatch.chdir(tmp_path)
    got = golden_exports(tmp_path)
    assert len(got) == 9
    for key, text in got.items():
        assert text == (GOLDEN / key).read_text(encoding="utf-8"), key
