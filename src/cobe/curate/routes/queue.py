"""A reviewer's queue, one item with its criteria and automatic checks, and the review decision."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from cobe.curate.checks import stored_results
from cobe.curate.review import contributed_by, queue, record_review, reviews_of
from cobe.curate.routes.context import Posted, ProjectDep, ReviewerAuth, Session, Site, StaffAuth

router = APIRouter()


@router.get("/", response_class=HTMLResponse)
def home(request: Request, site: Site, project: ProjectDep, auth: Session) -> Response:
    """The reviewer's queue; the admin and audit experts are sent to their own pages."""
    person = auth.principal
    if person.role == "admin":
        return RedirectResponse("/admin", status_code=303)
    if person.role == "expert":
        return RedirectResponse("/audit", status_code=303)
    items = queue(project, person.name)
    # an empty queue says what it waits for: imported candidates are reviewed only once promoted
    counts = None if items else project.status_counts()
    return site.page(
        request,
        "curate_home.html",
        {"title": "Review", "person": person, "csrf": auth.csrf, "items": items, "counts": counts},
    )


@router.get("/item/{item_id}", response_class=HTMLResponse)
def item_page(request: Request, site: Site, project: ProjectDep, auth: StaffAuth, item_id: str) -> Response:
    """One item: story, queries, criteria, automatic checks, and the review form when it is theirs to review."""
    item = project.item(item_id)
    person = auth.principal
    return site.page(
        request,
        "curate_item.html",
        {
            "title": f"Item {item.id}",
            "person": person,
            "csrf": auth.csrf,
            "item": item,
            "s": item.scenario,
            "checks": stored_results(project, item.id),
            "mine": [r for r in reviews_of(project, item.id) if r["reviewer"] == person.name],
            "own": item.id in contributed_by(project.conn, person.name),
        },
    )


@router.post("/item/{item_id}/review")
def review(project: ProjectDep, auth: ReviewerAuth, form: Posted, item_id: str) -> Response:
    """Record the reviewer's decision (the library refuses a second review and their own contribution)."""
    record_review(project, item_id, auth.principal.name, form.get("decision"), form.get("comment"))
    return RedirectResponse("/", status_code=303)
