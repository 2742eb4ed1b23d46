"""The three official query phrasings A, B, C: recognise them in a dataset, label each query, write them.

Every CoBe scenario states its intervention in up to three phrasings (`queries.yaml` beside this
file). The respondent is sent the scenario's own query; these patterns label each query with the
phrasing it follows, check a file's queries, and write queries during construction. A query's
phrasing is what its words say; only where they say nothing does the file's own numbering decide
(the site's `query_idx`, or the place in a list of exactly three), and a query neither names is
labelled `other` (`UNMATCHED`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml

from cobe.core.errors import InputError

QUERIES_FILE = Path(str(files("cobe.dataset").joinpath("queries.yaml")))
PHRASINGS: tuple[str, ...] = ("A", "B", "C")


@lru_cache(maxsize=1)
def _config() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(QUERIES_FILE.read_text(encoding="utf-8"))
    return data


def query_phrasings() -> dict[str, str]:
    """The phrasing texts by name (A, B, C), in order, with `{had_clause}` / `{if_clause}` placeholders."""
    return {name: body["text"] for name, body in _config()["templates"].items()}


UNMATCHED: str = str(_config()["unmatched"])
#: every label a query can carry, in report order
LABELS: tuple[str, ...] = (*PHRASINGS, UNMATCHED)


def site_query_idx() -> dict[int, str]:
    """The site's `query_idx` → phrasing map (2 → A, 5 → B, 7 → C)."""
    return {int(idx): str(name) for idx, name in _config()["site_query_idx"].items()}


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


@lru_cache(maxsize=1)
def _marks() -> dict[str, list[re.Pattern[str]]]:
    return {name: [re.compile(mark, re.IGNORECASE) for mark in marks] for name, marks in _config()["marks"].items()}


def match_query_template(query: str) -> str | None:
    """Which phrasing (A, B or C) a dataset query follows word for word, or None."""
    for name, (_, pattern) in _patterns().items():
        if pattern.match(query.strip()):
            return name
    return None


def recognise_query(query: str) -> str | None:
    """The phrasing a query follows: word for word, else the one phrasing whose marks its words carry; or None."""
    exact = match_query_template(query)
    if exact is not None:
        return exact
    text = " ".join(query.split())
    named = [name for name, marks in _marks().items() if any(mark.search(text) for mark in marks)]
    return named[0] if len(named) == 1 else None


def position_hints(count: int) -> list[str | None]:
    """What a file's order says of its queries: a list of exactly three is the paper's A, B, C; other lists nothing."""
    return list(PHRASINGS) if count == len(PHRASINGS) else [None] * count


def label_queries(queries: Sequence[str], hints: Sequence[str | None] | None = None) -> list[str]:
    """Each query's phrasing: what its words say, else its hint (the file's numbering), else `other`.

    A phrasing is held by one query at most: a later query that claims a phrasing already taken is
    labelled `other` (and a third claimant keeps `other` too; `duplicate_labels` finds them).
    """
    hints = position_hints(len(queries)) if hints is None else hints
    said = [recognise_query(query) for query in queries]
    labels: list[str] = []
    for words, hint in zip(said, hints):
        # a hint yields to any phrasing another query's words claim, so the words always win
        claimed = words or (hint if hint is not None and hint not in said else None)
        labels.append(claimed if claimed is not None and claimed not in labels else UNMATCHED)
    return labels


def duplicate_labels(labels: Sequence[str]) -> list[int]:
    """Positions of queries whose label an earlier query already holds (only `other` can repeat)."""
    return [i for i, label in enumerate(labels) if label in labels[:i]]


def tier1_queries(intervention: str) -> list[str]:
    """The A, B, C queries for a past-perfect intervention clause, written by phrasing."""
    fields = {"had_clause": invert_had(intervention).rstrip("."), "if_clause": intervention.rstrip(".")}
    return [text.format(**fields) for text in query_phrasings().values()]
