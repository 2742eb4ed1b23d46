"""The rating web app: FastAPI + server-rendered Jinja2 pages; plain HTML forms, no JavaScript needed."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI

from cobe.annotate.routes import admin, auth, rating
from cobe.annotate.routes.context import RatingSite
from cobe.annotate.store import ACCESS_TABLES, StudyStore
from cobe.web.access import Access, Clock, SessionPolicy, utc_now
from cobe.web.pages import new_app, templates
from cobe.web.serving import listen
from cobe.web.serving import serve as serve_app

HERE = Path(str(files("cobe.annotate")))


def create_app(study_db_path: str | Path, *, policy: SessionPolicy | None = None, clock: Clock = utc_now) -> FastAPI:
    """The app for one study file; every request opens its own SQLite connection."""
    store = StudyStore(study_db_path)
    store.access = Access(ACCESS_TABLES, policy, clock)
    site = RatingSite(
        store=store,
        secret=store.secret(),
        templates=templates(HERE / "templates"),
        title=store.meta("title", "Rating study") or "Rating study",
    )
    app = new_app(site.error_page)
    app.state.site = site
    for area in (auth, rating, admin):
        app.include_router(area.router)
    return app


def serve(study: str | Path, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run the app with uvicorn; the access log is off so no URL (and no token) is ever logged."""
    serve_app(create_app(study), listen(host, port))
