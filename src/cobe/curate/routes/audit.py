"""The expert audit form: the sampled items rated 1-5, blind to the criteria, and the sample's diversity."""

from __future__ import annotations

import re

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from cobe.curate import audit
from cobe.curate.review import Reviewer
from cobe.curate.routes.context import ExpertAuth, Posted, ProjectDep, Site

router = APIRouter()
_EXPERT = re.compile(r"a([0-9]{1,9})-expert[0-9]+")  # the names create_audit issues: a<audit id>-expert<k>


def expert_audit(person: Reviewer) -> int:
    """The audit an expert was issued for."""
    found = _EXPERT.fullmatch(person.name)
    if found is None:
        raise HTTPException(403, "This link does not belong to an audit.")
    return int(found.group(1))


@router.get("/audit", response_class=HTMLResponse)
def audit_page(request: Request, site: Site, project: ProjectDep, auth: ExpertAuth) -> Response:
    """The sample of the expert's audit: story, first query and illustrative answer, never the criteria."""
    audit_id = expert_audit(auth.principal)
    return site.page(
        request,
        "curate_audit.html",
        {
            "title": f"Audit {audit_id}",
            "person": auth.principal,
            "csrf": auth.csrf,
            "items": audit.audit_items(project, audit_id),
            "questions": audit.QUESTIONS,
            "diversity_question": audit.DIVERSITY_QUESTION,
            # what was saved before is shown again, so saving twice never loses an answer
            "saved": audit.saved_answers(project, audit_id, auth.principal.name),
        },
    )


@router.post("/audit", response_class=HTMLResponse)
def audit_post(request: Request, site: Site, project: ProjectDep, auth: ExpertAuth, form: Posted) -> Response:
    """Store the expert's answers on every sampled item and on the whole sample; blanks stay unanswered."""
    audit_id = expert_audit(auth.principal)
    answers = {
        item.id: {scale: form.get(f"{scale}_{item.id}") for scale in audit.SCALES}
        for item in audit.audit_items(project, audit_id)
    }
    unanswered, asked = audit.save_form(
        project, audit_id, auth.principal.name, answers, form.get("diversity"), form.get("feedback")
    )
    if unanswered:
        return site.message(
            request,
            "Saved, not finished",
            f"Your answers are saved. {unanswered} of {asked} questions are still unanswered; they are kept "
            "as unanswered, not as a score. Open your link again to answer them.",
        )
    return site.message(request, "Thank you", f"All {asked} answers are saved.")
