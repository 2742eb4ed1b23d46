"""The HTTP side of the web apps' security: session cookies, response headers, a body-size cap, log redaction.

- a private link carries its token in the URL path once; the app then sets an HttpOnly,
  SameSite=Strict session cookie and sends the browser on to a token-free URL;
- every response carries a strict Content-Security-Policy, X-Frame-Options and no-referrer;
- a request body over MAX_BODY_BYTES is refused with 413 before the app has read more than that;
- no URL reaches a log with its token (the access log is off, and a filter redacts what slips through).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cobe.web.access import SESSION_ABSOLUTE
from cobe.web.limits import MAX_BODY_BYTES

SESSION_COOKIE = "cobe_session"
CSRF_FIELD = "csrf_token"
# the server decides when a session ends (cobe.web.access); the cookie only has to live as long as the longest one
COOKIE_MAX_AGE = int(SESSION_ABSOLUTE.total_seconds())

SECURITY_HEADERS: dict[str, str] = {
    # no inline script or style is needed anywhere, so nothing but our own files may load
    "Content-Security-Policy": "default-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    # URLs may carry a token on the first visit; never send them to another site
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


def session_id_of(request: Request) -> str | None:
    """The session id from the session cookie, if any."""
    return request.cookies.get(SESSION_COOKIE) or None


def set_session_cookie(response: Response, request: Request, session_id: str, max_age: int = COOKIE_MAX_AGE) -> None:
    """Set the session cookie: HttpOnly, SameSite=Strict, Secure whenever served over HTTPS."""
    response.set_cookie(
        SESSION_COOKIE,
        session_id,
        max_age=max_age,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )


def clear_session_cookie(response: Response) -> None:
    """Remove the session cookie."""
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")


async def security_headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    """HTTP middleware (`app.middleware("http")(security_headers)`) adding SECURITY_HEADERS to every response."""
    response = await call_next(request)
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


class BodyLimit:
    """ASGI middleware: a request body over `max_bytes` (declared or streamed) ends in 413 with a clear message.

    The refusal is raised from `receive`, i.e. inside the route that reads the form, so the app's own
    error page answers it.
    """

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"0")
        too_large = not declared.isdigit() or int(declared) > self.max_bytes
        received = 0

        async def limited() -> Message:
            nonlocal received
            if too_large:
                raise self.refusal()
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:  # a chunked body may declare no length at all
                    raise self.refusal()
            return message

        await self.app(scope, limited, send)

    def refusal(self) -> HTTPException:
        """The 413 answer."""
        limit = f"{self.max_bytes // 1024:,} KB"
        return HTTPException(413, f"The form is too large to accept (at most {limit}); shorten the text and try again.")


# a path segment after one of these prefixes is a token (e.g. /r/<token>, /a/<token>)
_TOKEN_PATH = re.compile(r"(/(?:r|a|review|t)/)[A-Za-z0-9_\-]{16,}")


def redact(text: str) -> str:
    """Text with any token in a link path replaced by '***'."""
    return _TOKEN_PATH.sub(r"\1***", text)


class RedactTokens(logging.Filter):
    """A logging filter that strips tokens from log records (belt and braces next to no access log)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        record.msg = redact(str(record.msg))
        return True


def install_log_redaction() -> None:
    """Attach RedactTokens to uvicorn's loggers, in case someone turns the access log back on."""
    for name in ("uvicorn", "uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())
