"""What every route of the review app needs: the project, page rendering, and who is signed in."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from fastapi.responses import HTMLResponse
from starlette.templating import Jinja2Templates

from cobe.curate.links import session_reviewer
from cobe.curate.project import Project, open_project
from cobe.curate.review import Reviewer
from cobe.web.access import Access
from cobe.web.auth import Auth, PostedForm, read_form, signed_in

ERROR_TITLES = {400: "Not done", 401: "Sign in", 403: "Not allowed", 404: "Not found", 413: "Too large"}


def csrf_secret(project: Project) -> str:
    """The CSRF signing secret, kept in the project so pages stay valid across restarts."""
    row = project.conn.execute("SELECT value FROM meta WHERE key = 'csrf_secret'").fetchone()
    if row:
        return str(row["value"])
    with project.transaction() as conn:
        conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('csrf_secret', ?)", (secrets.token_hex(32),))
        return str(conn.execute("SELECT value FROM meta WHERE key = 'csrf_secret'").fetchone()[0])


@dataclass(frozen=True)
class ReviewSite:
    """One served project: its directory, the CSRF secret, the templates, and the link and session policy."""

    root: Path
    secret: str
    templates: Jinja2Templates
    access: Access

    def page(self, request: Request, name: str, context: dict[str, Any], status: int = 200) -> HTMLResponse:
        """Render a template (every value is escaped: stories and comments render as text)."""
        return self.templates.TemplateResponse(request, name, context, status_code=status)

    def message(self, request: Request, title: str, message: str, status: int = 200) -> HTMLResponse:
        """A page with one message and no signed-in header."""
        return self.page(request, "curate_message.html", {"title": title, "message": message}, status=status)

    def error_page(self, request: Request, status: int, message: str) -> HTMLResponse:
        """The page every error is shown on."""
        return self.message(request, ERROR_TITLES.get(status, "Error"), message, status=status)


def site(request: Request) -> ReviewSite:
    """The project this app serves."""
    found: ReviewSite = request.app.state.site
    return found


Site = Annotated[ReviewSite, Depends(site)]


def project(site: Site) -> Iterator[Project]:
    """The project, opened for this request only."""
    with open_project(site.root) as opened:
        yield opened


ProjectDep = Annotated[Project, Depends(project)]


def session(request: Request, site: Site, project: ProjectDep) -> Auth[Reviewer]:
    """The signed-in person; 401 without a live session."""
    return signed_in(request, partial(session_reviewer, project, access=site.access), site.secret)


Session = Annotated[Auth[Reviewer], Depends(session)]


def _role(auth: Auth[Reviewer], *roles: str) -> Auth[Reviewer]:
    if auth.principal.role not in roles:
        raise HTTPException(403, f"This page is for the {' or the '.join(roles)}.")
    return auth


def reviewer(auth: Session) -> Auth[Reviewer]:
    """A signed-in reviewer."""
    return _role(auth, "reviewer")


def admin(auth: Session) -> Auth[Reviewer]:
    """The signed-in admin."""
    return _role(auth, "admin")


def expert(auth: Session) -> Auth[Reviewer]:
    """A signed-in audit expert."""
    return _role(auth, "expert")


def staff(auth: Session) -> Auth[Reviewer]:
    """A reviewer or the admin: the people who see items with their criteria (audit experts never do)."""
    return _role(auth, "reviewer", "admin")


async def posted(request: Request, site: Site, auth: Session) -> PostedForm:
    """The POSTed form, after its CSRF token and field sizes were checked."""
    return await read_form(request, auth, site.secret)


ReviewerAuth = Annotated[Auth[Reviewer], Depends(reviewer)]
AdminAuth = Annotated[Auth[Reviewer], Depends(admin)]
ExpertAuth = Annotated[Auth[Reviewer], Depends(expert)]
StaffAuth = Annotated[Auth[Reviewer], Depends(staff)]
Posted = Annotated[PostedForm, Depends(posted)]
