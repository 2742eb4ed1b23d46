"""Respondent prompts: the tier 1–4 templates (YAML files under `prompts/templates/`) and their rendering.

Judge prompt sets live with the judge, in `cobe.judge`.
"""

from cobe.prompts.render import (
    DEFAULT_TEMPLATES,
    NO_MARKER_NOTE,
    UNJUDGED_REASONS,
    Judged,
    Unphrased,
    available_fields,
    extract_final_story,
    judged_text,
    query_text,
    respondent_messages,
    select_templates,
    unphrased_reason,
)
from cobe.prompts.templates import Template, load_templates

__all__ = [
    "DEFAULT_TEMPLATES",
    "NO_MARKER_NOTE",
    "UNJUDGED_REASONS",
    "Judged",
    "Template",
    "Unphrased",
    "available_fields",
    "extract_final_story",
    "judged_text",
    "load_templates",
    "query_text",
    "respondent_messages",
    "select_templates",
    "unphrased_reason",
]
