"""Respondent prompts: the tier 1–4 templates (YAML files under `prompts/templates/`) and their rendering.

Judge prompt sets live with the judge, in `cobe.judge`.
"""

from cobe.prompts.render import (
    DEFAULT_TEMPLATES,
    extract_final_story,
    respondent_messages,
    select_templates,
    story_to_judge,
)
from cobe.prompts.templates import Template, load_templates

__all__ = [
    "DEFAULT_TEMPLATES",
    "Template",
    "extract_final_story",
    "load_templates",
    "respondent_messages",
    "select_templates",
    "story_to_judge",
]
