"""Choose respondent templates and turn one scenario into the messages a respondent sees."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from cobe.core.errors import InputError
from cobe.dataset.queries import invert_had, read_clauses
from cobe.dataset.schema import Scenario
from cobe.models.base import Message, is_truncated
from cobe.prompts.templates import Template, load_templates, template_fields

DEFAULT_TEMPLATES: tuple[str, ...] = ("A", "B", "C")
DEFAULT_FINAL_MARKER = "Final story:"
#: the line that opens the request block of the tier 3-4 templates (after an "Original story:" block)
REQUEST_BLOCK = "Rewrite prompt:"
#: why a response is left unscored without a judge call, by code (summary.json counts the codes)
UNJUDGED_REASONS: dict[str, str] = {
    "truncated": "the reply was cut off by the token limit (finish reason: length)",
    "no_final_marker": "the reply has no final-story marker line, so there is no story to judge",
}


def _ordered(templates: dict[str, Template]) -> list[Template]:
    return sorted(templates.values(), key=lambda t: (t.tier, t.phrasing))


def select_templates(
    names: Sequence[str] | None = None,
    tier: int | None = None,
    *,
    directory: str | None = None,
) -> list[Template]:
    """Templates by name (case-insensitive) plus every template of `tier`; A, B, C when neither is given."""
    known = load_templates(directory)
    by_key = {name.upper(): template for name, template in known.items()}
    if names is None and tier is None:
        names = DEFAULT_TEMPLATES
    chosen: dict[str, Template] = {}
    for name in names or ():
        template = by_key.get(name.strip().upper())
        if template is None:
            listing = ", ".join(t.name for t in _ordered(known))
            raise InputError(f"unknown template {name!r}; known templates: {listing}")
        chosen[template.name] = template
    if tier is not None:
        in_tier = [t for t in known.values() if t.tier == tier]
        if not in_tier:
            tiers = ", ".join(str(n) for n in sorted({t.tier for t in known.values()}))
            raise InputError(f"no templates in tier {tier}; known tiers: {tiers}")
        for template in in_tier:
            chosen.setdefault(template.name, template)
    return _ordered(chosen)


def _clean(value: str | None) -> str | None:
    """A field value without surrounding space or a final period; None when blank."""
    if value is None or not value.strip():
        return None
    return value.strip().rstrip(".").rstrip()


def available_fields(scenario: Scenario) -> dict[str, str | None]:
    """Every placeholder value the scenario gives: its own fields first, else what its tier-1 queries state.

    Official files carry no `intervention` field, so the clause is read back out of the scenario's
    own queries (phrasing B states it plainly; A and C in its inverted "had …" form). The original
    condition is never stated by a query, so it comes from the field alone.
    """
    intervention = _clean(scenario.intervention)
    if intervention is not None:
        if_clause: str | None = intervention
        had_clause: str | None = None  # inverted only when a template asks, so a bad clause fails there
    else:
        read = read_clauses(scenario.queries)
        if_clause, had_clause = _clean(read.if_clause), _clean(read.had_clause)
    return {
        "story": scenario.story,
        "intervention": if_clause,
        "if_clause": if_clause,
        "original_condition": _clean(scenario.original_condition),
        "had_clause": had_clause,
    }


def uses_fallback(scenario: Scenario, template: Template) -> bool:
    """Whether the template falls back to its wording without {original_condition} for this scenario."""
    return (
        template.fallback_text is not None
        and "original_condition" in template.fields
        and _clean(scenario.original_condition) is None
    )


def _missing(scenario: Scenario, template: Template, name: str) -> InputError:
    where = {
        "original_condition": "an `original_condition` field",
        "had_clause": "an `intervention` field or a query in phrasing A, B or C to read the clause from",
    }.get(name, "an `intervention` field or a query in phrasing B ('… what would have happened if <clause>.')")
    return InputError(
        f"scenario {scenario.id}: template {template.name} needs {{{name}}}, but the scenario has no {where}"
    )


def render_fields(scenario: Scenario, template: Template) -> tuple[str, dict[str, str]]:
    """(the template text to fill, the values of its placeholders); InputError naming the scenario when one is missing."""
    text = template.fallback_text if uses_fallback(scenario, template) and template.fallback_text else template.text
    needed = template_fields(text)
    available = available_fields(scenario)
    if "had_clause" in needed and available["had_clause"] is None and available["intervention"] is not None:
        try:
            available["had_clause"] = invert_had(available["intervention"])
        except InputError as exc:
            # name the item, since this surfaces while rendering a whole dataset
            raise InputError(f"scenario {scenario.id}: {exc}") from None
    values: dict[str, str] = {}
    for name in sorted(needed):
        value = available[name]
        if value is None:
            raise _missing(scenario, template, name)
        values[name] = value
    return text, values


def respondent_messages(scenario: Scenario, template: Template) -> list[Message] | None:
    """The respondent's chat for one scenario × template; None only when a tier-1 phrasing is absent.

    Tiers 2–4 never skip silently: a scenario that cannot fill the template raises InputError.
    """
    if template.tier == 1:
        # tier 1 sends the dataset's own query, so official wording reaches the model unchanged
        if template.phrasing >= len(scenario.queries):
            return None
        content = f"{scenario.story}\n\n{scenario.queries[template.phrasing]}"
    else:
        text, values = render_fields(scenario, template)
        content = text.format_map(values).strip()
    return [Message(role="user", content=content)]


def query_text(scenario: Scenario, template: Template, prompt: str) -> str:
    """The request as the respondent read it: the dataset's query, else the prompt without the story."""
    if template.tier == 1:
        return scenario.queries[template.phrasing] if template.phrasing < len(scenario.queries) else ""
    _, marker, after = prompt.rpartition(REQUEST_BLOCK)
    if marker:  # tiers 3-4 put the request in its own block after the story
        return after.strip()
    return prompt[len(scenario.story) :].strip() if prompt.startswith(scenario.story) else prompt


def _marker_pattern(marker: str) -> re.Pattern[str]:
    """The marker, case-insensitive, tolerant of spacing and markdown (e.g. '**Final story:**')."""
    words = marker.strip().rstrip(":").split()
    body = r"\s+".join(re.escape(word) for word in words)
    colon = r"[*_\s]*:" if marker.strip().endswith(":") else ""
    return re.compile(body + colon, re.IGNORECASE)


def extract_final_story(text: str, marker: str = DEFAULT_FINAL_MARKER) -> str:
    """The text after the last `marker` (markdown around it dropped), or the whole text when absent."""
    matches = list(_marker_pattern(marker).finditer(text))
    if not matches:
        return text.strip()
    # the last marker wins: reasoning may quote the marker before the real final story
    tail = text[matches[-1].end() :]
    return tail.lstrip("*_ \t").strip()


@dataclass(frozen=True)
class Judged:
    """What the judge is shown for one response, or why it is shown nothing."""

    text: str | None  # the story to judge; None when the response is unscored without a judge call
    unjudged: str | None = None  # a code of UNJUDGED_REASONS

    @property
    def reason(self) -> str | None:
        """The unjudged code in words."""
        return UNJUDGED_REASONS[self.unjudged] if self.unjudged else None


def judged_text(template: Template, raw: str, finish_reason: str | None = None) -> Judged:
    """The story a judge sees: a reply cut off by the token limit, or a marker template's reply without
    its marker, is never judged whole; it is unscored with that reason."""
    if is_truncated(finish_reason):
        return Judged(None, "truncated")
    if template.final_marker:
        if not _marker_pattern(template.final_marker).search(raw):
            return Judged(None, "no_final_marker")
        return Judged(extract_final_story(raw, template.final_marker))
    return Judged(raw)
