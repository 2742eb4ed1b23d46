"""What the hosted-API providers share: loading an SDK lazily, its HTTP pool, the request timeout."""

from __future__ import annotations

import math
import os
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from cobe.core.errors import InputError
from cobe.core.extras import require

DEFAULT_TIMEOUT_S = 120.0
# the pool is sized above any sensible --concurrency; connections open lazily, so it costs nothing
POOL_SIZE = 1024


def import_sdk(spec: str, module: str, extra: str) -> ModuleType:
    """The SDK module, imported only when a spec needs it, or a one-line install hint."""
    return require(module, extra, spec)


#: COBE_HTTP_TRANSPORT's values; the first is the default
TRANSPORTS = ("aiohttp", "httpx")


def http_transport() -> str:
    """The HTTP transport COBE_HTTP_TRANSPORT names: aiohttp (the default) or httpx."""
    raw = os.environ.get("COBE_HTTP_TRANSPORT", "").strip().lower()
    if not raw:
        return TRANSPORTS[0]
    if raw not in TRANSPORTS:
        raise InputError(f"COBE_HTTP_TRANSPORT={raw!r}: expected one of {', '.join(TRANSPORTS)}")
    return raw


def pooled_http_client(sdk: Any) -> Any:
    """The SDK's own async HTTP client with a pool large enough for cobe's concurrency.

    aiohttp (the SDK's `DefaultAioHttpClient`, its `[aiohttp]` extra) where it is installed: about a third
    less CPU per call than httpx's pool, which scans its connections on every request; httpx otherwise, or
    where COBE_HTTP_TRANSPORT=httpx asks. Either way the client is httpx's interface (the aiohttp one
    is an httpx client over an aiohttp transport), so requests, timeouts, errors and closing are the SDK's
    own; the limits class comes from the SDK's constants, whichever HTTP library that version is built on.
    """
    limits = type(sdk._constants.DEFAULT_CONNECTION_LIMITS)(
        max_connections=POOL_SIZE, max_keepalive_connections=POOL_SIZE
    )
    aiohttp_client = getattr(sdk, "DefaultAioHttpClient", None)  # absent from SDKs older than the transport
    if aiohttp_client is not None and http_transport() == "aiohttp":
        try:
            # the transport's aiohttp connector takes max_connections as its limit
            return aiohttp_client(limits=limits)
        except RuntimeError:  # the SDK's stand-in when aiohttp is not installed: httpx it is
            pass
    return sdk.DefaultAsyncHttpxClient(limits=limits)


def client_url(url: str | None) -> dict[str, Any]:
    """`base_url` and `default_query` for an SDK client of a base URL: the URL without its userinfo or query, and
    the query's fields, which the client sends with every request. httpx makes `user:secret@` in a URL HTTP Basic
    auth, which took the place of OpenAI's bearer key (and went beside Anthropic's and Gemini's): userinfo is
    dropped, never made a credential unasked. A query left in the URL came before the SDK's path (`/v1/?k=v` +
    `chat/completions`), so no request reached the API; as `default_query` it travels as the URL gave it."""
    if url is None:
        return {"base_url": None}
    try:
        parts = urlsplit(url)
        bare = without_userinfo(urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")))
    except ValueError:  # not a URL: the SDK says so, as it always did
        return {"base_url": url}
    return {"base_url": bare, "default_query": dict(parse_qsl(parts.query, keep_blank_values=True)) or None}


def without_userinfo(url: str) -> str:
    """A base URL without its `user:secret@`, which httpx would otherwise send as HTTP Basic credentials."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, parts.query, parts.fragment))


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
