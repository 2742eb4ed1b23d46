"""The three official query phrasings A, B, C: recognise them in a dataset and write them.

Every CoBe scenario carries its intervention three times, once per phrasing (`queries.yaml`
beside this file). The respondent is sent the scenario's own query; these patterns are used to
check a file's queries, to write queries during construction, and to read the intervention
clause back out of a query.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

import yaml

from cobe.core.errors import InputError

QUERIES_FILE = Path(str(files("cobe.dataset").joinpath("queries.yaml")))


@lru_cache(maxsize=1)
def query_phrasings() -> dict[str, str]:
    """The phrasing texts by name (A, B, C), in order, with `{had_clause}` / `{if_clause}` placeholders."""
    data = yaml.safe_load(QUERIES_FILE.read_text(encoding="utf-8"))
    return {name: body["text"] for name, body in data["templates"].items()}


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
def _patterns() -> dict[str, re.Pattern[str]]:
    return {name: _pattern(text) for name, text in query_phrasings().items()}


def match_query_template(query: str) -> str | None:
    """Which phrasing (A, B or C) a dataset query follows, or None."""
    for name, pattern in _patterns().items():
        if pattern.match(query.strip()):
            return name
    return None


def tier1_queries(intervention: str) -> list[str]:
    """The A, B, C queries for a past-perfect intervention clause, written by phrasing."""
    fields = {"had_clause": invert_had(intervention).rstrip("."), "if_clause": intervention.rstrip(".")}
    return [text.format(**fields) for text in query_phrasings().values()]
