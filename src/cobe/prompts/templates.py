"""Prompt templates as data: one YAML file per tier under `prompts/templates/`; tier 1 is the
dataset's own three query phrasings (`cobe/dataset/queries.yaml`) and `other`, for a query in none."""

from __future__ import annotations

import string
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

import yaml
from pydantic import BaseModel

from cobe.core.errors import InputError
from cobe.dataset.queries import PHRASINGS, QUERIES_FILE, UNMATCHED

TEMPLATE_DIR = Path(str(files("cobe.prompts").joinpath("templates")))
TEMPLATE_FIELDS: frozenset[str] = frozenset({"story", "had_clause", "if_clause", "intervention", "original_condition"})
HAD_TEXT_FIELDS: frozenset[str] = frozenset({"story", "had_clause"})


class Template(BaseModel):
    """One respondent prompt template."""

    name: str  # "A".."G", "H1", "H2"
    tier: int
    text: str  # uses {story}, {had_clause}, {if_clause}, {intervention}, {original_condition}
    phrasing: int  # position within its tier
    final_marker: str | None = None  # the respondent's story to judge follows this line marker
    # the wording used when a scenario states no original condition (official files never do);
    # it may use every placeholder but {original_condition}
    fallback_text: str | None = None
    # the wording used when the change is known only in its inverted form ("had Maya taken the
    # train", all that phrasings A and C give): it may use {story} and {had_clause} only
    had_text: str | None = None

    @property
    def fields(self) -> frozenset[str]:
        """The placeholders this template's text uses."""
        return template_fields(self.text)


def template_fields(text: str) -> frozenset[str]:
    """The `{name}` placeholders of a template text."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name)


def _check_fields(path: Path, template: Template) -> None:
    """A typo in a placeholder would otherwise only surface mid-run as a KeyError."""
    unknown = template.fields - TEMPLATE_FIELDS
    if template.fallback_text is not None:
        fallback = template_fields(template.fallback_text)
        unknown |= fallback - TEMPLATE_FIELDS
        if "original_condition" in fallback:
            raise InputError(f"{path}: template {template.name}: fallback_text may not use {{original_condition}}")
    if template.had_text is not None:
        extra = template_fields(template.had_text) - HAD_TEXT_FIELDS
        if extra:
            raise InputError(
                f"{path}: template {template.name}: had_text may use only {{story}} and {{had_clause}}, "
                f"not {', '.join(sorted(extra))}"
            )
    if unknown:
        raise InputError(
            f"{path}: template {template.name} uses unknown placeholder(s) {', '.join(sorted(unknown))}; "
            f"known: {', '.join(sorted(TEMPLATE_FIELDS))}"
        )


def _tier_files(root: Path) -> list[Path]:
    """The tier files of a folder; tier 1 (the dataset's own phrasings) comes from the dataset when absent."""
    paths = sorted(root.glob("tier*.yaml"))
    if not any(path.name == "tier1.yaml" for path in paths):
        paths.insert(0, QUERIES_FILE)
    return paths


def _unmatched(after: int) -> Template:
    """Tier 1's template for queries in no phrasing: like A-C it sends the scenario's own query as written."""
    return Template(name=UNMATCHED, tier=1, text="", phrasing=after)


@lru_cache(maxsize=8)
def load_templates(directory: str | None = None) -> dict[str, Template]:
    """Every template in the tier files of `directory` (the bundled ones by default), by name."""
    root = Path(directory) if directory else TEMPLATE_DIR
    found: dict[str, Template] = {}
    for path in _tier_files(root):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for index, (name, body) in enumerate(data["templates"].items()):
            template = Template(
                name=name,
                tier=int(data["tier"]),
                text=body["text"],
                phrasing=index,
                final_marker=body.get("final_marker"),
                fallback_text=body.get("fallback_text"),
                had_text=body.get("had_text"),
            )
            _check_fields(path, template)
            found[name] = template
        if path == QUERIES_FILE:
            found[UNMATCHED] = _unmatched(len(PHRASINGS))
    if not found:
        raise InputError(f"{root}: no tier*.yaml template files found")
    return found
