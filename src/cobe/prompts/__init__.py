"""Respondent templates (tiers 1–4), judge prompt sets, and their rendering."""

from cobe.prompts.judge_prompts import JudgeConfig, JudgePromptSet, load_judge_prompts
from cobe.prompts.render import (
    DEFAULT_TEMPLATES,
    extract_final_story,
    respondent_messages,
    select_templates,
    story_to_judge,
)
from cobe.prompts.templates import Template, invert_had, load_templates, match_query_template, tier1_queries

__all__ = [
    "DEFAULT_TEMPLATES",
    "JudgeConfig",
    "JudgePromptSet",
    "Template",
    "extract_final_story",
    "invert_had",
    "load_judge_prompts",
    "load_templates",
    "match_query_template",
    "respondent_messages",
    "select_templates",
    "story_to_judge",
    "tier1_queries",
]
