"""The admin's page: open disagreements with both reviews, and the recorded resolution."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from cobe.curate.checks import stored_results
from cobe.curate.review import disagreements, resolve, reviews_of
from cobe.curate.routes.context import AdminAuth, Posted, ProjectDep, Site

router = APIRouter()


@router.get("/admin", response_class=HTMLResponse)
def admin_page(request: Request, site: Site, project: ProjectDep, auth: AdminAuth) -> Response:
    """Every open disagreement, with its reviews and failed checks, and the counts per status."""
    open_items = [(i, reviews_of(project, i.id), stored_results(project, i.id)) for i in disagreements(project)]
    return site.page(
        request,
        "curate_admin.html",
        {
            "title": "Disagreements",
            "person": auth.principal,
            "csrf": auth.csrf,
            "open_items": open_items,
            "counts": project.status_counts(),
        },
    )


@router.post("/admin/resolve/{item_id}")
def resolve_post(project: ProjectDep, auth: AdminAuth, form: Posted, item_id: str) -> Response:
    """Record the admin's decision on one disagreement, with its reason."""
    resolve(project, item_id, auth.principal.name, form.get("decision"), form.get("reason"))
    return RedirectResponse("/admin", status_code=303)
