"""A rater's pages: resume, one item at a time (show and save), the list of their items, the end."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from cobe.annotate.routes.context import Posted, Rater, Site
from cobe.annotate.store import LABELS
from cobe.web.tokens import parse_id

router = APIRouter()
NOT_YOURS = "That item is not part of your assignment."


def next_open(order: list[int], answered: set[int], after: int = 0) -> int | None:
    """1-based position of the next unanswered item after `after`, wrapping round; None when all are done."""
    n = len(order)
    for step in range(n):
        pos = (after + step) % n + 1
        if order[pos - 1] not in answered:
            return pos
    return None


def _next_url(site: Site, rater_id: int, order: list[int], after: int = 0) -> str:
    pos = next_open(order, set(site.store.ratings_of(rater_id)), after=after)
    return f"/rate/{pos}" if pos else "/done"


@router.get("/rate")
def resume(site: Site, auth: Rater) -> RedirectResponse:
    """Go to the first unanswered item."""
    order = site.store.assignment(auth.principal.id)
    return RedirectResponse(_next_url(site, auth.principal.id, order), status_code=303)


@router.get("/rate/{position}", response_class=HTMLResponse)
def item_page(request: Request, site: Site, auth: Rater, position: str) -> HTMLResponse:
    """The item at one position of the rater's own order, with their saved answer if any."""
    order = site.store.assignment(auth.principal.id)
    pos = parse_id(position)
    if pos is None or not 1 <= pos <= len(order):
        raise HTTPException(404, f"There is no item {position}; you have {len(order)}.")
    ratings = site.store.ratings_of(auth.principal.id)
    item = site.store.item(order[pos - 1])
    return site.page(
        request,
        "item.html",
        principal=auth.principal,
        item=item,
        position=pos,
        total=len(order),
        answered=len(ratings),
        rating=ratings.get(item.id),
        labels=LABELS,
        csrf=auth.csrf,
    )


@router.post("/rate/{position}")
def save(site: Site, auth: Rater, form: Posted, position: str) -> RedirectResponse:
    """Save (or change) the answer for the item at this position, then go to the next open one."""
    order = site.store.assignment(auth.principal.id)
    pos, item_id = parse_id(position), parse_id(form.get("item_id"))
    # the item must be the one at this position of THIS rater's assignment; anything else is tampering
    if pos is None or item_id is None or not 1 <= pos <= len(order) or item_id != order[pos - 1]:
        raise HTTPException(400, NOT_YOURS)
    label = form.get("label")
    if label not in LABELS:
        raise HTTPException(400, "Choose Yes, No or Other before saving.")
    if not site.store.save_rating(auth.principal.id, item_id, label, form.get("comment").strip()):
        raise HTTPException(400, NOT_YOURS)
    return RedirectResponse(_next_url(site, auth.principal.id, order, after=pos), status_code=303)


@router.get("/items", response_class=HTMLResponse)
def item_list(request: Request, site: Site, auth: Rater) -> HTMLResponse:
    """Every item of the rater's order with their answer so far."""
    order = site.store.assignment(auth.principal.id)
    ratings = site.store.ratings_of(auth.principal.id)
    rows = [(pos, site.store.item(item_id), ratings.get(item_id)) for pos, item_id in enumerate(order, start=1)]
    return site.page(
        request,
        "list.html",
        principal=auth.principal,
        rows=rows,
        total=len(order),
        answered=len(ratings),
        csrf=auth.csrf,
    )


@router.get("/done", response_class=HTMLResponse)
def done(request: Request, site: Site, auth: Rater) -> HTMLResponse:
    """The thank-you page, with how many items are answered."""
    total, answered = len(site.store.assignment(auth.principal.id)), len(site.store.ratings_of(auth.principal.id))
    return site.page(request, "done.html", principal=auth.principal, total=total, answered=answered, csrf=auth.csrf)
