"""Choose respondent templates and turn one scenario into the messages a respondent sees."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from cobe.core.errors import InputError
from cobe.dataset.clauses import read_clauses
from cobe.dataset.queries import PHRASINGS, UNMATCHED, invert_had
from cobe.dataset.schema import Scenario
from cobe.models.base import Message, is_truncated
from cobe.prompts.templates import Template, load_templates, template_fields

DEFAULT_TEMPLATES: tuple[str, ...] = (*PHRASINGS, UNMATCHED)
DEFAULT_FINAL_MARKER = "Final story:"
#: the line that opens the request block of the tier 3-4 templates (after an "Original story:" block)
REQUEST_BLOCK = "Rewrite prompt:"
#: why a response is left unscored without a judge call, by code (summary.json counts the codes)
UNJUDGED_REASONS: dict[str, str] = {
    "truncated": "the reply was cut off by the token limit (finish reason: length)",
}
#: what a judge is shown of a reasoning template's reply without its marker line: all of it
NO_MARKER_NOTE = "no final-story marker line: the whole reply was judged"


class Unphrased(InputError):
    """A tier 2-4 template cannot be phrased for a scenario: no intervention could be read from it."""


def _ordered(templates: dict[str, Template]) -> list[Template]:
    return sorted(templates.values(), key=lambda t: (t.tier, t.phrasing))


def select_templates(
    names: Sequence[str] | None = None,
    tier: int | Sequence[int] | None = None,
    *,
    directory: str | None = None,
) -> list[Template]:
    """Templates by name (case-insensitive) plus every template of each tier given; A, B, C when neither is."""
    known = load_templates(directory)
    by_key = {name.upper(): template for name, template in known.items()}
    tiers = [] if tier is None else [tier] if isinstance(tier, int) else list(tier)
    if names is None and not tiers:
        names = DEFAULT_TEMPLATES
    chosen: dict[str, Template] = {}
    for name in names or ():
        template = by_key.get(name.strip().upper())
        if template is None:
            listing = ", ".join(t.name for t in _ordered(known))
            raise InputError(f"unknown template {name!r}; known templates: {listing}")
        chosen[template.name] = template
    for each in tiers:  # several tiers accumulate: one run holds the whole ablation (Table 7)
        in_tier = [t for t in known.values() if t.tier == each]
        if not in_tier:
            listing = ", ".join(str(n) for n in sorted({t.tier for t in known.values()}))
            raise InputError(f"no templates in tier {each}; known tiers: {listing}")
        for template in in_tier:
            chosen.setdefault(template.name, template)
    return _ordered(chosen)


def _clean(value: str | None) -> str | None:
    """A field value without surrounding space or a final period; None when blank."""
    if value is None or not value.strip():
        return None
    return value.strip().rstrip(".").rstrip()


def available_fields(scenario: Scenario) -> dict[str, str | None]:
    """Every placeholder value the scenario gives: its own fields first, else what its queries state.

    Official files carry no `intervention` field, so the clause is read back out of whichever queries
    the scenario has (`cobe.dataset.clauses`): the plain form ("Maya had taken the train") where one
    states it, the inverted one ("had Maya taken the train") where it is all they give. The original
    condition is never stated by a query, so it comes from the field alone.
    """
    intervention = _clean(scenario.intervention)
    if intervention is not None:
        if_clause: str | None = intervention
        had_clause: str | None = None  # inverted only when a wording asks for it
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


def _wordings(template: Template) -> list[tuple[str, str]]:
    """(kind, text) in order of preference: the template's own text, then its fallbacks."""
    kinds = (("text", template.text), ("fallback", template.fallback_text), ("had", template.had_text))
    return [(kind, text) for kind, text in kinds if text is not None]


def _fill(text: str, available: dict[str, str | None]) -> dict[str, str] | None:
    """The values of a wording's placeholders, or None when the scenario lacks one."""
    values = {name: available.get(name) for name in template_fields(text)}
    if any(value is None for value in values.values()):
        return None
    return {name: value for name, value in values.items() if value is not None}


def _with_had_clause(scenario: Scenario, available: dict[str, str | None]) -> tuple[dict[str, str | None], str | None]:
    """The fields with the inverted clause made from the plain one where no query stated it, and why it could not be."""
    if available["had_clause"] is not None or available["intervention"] is None:
        return available, None
    try:
        return available | {"had_clause": invert_had(available["intervention"])}, None
    except InputError as exc:
        return available, f"scenario {scenario.id}: {exc}"


def choose_wording(scenario: Scenario, template: Template) -> tuple[str, str, dict[str, str]]:
    """(kind, text, values) of the first wording of a tier 2-4 template the scenario fills: `text`, `fallback`
    (no original condition given) or `had` (the change known only as "had ..."); Unphrased when none fits."""
    available, problem = _with_had_clause(scenario, available_fields(scenario))
    for kind, text in _wordings(template):
        values = _fill(text, available)
        if values is not None:
            return kind, text, values
    raise Unphrased(problem or _missing(scenario, template, available))


def _missing(scenario: Scenario, template: Template, available: dict[str, str | None]) -> str:
    lacking = sorted(name for name in template.fields if available.get(name) is None)
    if available["if_clause"] is None and available["had_clause"] is None:
        where = (
            "`intervention` field and no query that states the change "
            "(e.g. '… what would have happened if <clause>.' or '… instead had <clause>.')"
        )
        return (
            f"scenario {scenario.id}: template {template.name} needs the intervention, but the scenario has no {where}"
        )
    name = lacking[0] if lacking else "a field"
    return f"scenario {scenario.id}: template {template.name} needs {{{name}}}, which the scenario does not give"


def wording_kind(scenario: Scenario, template: Template) -> str | None:
    """How a template is worded for a scenario: `query` (tier 1: the scenario's own query), `text`, `fallback`
    or `had` (see `choose_wording`); None when the pair cannot be made."""
    if template.tier == 1:
        return "query" if scenario.query_in(template.name) is not None else None
    try:
        return choose_wording(scenario, template)[0]
    except Unphrased:
        return None


def uses_fallback(scenario: Scenario, template: Template) -> bool:
    """Whether a tier 2-4 template falls back to another wording for this scenario (no original condition
    given, or the change known only in its "had ..." form)."""
    return wording_kind(scenario, template) in ("fallback", "had")


def unphrased_reason(scenario: Scenario, template: Template) -> str | None:
    """Why `respondent_messages` has nothing for this pair, in one line naming the scenario; None when it has."""
    if template.tier == 1:
        if scenario.query_in(template.name) is None:
            return f"scenario {scenario.id}: has no query in phrasing {template.name}"
        return None
    try:
        choose_wording(scenario, template)
    except Unphrased as exc:
        return str(exc)
    return None


def respondent_messages(scenario: Scenario, template: Template) -> list[Message] | None:
    """The respondent's chat for one scenario × template; None when the scenario has no query in a tier-1
    phrasing, or a tier 2-4 template cannot be phrased for it (`unphrased_reason` says why)."""
    if template.tier == 1:
        # tier 1 sends the dataset's own query, so official wording reaches the model unchanged
        query = scenario.query_in(template.name)
        if query is None:
            return None
        content = f"{scenario.story}\n\n{query}"
    else:
        try:
            _, text, values = choose_wording(scenario, template)
        except Unphrased:
            return None
        content = text.format_map(values).strip()
    return [Message(role="user", content=content)]


def query_text(scenario: Scenario, template: Template, prompt: str) -> str:
    """The request as the respondent read it: the dataset's query, else the prompt without the story."""
    if template.tier == 1:
        return scenario.query_in(template.name) or ""
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
    no_marker: bool = False  # a marker template's reply without its marker: judged whole

    @property
    def reason(self) -> str | None:
        """The unjudged code in words."""
        return UNJUDGED_REASONS[self.unjudged] if self.unjudged else None


def judged_text(template: Template, raw: str, finish_reason: str | None = None) -> Judged:
    """The story a judge sees. A reply cut off by the token limit is never judged (unscored with that reason);
    a marker template's reply without its marker is judged whole, as the paper's pipeline tolerates extra
    text around the story, and says so (`no_marker`)."""
    if is_truncated(finish_reason):
        return Judged(None, "truncated")
    if template.final_marker:
        if not _marker_pattern(template.final_marker).search(raw):
            return Judged(raw.strip(), no_marker=True)
        return Judged(extract_final_story(raw, template.final_marker))
    return Judged(raw)
