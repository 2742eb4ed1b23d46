"""Signing in by private link, and out; the stylesheet."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from cobe.curate.links import end_session, reviewer_for_token, start_session
from cobe.curate.routes.context import Posted, ProjectDep, Session, Site
from cobe.web.auth import LINK_NOT_VALID
from cobe.web.security import clear_session_cookie, set_session_cookie

router = APIRouter()
CSS = """body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.45}
.story{background:#f4f4f4;padding:.6rem 1rem;border-left:4px solid #888}.fail{color:#a00}.ok{color:#070}
textarea,input[type=text]{width:100%}label{display:block;margin-top:.6rem}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2rem .5rem}.problems{color:#a00}.inline{display:inline}"""
START_PAGE = {"admin": "/admin", "expert": "/audit", "reviewer": "/"}


@router.get("/style.css")
def style() -> Response:
    """The one stylesheet (no inline styles anywhere, so the CSP can forbid them)."""
    return Response(CSS, media_type="text/css")


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
