"""The study admin's pages: progress per rater and the CSV export of every answer."""

from __future__ import annotations

import csv
import io

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from cobe.annotate.routes.context import Admin, Site

router = APIRouter()


def spreadsheet_safe(value: str) -> str:
    """Prefix cells a spreadsheet would run as a formula (CSV injection)."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


@router.get("/admin", response_class=HTMLResponse)
def admin_page(request: Request, site: Site, auth: Admin) -> HTMLResponse:
    """Progress per rater."""
    return site.page(
        request,
        "admin.html",
        principal=auth.principal,
        progress=site.store.progress(),
        n_items=len(site.store.items()),
        csrf=auth.csrf,
    )


@router.get("/admin/export.csv")
def export(site: Site, auth: Admin) -> Response:
    """Every answer as CSV: rater, item key, label, comment, time."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["rater", "item", "label", "comment", "answered_at"])
    for r in site.store.all_ratings():
        writer.writerow([r.rater, r.item_key, r.label, spreadsheet_safe(r.comment), r.answered_at])
    return Response(
        buffer.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="ratings.csv"'},
    )
