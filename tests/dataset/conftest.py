"""Pytest fixtures for the dataset tests."""

from __future__ import annotations

from typing import Any

import pytest
from dataset_helpers import paper_record


@pytest.fixture
def record() -> dict[str, Any]:
    """A fresh valid paper record."""
    return paper_record()
