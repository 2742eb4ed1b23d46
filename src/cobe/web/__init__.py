"""What cobe's two web apps (human rating, dataset review) share, so both follow one security policy.

- `tokens`: random tokens, their SHA-256 hashes, constant-time checks, CSRF tokens, ids from forms;
- `access`: private links (rotate, revoke) and sessions with idle and absolute expiry, over SQLite;
- `limits`: request-body, form-field and JSON size limits;
- `security`: session cookies, security headers, the body-size middleware, log redaction;
- `auth`, `pages`: the FastAPI side (session and CSRF checks, the app skeleton and its error pages).

The first three use the standard library only, so the CLI can issue and hash links without FastAPI.
"""

from cobe.web.access import SESSION_ABSOLUTE, SESSION_IDLE, Access, AccessTables, SessionPolicy
from cobe.web.tokens import csrf_token, csrf_valid, hash_token, new_token, parse_id, token_matches

__all__ = [
    "SESSION_ABSOLUTE",
    "SESSION_IDLE",
    "Access",
    "AccessTables",
    "SessionPolicy",
    "csrf_token",
    "csrf_valid",
    "hash_token",
    "new_token",
    "parse_id",
    "token_matches",
]
