"""Prompt templates as data: one YAML file per tier under `prompts/templates/`."""

from __future__ import annotations

import re
import string
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

import yaml
from pydantic import BaseModel

from cobe.errors import InputError

TEMPLATE_DIR = Path(str(files("cobe.prompts").joinpath("templates")))
TEMPLATE_FIELDS: frozenset[str] = frozenset({"story", "had_clause", "if_clause", "intervention", "original_condition"})


class Template(BaseModel):
    """One respondent prompt template."""

    name: str  # "A".."G", "H1", "H2"
    tier: int
    text: str  # uses {story}, {had_clause}, {if_clause}, {intervention}, {original_condition}
    phrasing: int  # position within its tier
    final_marker: str | None = None  # the respondent's story to judge follows this line marker

    @property
    def fields(self) -> frozenset[str]:
        """The placeholders this template's text uses."""
        return template_fields(self.text)


def template_fields(text: str) -> frozenset[str]:
    """The `{name}` placeholders of a template text."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name)


@lru_cache(maxsize=8)
def load_templates(directory: str | None = None) -> dict[str, Template]:
    """Every template in the tier files of `directory` (the bundled ones by default), by name."""
    root = Path(directory) if directory else TEMPLATE_DIR
    found: dict[str, Template] = {}
    for path in sorted(root.glob("tier*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for index, (name, body) in enumerate(data["templates"].items()):
            template = Template(
                name=name,
                tier=int(data["tier"]),
                text=body["text"],
                phrasing=index,
                final_marker=body.get("final_marker"),
            )
            # a typo in a placeholder would otherwise only surface mid-run as a KeyError
            unknown = template.fields - TEMPLATE_FIELDS
            if unknown:
                raise InputError(
                    f"{path}: template {name} uses unknown placeholder(s) {', '.join(sorted(unknown))}; "
                    f"known: {', '.join(sorted(TEMPLATE_FIELDS))}"
                )
            found[name] = template
    if not found:
        raise InputError(f"{root}: no tier*.yaml template files found")
    return found


def invert_had(clause: str) -> str:
    """'Maya had taken the train' → 'had Maya taken the train' (the inverted conditional)."""
    subject, sep, rest = clause.partition(" had ")
    if not sep:
        raise InputError(f"intervention {clause!r}: expected a past-perfect clause such as 'Maya had taken the train'")
    return f"had {subject} {rest}"


def _pattern(text: str) -> re.Pattern[str]:
    head, _, tail = re.sub(r"\{(had_clause|if_clause)\}", "\0", text).partition("\0")
    return re.compile(re.escape(head) + r"(?P<clause>.+?)" + re.escape(tail) + r"\s*$", re.S)


@lru_cache(maxsize=1)
def _tier1_patterns() -> dict[str, re.Pattern[str]]:
    return {t.name: _pattern(t.text) for t in load_templates().values() if t.tier == 1}


def match_query_template(query: str) -> str | None:
    """Which tier-1 template (A, B or C) a dataset query follows, or None."""
    for name, pattern in _tier1_patterns().items():
        if pattern.match(query.strip()):
            return name
    return None


def tier1_queries(intervention: str) -> list[str]:
    """The A, B, C queries for a past-perfect intervention clause, written by template."""
    fields = {"had_clause": invert_had(intervention), "if_clause": intervention.rstrip(".")}
    fields["had_clause"] = fields["had_clause"].rstrip(".")
    return [t.text.format(**fields) for t in load_templates().values() if t.tier == 1]
