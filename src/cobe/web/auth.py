"""Who is asking, and whether their form is genuine: the session and CSRF checks every route of both apps uses.

A route depends on `signed_in` (401 without a live session) and reads a POST only through `read_form`,
which refuses a missing or foreign CSRF token (403), uploads and binary fields (400), and fields over
their size limit (400, naming the field and the limit).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from fastapi import HTTPException, Request
from starlette.datastructures import UploadFile

from cobe.web.limits import MAX_COMMENT, too_long
from cobe.web.security import CSRF_FIELD, session_id_of
from cobe.web.tokens import csrf_token, csrf_valid

P = TypeVar("P")

SIGN_IN_FIRST = "Open the private link you were given to start or resume."
LINK_NOT_VALID = "This link is not valid (it may have been replaced by a new one, or revoked)."
FORM_EXPIRED = "The form expired or did not come from this site; reload the page and try again."


@dataclass(frozen=True)
class Auth(Generic[P]):
    """A signed-in request: the app's principal, its session id, and the CSRF token its forms carry."""

    principal: P
    session_id: str
    csrf: str


def signed_in(request: Request, lookup: Callable[[str], P | None], secret: str) -> Auth[P]:
    """The request's live session, looked up with the app's `lookup`; 401 when there is none."""
    session_id = session_id_of(request)
    principal = lookup(session_id) if session_id else None
    if principal is None or session_id is None:
        raise HTTPException(401, SIGN_IN_FIRST)
    return Auth(principal, session_id, csrf_token(secret, session_id))


@dataclass
class PostedForm:
    """The text fields of a POST whose CSRF token checked out, and any that are over their size limit."""

    fields: dict[str, str]
    too_long: list[str] = field(default_factory=list)

    def get(self, name: str, default: str = "") -> str:
        """One field's text ('' when absent)."""
        return self.fields.get(name, default)


async def read_form(
    request: Request,
    auth: Auth[P],
    secret: str,
    limits: Mapping[str, int] | None = None,
    *,
    refuse_too_long: bool = True,
) -> PostedForm:
    """The form of a POST: 403 unless its CSRF token is this session's; each field is held to its limit
    in `limits` (MAX_COMMENT characters for any other), and one over it answers 400 unless the caller
    asks to show the problems itself (`refuse_too_long=False`)."""
    form = await request.form()
    fields: dict[str, str] = {}
    for name, value in form.multi_items():
        if isinstance(value, UploadFile):
            raise HTTPException(400, f"{name}: file uploads are not accepted here.")
        fields[name] = value
    if not csrf_valid(secret, auth.session_id, fields.get(CSRF_FIELD)):
        raise HTTPException(403, FORM_EXPIRED)
    limits = limits or {}
    posted = PostedForm(fields)
    for name, value in fields.items():
        problem = too_long(name, value, limits.get(name, MAX_COMMENT))
        if problem:
            posted.too_long.append(problem)
    if posted.too_long and refuse_too_long:
        raise HTTPException(400, "; ".join(posted.too_long) + ".")
    return posted
