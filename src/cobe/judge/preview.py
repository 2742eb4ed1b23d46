"""What a respondent and a judge receive for one scenario and one response, or one audit probe
(`cobe prompts show`).

The messages are built by the same functions a run (and the judge audit) uses, so what is shown is exactly
what is sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cobe.core.errors import InputError
from cobe.core.results import CHECKS
from cobe.dataset.schema import Scenario
from cobe.judge.audit_probes import Pool, probe_case
from cobe.judge.prompt_sets import JudgePromptSet
from cobe.models.base import Message
from cobe.prompts.render import NO_MARKER_NOTE, judged_text, respondent_messages, unphrased_reason
from cobe.prompts.templates import Template


@dataclass(frozen=True)
class PromptView:
    """One call's messages: who receives them and under which template or check."""

    receiver: str  # "respondent" or "judge"
    title: str  # "template H2", "check preserve (prompt set paper)"
    messages: list[Message]


@dataclass
class Preview:
    """The calls a scenario and response lead to, and notes on what is not sent (an unjudged reply)."""

    views: list[PromptView]
    notes: list[str]


def find_scenario(scenarios: Sequence[Scenario], scenario_id: str, source: str) -> Scenario:
    """The scenario with this id, or one line naming the file and a few ids it does hold."""
    for scenario in scenarios:
        if scenario.id == scenario_id:
            return scenario
    some = ", ".join(s.id for s in scenarios[:5]) + (", …" if len(scenarios) > 5 else "")
    raise InputError(f"{source}: no scenario with id {scenario_id!r}; it holds {some or 'no scenarios'}")


def preview(
    scenario: Scenario,
    *,
    template: Template | None = None,
    response: str | None = None,
    prompts: JudgePromptSet | None = None,
    checks: Sequence[str] = CHECKS,
) -> Preview:
    """The respondent's messages under `template`, and the judge's for `response` under each check.

    With a reasoning template (H2) the judge is shown the story after the reply's marker line, as in a
    run; a reply without the marker is judged whole, which the notes say.
    """
    out = Preview([], [])
    if template is not None:
        messages = respondent_messages(scenario, template)
        if messages is None:
            raise InputError(
                unphrased_reason(scenario, template) or f"scenario {scenario.id}: template {template.name}"
            )
        out.views.append(PromptView("respondent", f"template {template.name}", messages))
    if response is None or prompts is None:
        return out
    shown = judged_text(template, response) if template is not None else None
    if shown is not None and shown.text is None:
        out.notes.append(f"no judge call: this reply would be unscored ({shown.reason})")
        return out
    if shown is not None and shown.no_marker:
        out.notes.append(NO_MARKER_NOTE.replace("was judged", "is judged"))
    story = shown.text if shown is not None and shown.text is not None else response
    for check in checks:
        messages = prompts.messages(check, scenario, story)
        out.views.append(PromptView("judge", f"check {check} (prompt set {prompts.name})", messages))
    return out


def probe_preview(
    scenario: Scenario, probe: str, pool: Sequence[Scenario], prompts: JudgePromptSet, checks: Sequence[str] = CHECKS
) -> Preview:
    """The judge's messages for one audit probe of `scenario` (`pool`: the data another story's rewrite comes
    from), each check as the audit sends it; what the construction did is a note."""
    case = probe_case(probe, scenario, Pool.of(pool) if probe == "swapped" else Pool(pool))
    if isinstance(case, str):
        raise InputError(f"scenario {scenario.id}: no {probe} probe: {case}")
    out = Preview([], [case.note] if case.note else [])
    for check in checks:
        messages = prompts.messages(check, case.scenario, case.answer)
        out.views.append(PromptView("judge", f"probe {probe}, check {check} (prompt set {prompts.name})", messages))
    return out
