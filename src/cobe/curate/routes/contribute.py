"""The contribution form: a new core-example candidate, checked by the dataset validator."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response

from cobe.curate.contributions import submit_contribution
from cobe.curate.review import contribution_actor
from cobe.curate.routes.context import ProjectDep, Site, StaffAuth
from cobe.web.auth import PostedForm, read_form
from cobe.web.limits import MAX_JSON_DEPTH, json_problem

# in characters; stories average ~40 words, so every limit is several times what a real example needs
LIMITS = {
    "domain": 100,
    "story": 2000,
    "intervention": 500,
    "original_condition": 500,
    "illustrative_answer": 2000,
    "preserve": 2000,
    "change": 2000,
    "graph": 20000,
}
MAX_GRAPH_DEPTH = MAX_JSON_DEPTH
FORM_FIELDS = tuple(LIMITS)

router = APIRouter()


async def contribution(request: Request, site: Site, auth: StaffAuth) -> PostedForm:
    """The posted contribution; fields over their limit are kept as problems to show beside the form."""
    return await read_form(request, auth, site.secret, LIMITS, refuse_too_long=False)


def _problems(form: PostedForm) -> list[str]:
    problems = list(form.too_long)
    # json.loads recurses once per level: deep nesting is refused before the validator parses the graph
    graph = json_problem("graph", form.get("graph"), LIMITS["graph"], MAX_GRAPH_DEPTH)
    if graph and graph not in problems:
        problems.append(graph)
    return problems


def _form_page(
    request: Request,
    site: Site,
    auth: StaffAuth,
    form: dict[str, str],
    problems: list[str],
    added: str | None = None,
    status: int = 200,
) -> Response:
    context = {"title": "Contribute", "person": auth.principal, "csrf": auth.csrf, "limits": LIMITS}
    return site.page(
        request,
        "curate_contribute.html",
        context | {"form": form, "problems": problems, "added": added},
        status=status,
    )


@router.get("/contribute", response_class=HTMLResponse)
def contribute_page(request: Request, site: Site, auth: StaffAuth) -> Response:
    """The empty form."""
    return _form_page(request, site, auth, {}, [])


@router.post("/contribute", response_class=HTMLResponse)
def contribute_post(
    request: Request,
    site: Site,
    project: ProjectDep,
    auth: StaffAuth,
    posted: Annotated[PostedForm, Depends(contribution)],
) -> Response:
    """Add the contribution as a candidate; over a size limit 400, invalid 422, each with the form and its problems."""
    form = {name: posted.get(name) for name in FORM_FIELDS}
    too_large = _problems(posted)
    if too_large:
        return _form_page(request, site, auth, form, too_large, status=400)
    added, found = submit_contribution(project, form, actor=contribution_actor(auth.principal.name))
    if added is None:
        return _form_page(request, site, auth, form, [str(p) for p in found], status=422)
    return _form_page(request, site, auth, {}, [], added=added)
