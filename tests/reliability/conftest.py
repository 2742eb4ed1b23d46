"""Fixtures of the reliability suite: a dataset, a clean working dir and the fake provider.

The suite attacks cobe the way an adversarial user would (hostile files, flags and provider
faults) through the real CLI, the real store and the real local HTTP server.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reliability_helpers import provider_env

from support.openai_server import ThreadedServer
from support.run_data import write_dataset
from support.workdir import isolated  # noqa: F401  (a fixture, registered by importing it)


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    """Three scenarios → 9 items with templates A, B, C."""
    return write_dataset(tmp_path / "data.jsonl", 3)


@pytest.fixture
def fake(openai_server: ThreadedServer, monkeypatch: pytest.MonkeyPatch) -> ThreadedServer:
    """The fake OpenAI-protocol server, its URL and key where `openai-api/fake/...` reads them."""
    for name, value in provider_env(openai_server).items():
        monkeypatch.setenv(name, value)
    return openai_server
