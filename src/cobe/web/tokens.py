"""Tokens, their hashes, CSRF tokens and ids from forms: standard library only, so the CLI can hash at import.

- a private-link token or session id is 256 random bits (`secrets`), stored only as its SHA-256 hash;
- every comparison with a secret is constant-time (`hmac.compare_digest` on bytes);
- a CSRF token is HMAC-SHA256(server secret, session id), so it is bound to one session.

Anything a browser sends is untrusted text: non-ASCII where a token is expected is simply "no match"
(never an exception), and an id is only ever ASCII digits.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

_ID = re.compile(r"[0-9]{1,18}")  # 18 digits always fit in SQLite's 64-bit INTEGER


def new_token() -> str:
    """A fresh 256-bit URL-safe random token."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """SHA-256 hex digest: what is stored instead of the token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    """Whether a presented token hashes to a stored hash, compared in constant time."""
    return hmac.compare_digest(hash_token(token).encode("ascii"), stored_hash.encode("utf-8", "surrogatepass"))


def csrf_token(secret: str, session_id: str) -> str:
    """The CSRF token bound to one session: HMAC-SHA256(secret, session id)."""
    message = b"csrf:" + session_id.encode("utf-8", "surrogatepass")
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def csrf_valid(secret: str, session_id: str | None, presented: str | None) -> bool:
    """Whether a form's CSRF token belongs to this session (constant-time compare; any text is safe to pass)."""
    if not session_id or not presented or not presented.isascii():
        return False
    # bytes, not str: compare_digest raises TypeError on non-ASCII str, which once answered 500
    return hmac.compare_digest(csrf_token(secret, session_id).encode("ascii"), presented.encode("ascii"))


def parse_id(text: str) -> int | None:
    """A whole number (an id, a position) in ASCII digits, or None: '²' is a digit to str.isdigit, not here."""
    text = text.strip()
    if not _ID.fullmatch(text):
        return None
    return int(text)
