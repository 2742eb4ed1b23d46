"""Read a scenario's intervention back out of whatever query it has, for the templates of tiers 2-4.

Official files carry no `intervention` field, and often one query per scenario, in any phrasing or a
reworded one. A query states the change in one of two forms:

- plain: "... what would have happened if Maya had taken the train", "Revise the story as if ...",
  "... the version of the text in which ...", "... with one change: ...";
- inverted: "... what would have happened instead had Maya taken the train" (phrasings A and C).

The plain form fills every template; the inverted one is kept as it is (where its subject ends cannot
be told from the words alone), and templates that read well with "had ..." use it directly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from cobe.dataset.queries import invert_had

#: (form, cue): the clause starts right after the cue; of all cues in a query the earliest wins
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("had", re.compile(r"\b(?:instead|happened|occurred|happen|occur|unfolded|followed|gone)\s*,?\s+(?=had\b)", re.I)),
    ("plain", re.compile(r"\b(?:as if|if)(?:\s*,\s*|\s+)", re.I)),
    ("plain", re.compile(r"\b(?:in which|where)(?:\s*,\s*|\s+)", re.I)),
    ("plain", re.compile(r"\breflect(?:s|ing)?\s+(?:the fact\s+)?that\s+", re.I)),
    ("plain", re.compile(r":\s+")),
)
_TRAILING = re.compile(r"(?:[\s.?!\"'”’)]|,?\s*\binstead\b)+$", re.I)
_LEADING = re.compile(r"^(?:[\s\"'“‘(]|\binstead\b\s*,?)+", re.I)
MIN_WORDS = 2  # "it rained" is the shortest clause that says what changed


@dataclass(frozen=True)
class QueryClauses:
    """The intervention as a scenario's queries state it, in the two forms templates use."""

    if_clause: str | None  # "Ravi had caught the ferry": the plain form
    had_clause: str | None  # "had Ravi caught the ferry": the inverted form, read or made from the plain one


def _tidy(clause: str) -> str:
    """The clause without quotes, end punctuation or an 'instead' of its own at either end (templates add theirs)."""
    return _LEADING.sub("", _TRAILING.sub("", clause)).strip()


def read_clause(query: str) -> QueryClauses | None:
    """The intervention one query states, or None when no cue introduces a clause of at least two words."""
    text = " ".join(query.split())
    found = [(match.start(), match.end(), form) for form, cue in _CUES if (match := cue.search(text))]
    if not found:
        return None
    _, end, form = min(found)
    clause = _tidy(text[end:])
    if len(clause.split()) < MIN_WORDS:
        return None
    if form == "had" or clause.lower().startswith("had "):
        return QueryClauses(None, clause)
    return QueryClauses(clause, invert_had(clause) if " had " in clause else None)


def read_clauses(queries: Sequence[str]) -> QueryClauses:
    """The intervention of a scenario's queries: the plain form from the first query that gives one, and the
    inverted form from the first that gives either (made from the plain one when no query states it)."""
    plain: str | None = None
    had: str | None = None
    for query in queries:
        read = read_clause(query)
        if read is None:
            continue
        plain = plain or read.if_clause
        had = had or read.had_clause
    return QueryClauses(plain, had)
