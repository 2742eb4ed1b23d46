"""Run a test module on each HTTP transport the SDK providers speak through (COBE_HTTP_TRANSPORT).

A module opts in with `pytestmark = pytest.mark.usefixtures("http_transport")`: each of its tests then runs
once with aiohttp (the default where installed) and once with httpx (the fallback), the variable inherited by
any `cobe` subprocess the test starts.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cobe.models.sdk import TRANSPORTS


@pytest.fixture(params=TRANSPORTS)
def http_transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """COBE_HTTP_TRANSPORT set to each transport in turn; the transport's name."""
    monkeypatch.setenv("COBE_HTTP_TRANSPORT", request.param)
    yield request.param
