"""What every route of the rating app needs: the study, page rendering, and who is signed in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.responses import HTMLResponse
from starlette.templating import Jinja2Templates

from cobe.annotate.store import Principal, StudyStore
from cobe.web.auth import Auth, PostedForm, read_form, signed_in


@dataclass(frozen=True)
class RatingSite:
    """One served study: its store, the CSRF secret, the templates and the title raters see."""

    store: StudyStore
    secret: str
    templates: Jinja2Templates
    title: str

    def page(self, request: Request, name: str, status: int = 200, **context: object) -> HTMLResponse:
        """Render a template with the study title (never the run's name: raters rate blind)."""
        return self.templates.TemplateResponse(
            request, name, {"title": self.title, "status_code": status, **context}, status_code=status
        )

    def error_page(self, request: Request, status: int, message: str) -> HTMLResponse:
        """The page every error is shown on."""
        return self.page(request, "error.html", status=status, message=message, principal=None)


def site(request: Request) -> RatingSite:
    """The study this app serves."""
    found: RatingSite = request.app.state.site
    return found


Site = Annotated[RatingSite, Depends(site)]


def session(request: Request, site: Site) -> Auth[Principal]:
    """The signed-in rater or admin; 401 without a live session."""
    return signed_in(request, site.store.session_principal, site.secret)


def rater(auth: Annotated[Auth[Principal], Depends(session)]) -> Auth[Principal]:
    """A signed-in rater; 403 for the admin."""
    if auth.principal.role != "rater":
        raise HTTPException(403, "This page is for raters.")
    return auth


def admin(auth: Annotated[Auth[Principal], Depends(session)]) -> Auth[Principal]:
    """The signed-in admin; 403 for raters."""
    if auth.principal.role != "admin":
        raise HTTPException(403, "This page is for the study admin.")
    return auth


async def posted(request: Request, site: Site, auth: Annotated[Auth[Principal], Depends(session)]) -> PostedForm:
    """The POSTed form, after its CSRF token and field sizes were checked."""
    return await read_form(request, auth, site.secret)


Session = Annotated[Auth[Principal], Depends(session)]
Rater = Annotated[Auth[Principal], Depends(rater)]
Admin = Annotated[Auth[Principal], Depends(admin)]
Posted = Annotated[PostedForm, Depends(posted)]
