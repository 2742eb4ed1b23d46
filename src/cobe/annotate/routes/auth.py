"""Signing in by private link, the landing redirect, signing out."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from cobe.annotate.routes.context import Posted, Session, Site
from cobe.web.auth import LINK_NOT_VALID
from cobe.web.security import clear_session_cookie, set_session_cookie

router = APIRouter()


@router.get("/")
def home(auth: Session) -> RedirectResponse:
    """Send a signed-in person to their work."""
    return RedirectResponse("/admin" if auth.principal.role == "admin" else "/rate", status_code=303)


def _sign_in(request: Request, site: Site, token: str, role: str, target: str) -> HTMLResponse:
    principal = site.store.principal_by_token(token)
    if principal is None or principal.role != role:
        raise HTTPException(403, LINK_NOT_VALID)
    response = site.page(request, "landing.html", principal=principal, target=target)
    set_session_cookie(response, request, site.store.new_session(principal.id))
    return response


# The token is in the path only here. The answer sets the cookie and is a small page that moves on to a
# token-free URL (a meta refresh from our own page, so the SameSite=Strict cookie is sent even when the
# link was opened from another site, e.g. webmail; a redirect would still count as cross-site).
@router.get("/r/{token}", response_class=HTMLResponse)
def rater_link(request: Request, site: Site, token: str) -> HTMLResponse:
    """A rater's private link."""
    return _sign_in(request, site, token, "rater", "/rate")


@router.get("/a/{token}", response_class=HTMLResponse)
def admin_link(request: Request, site: Site, token: str) -> HTMLResponse:
    """The admin's private link."""
    return _sign_in(request, site, token, "admin", "/admin")


@router.post("/logout")
def logout(site: Site, auth: Session, form: Posted) -> Response:
    """End this session (the link signs in again)."""
    site.store.end_session(auth.session_id)
    response = RedirectResponse("/bye", status_code=303)
    clear_session_cookie(response)
    return response


@router.get("/bye", response_class=HTMLResponse)
def bye(request: Request, site: Site) -> HTMLResponse:
    """The signed-out page."""
    return site.page(
        request, "error.html", message="You are signed out. Your private link signs you in again.", principal=None
    )
