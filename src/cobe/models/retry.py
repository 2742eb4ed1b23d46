"""Transient-error classification and Retry-After parsing shared by the SDK providers."""

from __future__ import annotations

import json
import time
from email.utils import parsedate_to_datetime
from typing import Any

# 408 request timeout and 429 rate limit are transient; so is every 5xx (529 = overloaded)
_RETRYABLE_4XX = frozenset({408, 409, 429})
_TRANSPORT_NAMES = frozenset({"TransportError", "TimeoutException", "ClientConnectionError", "ServerTimeoutError"})
_HTTP_LIBS = frozenset({"httpx", "httpx2", "aiohttp", "httpcore"})
_AUTH_STATUSES = frozenset({401, 403})
# the SDKs' classes for 401 and 403, matched by name so this module imports no SDK
_AUTH_NAMES = frozenset({"AuthenticationError", "PermissionDeniedError"})
_BAD_KEY_MARKERS = ("API_KEY_INVALID", "API key not valid")


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an SDK exception carries, whatever the SDK calls the attribute."""
    for name in ("status_code", "code", "status"):
        value = getattr(exc, name, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def is_auth_error(exc: BaseException) -> bool:
    """Whether the server refused the credentials: 401/403, the SDKs' AuthenticationError and
    PermissionDeniedError, or Google's 400 API_KEY_INVALID. Never worth retrying."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & _AUTH_NAMES:
        return True
    status = status_of(exc)
    if status in _AUTH_STATUSES:
        return True
    # Google answers a bad key with 400 INVALID_ARGUMENT; only its reason tells it apart
    return status == 400 and any(marker in str(exc) for marker in _BAD_KEY_MARKERS)


def retryable_status(status: int | None) -> bool:
    """Whether an HTTP status means 'try again later'."""
    return status is not None and (status >= 500 or status in _RETRYABLE_4XX)


def is_transport_error(exc: BaseException) -> bool:
    """A lost connection or timeout below the SDK (httpx, httpx2, aiohttp or the OS)."""
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    # match by name so this module imports no HTTP library
    return any(
        cls.__name__ in _TRANSPORT_NAMES and cls.__module__.split(".")[0] in _HTTP_LIBS for cls in type(exc).__mro__
    )


#: the exception classes that say a request ran out of time, matched by name so this module imports no SDK
_TIMEOUT_NAMES = frozenset(
    {"APITimeoutError", "TimeoutException", "ReadTimeout", "WriteTimeout", "PoolTimeout", "ServerTimeoutError"}
)
#: a proxy's or a gateway's word for the same: its request to the server ran out of time
_TIMEOUT_STATUSES = frozenset({408, 504})


def is_timeout(exc: BaseException) -> bool:
    """Whether a call ran out of time: cobe's own per-attempt limit, the SDK's or its HTTP library's timeout
    (wherever in the cause chain), or a 408 / 504 from a proxy in front of the server."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, TimeoutError) or {cls.__name__ for cls in type(current).__mro__} & _TIMEOUT_NAMES:
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return status_of(exc) in _TIMEOUT_STATUSES


def is_malformed_body(exc: BaseException) -> bool:
    """A response body that was not the JSON promised: a server glitch worth retrying."""
    seen: set[int] = set()
    current: BaseException | None = exc
    # SDKs wrap the json error, so walk the cause chain
    while current is not None and id(current) not in seen:
        if isinstance(current, json.JSONDecodeError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def sdk_error_is_transient(sdk: Any, exc: BaseException) -> bool:
    """Whether an openai or anthropic SDK error is worth a retry: both SDKs raise the same classes.

    Connection errors (timeouts included), 408/409/429/5xx, bodies the SDK could not read, and
    transport errors raised around the SDK; never a 4xx the request itself caused.
    """
    if isinstance(exc, sdk.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, sdk.APIStatusError):
        return retryable_status(exc.status_code)
    if isinstance(exc, sdk.APIResponseValidationError):
        return True
    return is_malformed_body(exc) or is_transport_error(exc) or retryable_status(status_of(exc))


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def retry_after_from(exc: BaseException) -> float | None:
    """Retry-After (or OpenAI's retry-after-ms) from the response an SDK exception holds."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    return parse_retry_after(headers.get("retry-after"))


def word_count(text: str) -> int:
    """Whitespace word count: the token estimate for scripted and baseline providers."""
    return len(text.split())
