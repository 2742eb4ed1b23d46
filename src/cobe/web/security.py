"""Security helpers shared by cobe's web apps: tokens, sessions by cookie, CSRF, headers, log redaction.

Nothing here knows about rating studies, so the dataset-review app can reuse it as is:
- tokens are random (`secrets`), stored only as SHA-256 hashes, compared with `hmac.compare_digest`;
- a private link carries its token in the URL path once; the app then sets an HttpOnly,
  SameSite=Strict session cookie and sends the browser on to a token-free URL;
- a CSRF token is an HMAC of the session id under a server secret, checked on every POST;
- every response carries a strict Content-Security-Policy, X-Frame-Options and no-referrer.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

SESSION_COOKIE = "cobe_session"
CSRF_FIELD = "csrf_token"
COOKIE_MAX_AGE = 30 * 24 * 3600  # persistent, so a rater resumes after closing the browser

SECURITY_HEADERS: dict[str, str] = {
    # no inline script or style is needed anywhere, so nothing but our own files may load
    "Content-Security-Policy": "default-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    # URLs may carry a token on the first visit; never send them to another site
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


def new_token() -> str:
    """A fresh 256-bit URL-safe random token."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """SHA-256 hex digest: what is stored instead of the token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    """Whether a presented token hashes to a stored hash, compared in constant time."""
    return hmac.compare_digest(hash_token(token), stored_hash)


def csrf_token(secret: str, session_id: str) -> str:
    """The CSRF token bound to one session: HMAC-SHA256(secret, session id)."""
    return hmac.new(secret.encode("utf-8"), b"csrf:" + session_id.encode("utf-8"), hashlib.sha256).hexdigest()


def csrf_valid(secret: str, session_id: str | None, presented: str | None) -> bool:
    """Whether a form's CSRF token belongs to this session (constant-time compare)."""
    if not session_id or not presented:
        return False
    return hmac.compare_digest(csrf_token(secret, session_id), presented)


def session_id_of(request: Request) -> str | None:
    """The session id from the session cookie, if any."""
    return request.cookies.get(SESSION_COOKIE) or None


def set_session_cookie(response: Response, request: Request, session_id: str) -> None:
    """Set the session cookie: HttpOnly, SameSite=Strict, Secure whenever served over HTTPS."""
    response.set_cookie(
        SESSION_COOKIE,
        session_id,
        max_age=COOKIE_MAX_AGE,
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
