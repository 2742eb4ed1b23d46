"""The review and contribution web app: reviewers, the admin and audit experts, each by private link."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.templating import Jinja2Templates

from cobe.core.errors import CobeError
from cobe.curate import audit as audit_mod
from cobe.curate.checks import stored_results
from cobe.curate.contributions import submit_contribution
from cobe.curate.project import Project, now, open_project
from cobe.curate.review import Reviewer, disagreements, queue, record_review, resolve, reviewer_for_token, reviews_of
from cobe.web.security import CSRF_FIELD, clear_session_cookie, security_headers, session_id_of, set_session_cookie
from cobe.web.tokens import csrf_token, csrf_valid, hash_token, new_token

HERE = Path(__file__).parent
FORM_FIELDS = (
    "domain",
    "story",
    "intervention",
    "original_condition",
    "illustrative_answer",
    "preserve",
    "change",
    "graph",
)
CSS = """body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.45}
.story{background:#f4f4f4;padding:.6rem 1rem;border-left:4px solid #888}.fail{color:#a00}.ok{color:#070}
textarea,input[type=text]{width:100%}label{display:block;margin-top:.6rem}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2rem .5rem}.problems{color:#a00}.inline{display:inline}"""


class _Secret:
    """The CSRF signing secret, kept in the project so pages stay valid across restarts."""

    @staticmethod
    def get(project: Project) -> str:
        row = project.conn.execute("SELECT value FROM meta WHERE key = 'csrf_secret'").fetchone()
        if row:
            return str(row["value"])
        value = secrets.token_hex(32)
        with project.transaction() as conn:
            conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('csrf_secret', ?)", (value,))
        return _Secret.get(project)


def create_app(directory: str | Path) -> FastAPI:
    """The FastAPI app serving the project in `directory`."""
    root = Path(directory)
    open_project(root).close()  # fail early, and run migrations once, before serving
    templates = Jinja2Templates(directory=str(HERE / "templates"))  # autoescapes .html
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.middleware("http")(security_headers)

    def page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
        return templates.TemplateResponse(request, name, context, status_code=status)

    def who(request: Request, project: Project) -> tuple[Reviewer, str] | None:
        sid = session_id_of(request)
        if not sid:
            return None
        row = project.conn.execute(
            "SELECT r.name, r.role FROM sessions s JOIN reviewers r ON r.name = s.reviewer WHERE s.id_hash = ?",
            (hash_token(sid),),
        ).fetchone()
        if row is None:
            return None
        return Reviewer(row["name"], row["role"]), csrf_token(_Secret.get(project), sid)

    def guarded(request: Request, role: str | None, handler: Any) -> Response:
        # one place for sign-in, role and error handling, so no route can forget them
        with open_project(root) as project:
            found = who(request, project)
            if found is None:
                return page(
                    request,
                    "curate_message.html",
                    {"title": "Sign in", "message": "Open your private link to sign in."},
                    status=401,
                )
            person, csrf = found
            if role is not None and person.role != role:
                return page(
                    request,
                    "curate_message.html",
                    {"title": "Not allowed", "message": f"This page is for the {role}."},
                    status=403,
                )
            try:
                return handler(project, person, csrf)
            except CobeError as exc:
                return page(request, "curate_message.html", {"title": "Not done", "message": str(exc)}, status=400)

    async def posted(request: Request, project: Project) -> dict[str, str] | None:
        form = await request.form()
        data = {k: str(v) for k, v in form.items()}
        if not csrf_valid(_Secret.get(project), session_id_of(request), data.get(CSRF_FIELD)):
            return None
        return data

    def expired_form(request: Request) -> Response:
        # a missing or stale CSRF token: refuse without writing anything
        return page(
            request,
            "curate_message.html",
            {"title": "Expired form", "message": "The form expired; reload the page and try again."},
            status=403,
        )

    @app.get("/style.css")
    def style() -> Response:
        return Response(CSS, media_type="text/css")

    @app.get("/r/{token}")
    def sign_in(request: Request, token: str) -> Response:
        with open_project(root) as project:
            person = reviewer_for_token(project, token)
            if person is None:
                return page(
                    request,
                    "curate_message.html",
                    {"title": "Unknown link", "message": "This link is not valid."},
                    status=404,
                )
            sid = new_token()
            with project.transaction() as conn:
                conn.execute(
                    "INSERT INTO sessions (id_hash, reviewer, created_at) VALUES (?,?,?)",
                    (hash_token(sid), person.name, now()),
                )
        # the token leaves the address bar at once; the session cookie carries the sign-in
        response = RedirectResponse("/", status_code=303)
        set_session_cookie(response, request, sid)
        return response

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request) -> Response:
        def handler(project: Project, person: Reviewer, csrf: str) -> Response:
            if person.role == "admin":
                return RedirectResponse("/admin", status_code=303)
            if person.role == "expert":
                return RedirectResponse("/audit", status_code=303)
            return page(
                request,
                "curate_home.html",
                {"title": "Review", "person": person, "csrf": csrf, "items": queue(project, person.name)},
            )

        return guarded(request, None, handler)

    @app.get("/item/{item_id}", response_class=HTMLResponse)
    def item_page(request: Request, item_id: str) -> Response:
        def handler(project: Project, person: Reviewer, csrf: str) -> Response:
            item = project.item(item_id)
            return page(
                request,
                "curate_item.html",
                {
                    "title": f"Item {item.id}",
                    "person": person,
                    "csrf": csrf,
                    "item": item,
                    "s": item.scenario,
                    "checks": stored_results(project, item.id),
                    "mine": [r for r in reviews_of(project, item.id) if r["reviewer"] == person.name],
                },
            )

        return guarded(request, None, handler)

    @app.post("/item/{item_id}/review")
    async def review_post(request: Request, item_id: str) -> Response:
        with open_project(root) as project:
            data = await posted(request, project)
        if data is None:
            return expired_form(request)

        def handler(project: Project, person: Reviewer, csrf: str) -> Response:
            if person.role != "reviewer":
                return page(
                    request,
                    "curate_message.html",
                    {"title": "Not allowed", "message": "Only reviewers review items."},
                    status=403,
                )
            record_review(project, item_id, person.name, data.get("decision", ""), data.get("comment", ""))
            return RedirectResponse("/", status_code=303)

        return guarded(request, None, handler)

    @app.get("/admin", response_class=HTMLResponse)
    def admin_page(request: Request) -> Response:
        def handler(project: Project, person: Reviewer, csrf: str) -> Response:
            open_items = [(i, reviews_of(project, i.id), stored_results(project, i.id)) for i in disagreements(project)]
            return page(
                request,
                "curate_admin.html",
                {
                    "title": "Disagreements",
                    "person": person,
                    "csrf": csrf,
                    "open_items": open_items,
                    "counts": project.status_counts(),
                },
            )

        return guarded(request, "admin", handler)

    @app.post("/admin/resolve/{item_id}")
    async def resolve_post(request: Request, item_id: str) -> Response:
        with open_project(root) as project:
            data = await posted(request, project)
        if data is None:
            return expired_form(request)

        def handler(project: Project, person: Reviewer, csrf: str) -> Response:
            resolve(project, item_id, person.name, data.get("decision", ""), data.get("reason", ""))
            return RedirectResponse("/admin", status_code=303)

        return guarded(request, "admin", handler)

    @app.get("/contribute", response_class=HTMLResponse)
    def contribute_page(request: Request) -> Response:
        def handler(project: Project, person: Reviewer, csrf: str) -> Response:
            return page(
                request,
                "curate_contribute.html",
                {"title": "Contribute", "person": person, "csrf": csrf, "form": {}, "problems": [], "added": None},
            )

        return guarded(request, None, handler)

    @app.post("/contribute", response_class=HTMLResponse)
    async def contribute_post(request: Request) -> Response:
        with open_project(root) as project:
            data = await posted(request, project)
        if data is None:
            return expired_form(request)

        def handler(project: Project, person: Reviewer, csrf: str) -> Response:
            form = {k: data.get(k, "") for k in FORM_FIELDS}
            added, problems = submit_contribution(project, form, actor=f"form:{person.name}")
            return page(
                request,
                "curate_contribute.html",
                {
                    "title": "Contribute",
                    "person": person,
                    "csrf": csrf,
                    "form": {} if added else form,
                    "problems": [str(p) for p in problems],
                    "added": added,
                },
                status=200 if added else 422,
            )

        return guarded(request, None, handler)

    @app.get("/audit", response_class=HTMLResponse)
    def audit_page(request: Request) -> Response:
        def handler(project: Project, person: Reviewer, csrf: str) -> Response:
            audit_id = _expert_audit(person)
            return page(
                request,
                "curate_audit.html",
                {
                    "title": f"Audit {audit_id}",
                    "person": person,
                    "csrf": csrf,
                    "items": audit_mod.audit_items(project, audit_id),
                },
            )

        return guarded(request, "expert", handler)

    @app.post("/audit", response_class=HTMLResponse)
    async def audit_post(request: Request) -> Response:
        with open_project(root) as project:
            data = await posted(request, project)
        if data is None:
            return expired_form(request)

        def handler(project: Project, person: Reviewer, csrf: str) -> Response:
            audit_id = _expert_audit(person)
            for item in audit_mod.audit_items(project, audit_id):
                scores = {s: data.get(f"{s}_{item.id}", "") for s in audit_mod.SCALES}
                audit_mod.rate_item(project, audit_id, person.name, item.id, scores, where=f"item {item.id}")
            audit_mod.rate_sample(project, audit_id, person.name, data.get("diversity", ""), data.get("feedback", ""))
            return page(request, "curate_message.html", {"title": "Thank you", "message": "Your ratings are saved."})

        return guarded(request, "expert", handler)

    @app.post("/logout")
    async def logout(request: Request) -> Response:
        response = RedirectResponse("/", status_code=303)
        sid = session_id_of(request)
        with open_project(root) as project:
            data = await posted(request, project)
            if data is not None and sid:
                with project.transaction() as conn:
                    conn.execute("DELETE FROM sessions WHERE id_hash = ?", (hash_token(sid),))
        clear_session_cookie(response)
        return response

    return app


def _expert_audit(person: Reviewer) -> int:
    # expert names are issued as a<audit id>-expert<k> by create_audit
    return int(person.name.split("-", 1)[0][1:])
