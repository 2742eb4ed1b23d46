"""The rating web app: FastAPI + server-rendered Jinja2 pages; plain HTML forms, no JavaScript needed."""

# no `from __future__ import annotations`: FastAPI must evaluate Depends() on local closures
import csv
import io
from importlib.resources import files
from pathlib import Path
from typing import Annotated

from fastapi import Depends, FastAPI, Form, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.templating import Jinja2Templates

from cobe.annotate.store import LABELS, Principal, StudyStore
from cobe.web import security

HERE = Path(str(files("cobe.annotate")))
MAX_COMMENT = 4000


def _templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.autoescape = True  # every stored text (stories, responses, comments) renders as text
    return templates


def _spreadsheet_safe(value: str) -> str:
    """Prefix cells a spreadsheet would run as a formula (CSV injection)."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def create_app(study_db_path: str | Path) -> FastAPI:
    """The app for one study file; every request opens its own SQLite connection."""
    store = StudyStore(study_db_path)
    secret = store.secret()
    templates = _templates()
    title = store.meta("title", "Rating study")
    app = FastAPI(title="cobe rating study", docs_url=None, redoc_url=None, openapi_url=None)
    app.middleware("http")(security.security_headers)

    def page(request: Request, name: str, status: int = 200, **context: object) -> HTMLResponse:
        return templates.TemplateResponse(
            request, name, {"title": title, "status_code": status, **context}, status_code=status
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> HTMLResponse:
        return page(request, "error.html", status=exc.status_code, message=exc.detail, principal=None)

    def session(request: Request) -> tuple[Principal, str]:
        session_id = security.session_id_of(request)
        principal = store.session_principal(session_id) if session_id else None
        if principal is None:
            raise HTTPException(401, "Open the private link you were given to start or resume.")
        return principal, session_id

    def rater(auth: Annotated[tuple[Principal, str], Depends(session)]) -> tuple[Principal, str]:
        if auth[0].role != "rater":
            raise HTTPException(403, "This page is for raters.")
        return auth

    def admin(auth: Annotated[tuple[Principal, str], Depends(session)]) -> tuple[Principal, str]:
        if auth[0].role != "admin":
            raise HTTPException(403, "This page is for the study admin.")
        return auth

    def check_csrf(session_id: str, presented: str) -> None:
        if not security.csrf_valid(secret, session_id, presented):
            raise HTTPException(403, "The form expired or did not come from this site; reload the page and try again.")

    def sign_in(request: Request, token: str, role: str, target: str) -> HTMLResponse:
        principal = store.principal_by_token(token)
        if principal is None or principal.role != role:
            raise HTTPException(403, "This link is not valid (it may have been replaced by a new one).")
        response = page(request, "landing.html", principal=principal, target=target)
        security.set_session_cookie(response, request, store.new_session(principal.id))
        return response

    @app.get("/style.css", include_in_schema=False)
    def style() -> FileResponse:
        return FileResponse(HERE / "static" / "style.css", media_type="text/css")

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request) -> Response:
        session_id = security.session_id_of(request)
        principal = store.session_principal(session_id) if session_id else None
        if principal is None:
            raise HTTPException(401, "Open the private link you were given to start or resume.")
        return RedirectResponse("/admin" if principal.role == "admin" else "/rate", status_code=303)

    # The token is in the path only here. The answer sets the cookie and is a small page that
    # moves on to a token-free URL (a meta refresh from our own page, so the SameSite=Strict
    # cookie is sent even when the link was opened from another site, e.g. webmail).
    @app.get("/r/{token}", response_class=HTMLResponse)
    def rater_link(request: Request, token: str) -> HTMLResponse:
        return sign_in(request, token, "rater", "/rate")

    @app.get("/a/{token}", response_class=HTMLResponse)
    def admin_link(request: Request, token: str) -> HTMLResponse:
        return sign_in(request, token, "admin", "/admin")

    @app.post("/logout")
    def logout(
        auth: Annotated[tuple[Principal, str], Depends(session)], csrf_token: Annotated[str, Form()] = ""
    ) -> Response:
        check_csrf(auth[1], csrf_token)
        store.end_session(auth[1])
        response = RedirectResponse("/bye", status_code=303)
        security.clear_session_cookie(response)
        return response

    @app.get("/bye", response_class=HTMLResponse)
    def bye(request: Request) -> HTMLResponse:
        return page(
            request, "error.html", message="You are signed out. Your private link signs you in again.", principal=None
        )

    # ---- rating ------------------------------------------------------------------------
    def next_open(order: list[int], answered: set[int], after: int = 0) -> int | None:
        """1-based position of the next unanswered item after `after`, wrapping round; None when all are done."""
        n = len(order)
        for step in range(n):
            pos = (after + step) % n + 1
            if order[pos - 1] not in answered:
                return pos
        return None

    @app.get("/rate")
    def resume(auth: Annotated[tuple[Principal, str], Depends(rater)]) -> RedirectResponse:
        order = store.assignment(auth[0].id)
        pos = next_open(order, set(store.ratings_of(auth[0].id)))
        return RedirectResponse(f"/rate/{pos}" if pos else "/done", status_code=303)

    @app.get("/rate/{position}", response_class=HTMLResponse)
    def item_page(
        request: Request, position: int, auth: Annotated[tuple[Principal, str], Depends(rater)]
    ) -> HTMLResponse:
        principal, session_id = auth
        order = store.assignment(principal.id)
        if not 1 <= position <= len(order):
            raise HTTPException(404, f"There is no item {position}; you have {len(order)}.")
        ratings = store.ratings_of(principal.id)
        item = store.item(order[position - 1])
        return page(
            request,
            "item.html",
            principal=principal,
            item=item,
            position=position,
            total=len(order),
            answered=len(ratings),
            rating=ratings.get(item.id),
            labels=LABELS,
            csrf=security.csrf_token(secret, session_id),
        )

    @app.post("/rate/{position}")
    def save(
        position: int,
        auth: Annotated[tuple[Principal, str], Depends(rater)],
        item_id: Annotated[str, Form()] = "",
        label: Annotated[str, Form()] = "",
        comment: Annotated[str, Form()] = "",
        csrf_token: Annotated[str, Form()] = "",
    ) -> RedirectResponse:
        principal, session_id = auth
        check_csrf(session_id, csrf_token)
        order = store.assignment(principal.id)
        # the item must be the one at this position of THIS rater's assignment; anything else is tampering
        if not 1 <= position <= len(order) or not item_id.isdigit() or int(item_id) != order[position - 1]:
            raise HTTPException(400, "That item is not part of your assignment.")
        if label not in LABELS:
            raise HTTPException(400, "Choose Yes, No or Other before saving.")
        if not store.save_rating(principal.id, int(item_id), label, comment.strip()[:MAX_COMMENT]):
            raise HTTPException(400, "That item is not part of your assignment.")
        pos = next_open(order, set(store.ratings_of(principal.id)), after=position)
        return RedirectResponse(f"/rate/{pos}" if pos else "/done", status_code=303)

    @app.get("/items", response_class=HTMLResponse)
    def item_list(request: Request, auth: Annotated[tuple[Principal, str], Depends(rater)]) -> HTMLResponse:
        principal, session_id = auth
        order = store.assignment(principal.id)
        ratings = store.ratings_of(principal.id)
        rows = [(pos, store.item(item_id), ratings.get(item_id)) for pos, item_id in enumerate(order, start=1)]
        return page(
            request,
            "list.html",
            principal=principal,
            rows=rows,
            total=len(order),
            answered=len(ratings),
            csrf=security.csrf_token(secret, session_id),
        )

    @app.get("/done", response_class=HTMLResponse)
    def done(request: Request, auth: Annotated[tuple[Principal, str], Depends(rater)]) -> HTMLResponse:
        principal, session_id = auth
        total, answered = len(store.assignment(principal.id)), len(store.ratings_of(principal.id))
        return page(
            request,
            "done.html",
            principal=principal,
            total=total,
            answered=answered,
            csrf=security.csrf_token(secret, session_id),
        )

    # ---- admin -------------------------------------------------------------------------
    @app.get("/admin", response_class=HTMLResponse)
    def admin_page(request: Request, auth: Annotated[tuple[Principal, str], Depends(admin)]) -> HTMLResponse:
        return page(
            request,
            "admin.html",
            principal=auth[0],
            progress=store.progress(),
            n_items=len(store.items()),
            csrf=security.csrf_token(secret, auth[1]),
        )

    @app.get("/admin/export.csv")
    def export(auth: Annotated[tuple[Principal, str], Depends(admin)]) -> Response:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(["rater", "item", "label", "comment", "answered_at"])
        for r in store.all_ratings():
            writer.writerow([r.rater, r.item_key, r.label, _spreadsheet_safe(r.comment), r.answered_at])
        return Response(
            buffer.getvalue(),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": 'attachment; filename="ratings.csv"'},
        )

    return app


def serve(study: str | Path, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run the app with uvicorn; the access log is off so no URL (and no token) is ever logged."""
    import uvicorn

    app = create_app(study)
    security.install_log_redaction()
    uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning", server_header=False)
