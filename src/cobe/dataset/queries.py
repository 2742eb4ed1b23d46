"""The three official query phrasings A, B, C: recognise them in a dataset and write them.

Every CoBe scenario carries its intervention three times, once per phrasing (`queries.yaml`
beside this file). The respondent is sent the scenario's own query; these patterns are used to
check a file's queries, to write queries during construction, and to read the intervention
clause back out of a query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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


_SLOT = re.compile(r"\{(had_clause|if_clause)\}")


def _pattern(text: str) -> tuple[str, re.Pattern[str]]:
    """(the slot a phrasing fills: had_clause or if_clause, a regex capturing that slot as `clause`)."""
    slot = _SLOT.search(text)
    assert slot is not None, f"a query phrasing without a clause slot: {text!r}"  # queries.yaml is ours
    head, tail = text[: slot.start()], text[slot.end() :]
    pattern = re.compile(re.escape(head) + r"(?P<clause>.+?)" + re.escape(tail) + r"\s*$", re.S)
    return slot.group(1), pattern


@lru_cache(maxsize=1)
def _patterns() -> dict[str, tuple[str, re.Pattern[str]]]:
    return {name: _pattern(text) for name, text in query_phrasings().items()}


def match_query_template(query: str) -> str | None:
    """Which phrasing (A, B or C) a dataset query follows, or None."""
    for name, (_, pattern) in _patterns().items():
        if pattern.match(query.strip()):
            return name
    return None


@dataclass(frozen=True)
class QueryClauses:
    """The intervention as a scenario's own queries state it, in the two forms templates use."""

    if_clause: str | None  # "Ravi had caught the ferry": phrasing B states it this way
    had_clause: str | None  # "had Ravi caught the ferry": phrasings A and C, or B's clause inverted


def read_clauses(queries: list[str]) -> QueryClauses:
    """The intervention clause read back out of a scenario's tier-1 queries (None where none matches).

    Only B gives the plain clause; A and C give its inverted form, which is not turned back
    (where the subject ends cannot be told from the words alone).
    """
    found: dict[str, str] = {}
    for query in queries:
        for slot, pattern in _patterns().values():
            match = pattern.match(query.strip())
            if match and slot not in found:
                found[slot] = match.group("clause").strip()
    if_clause, had_clause = found.get("if_clause"), found.get("had_clause")
    if had_clause is None and if_clause is not None and " had " in if_clause:
        had_clause = invert_had(if_clause)
    return QueryClauses(if_clause, had_clause)


def tier1_queries(intervention: str) -> list[str]:
    """The A, B, C queries for a past-perfect intervention clause, written by phrasing."""
    fields = {"had_clause": invert_had(intervention).rstrip("."), "if_clause": intervention.rstrip(".")}
    return [text.format(**fields) for text in query_phrasings().values()]
