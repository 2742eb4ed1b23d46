"""Choose respondent templates and turn one scenario into the messages a respondent sees."""

from __future__ import annotations

import re
from collections.abc import Sequence

from cobe.core.errors import InputError
from cobe.dataset.queries import invert_had
from cobe.dataset.schema import Scenario
from cobe.models.base import Message
from cobe.prompts.templates import Template, load_templates

DEFAULT_TEMPLATES: tuple[str, ...] = ("A", "B", "C")
DEFAULT_FINAL_MARKER = "Final story:"


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


def render_fields(scenario: Scenario, template: Template) -> dict[str, str] | None:
    """Values for the placeholders `template` uses, or None when the scenario lacks one of them."""
    intervention = _clean(scenario.intervention)
    available: dict[str, str | None] = {
        "story": scenario.story,
        "intervention": intervention,
        "if_clause": intervention,
        "original_condition": _clean(scenario.original_condition),
        "had_clause": None,
    }
    needed = template.fields
    if "had_clause" in needed and intervention is not None:
        try:
            available["had_clause"] = invert_had(intervention)
        except InputError as exc:
            # name the item, since this surfaces while rendering a whole dataset
            raise InputError(f"scenario {scenario.id}: {exc}") from None
    values = {name: available[name] for name in needed}
    if any(value is None for value in values.values()):
        return None
    return {name: value for name, value in values.items() if value is not None}


def respondent_messages(scenario: Scenario, template: Template) -> list[Message] | None:
    """The respondent's chat for one scenario × template; None when the scenario cannot fill it."""
    if template.tier == 1:
        # tier 1 sends the dataset's own query, so official wording reaches the model unchanged
        if template.phrasing >= len(scenario.queries):
            return None
        content = f"{scenario.story}\n\n{scenario.queries[template.phrasing]}"
    else:
        values = render_fields(scenario, template)
        if values is None:
            return None
        content = template.text.format_map(values).strip()
    return [Message(role="user", content=content)]


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


def story_to_judge(template: Template, raw: str) -> str:
    """What the judge should see for a response: the final story for marker templates, else `raw`."""
    if template.final_marker:
        return extract_final_story(raw, template.final_marker)
    return raw
