"""Signing in by private link, and out."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from cobe.curate.links import end_session, reviewer_for_token, start_session
from cobe.curate.routes.context import Posted, ProjectDep, Session, Site
from cobe.web.auth import LINK_NOT_VALID
from cobe.web.security import clear_session_cookie, set_session_cookie

router = APIRouter()
START_PAGE = {"admin": "/admin", "expert": "/audit", "reviewer": "/"}


# The token is in the path only here. The answer sets the cookie and is a small page that moves on to a
# token-free URL (a meta refresh from our own page, so the SameSite=Strict cookie is sent even when the
# link was opened from another site, e.g. webmail; a redirect would still count as cross-site).
@router.get("/r/{token}", response_class=HTMLResponse)
def sign_in(request: Request, site: Site, project: ProjectDep, token: str) -> Response:
    """Anyone's private link: reviewer, admin or audit expert."""
    person = reviewer_for_token(project, token, site.access)
    if person is None:
        raise HTTPException(403, LINK_NOT_VALID)
    target = START_PAGE.get(person.role, "/")
    response = site.page(request, "curate_landing.html", {"title": "Signed in", "person": person, "target": target})
    set_session_cookie(response, request, start_session(project, person.name, site.access))
    return response


@router.post("/logout")
def logout(site: Site, project: ProjectDep, auth: Session, form: Posted) -> Response:
    """End this session (the link signs in again)."""
    end_session(project, auth.session_id, site.access)
    response = RedirectResponse("/", status_code=303)
    clear_session_cookie(response)
    return response
