"""The review and contribution web app: reviewers, the admin and audit experts, each by private link."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import Response

from cobe.core.errors import CobeError
from cobe.curate.links import ACCESS_TABLES
from cobe.curate.project import open_project
from cobe.curate.routes import admin, audit, auth, contribute, queue
from cobe.curate.routes.context import ReviewSite, csrf_secret
from cobe.web.access import Access, Clock, SessionPolicy, utc_now
from cobe.web.pages import new_app, templates

HERE = Path(__file__).parent


def create_app(directory: str | Path, *, policy: SessionPolicy | None = None, clock: Clock = utc_now) -> FastAPI:
    """The FastAPI app serving the project in `directory`; every request opens the project anew."""
    root = Path(directory)
    with open_project(root) as project:  # fail early, and run migrations once, before serving
        secret = csrf_secret(project)
    site = ReviewSite(root, secret, templates(HERE / "templates"), Access(ACCESS_TABLES, policy, clock))
    app = new_app(site.error_page)
    app.state.site = site
    app.add_exception_handler(CobeError, _not_done)
    for area in (auth, queue, contribute, audit, admin):
        app.include_router(area.router)
    return app


async def _not_done(request: Request, exc: Exception) -> Response:
    # a decision the workflow refuses (second review, own contribution, bad score) is shown, not raised
    site: ReviewSite = request.app.state.site
    return site.message(request, "Not done", str(exc), status=400)
