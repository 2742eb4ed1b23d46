"""What the hosted-API providers share: loading an SDK lazily, its HTTP pool, the request timeout."""

from __future__ import annotations

import math
import os
from types import ModuleType
from typing import Any

from cobe.core.errors import InputError
from cobe.core.extras import require

DEFAULT_TIMEOUT_S = 120.0
# the pool is sized above any sensible --concurrency; connections open lazily, so it costs nothing
POOL_SIZE = 1024


def import_sdk(spec: str, module: str, extra: str) -> ModuleType:
    """The SDK module, imported only when a spec needs it, or a one-line install hint."""
    return require(module, extra, spec)


def pooled_http_client(sdk: Any) -> Any:
    """The SDK's own async HTTP client with a pool large enough for cobe's concurrency.

    The limits class comes from the SDK's constants, so this works whichever HTTP library
    that SDK version is built on.
    """
    limits = type(sdk._constants.DEFAULT_CONNECTION_LIMITS)(
        max_connections=POOL_SIZE, max_keepalive_connections=POOL_SIZE
    )
    return sdk.DefaultAsyncHttpxClient(limits=limits)


def request_timeout() -> float:
    """Per-request timeout in seconds: COBE_REQUEST_TIMEOUT or 120."""
    raw = os.environ.get("COBE_REQUEST_TIMEOUT")
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"COBE_REQUEST_TIMEOUT={raw!r}: expected a positive number of seconds")
    return value
