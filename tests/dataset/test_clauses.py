"""The intervention read back out of any query form, in its plain and its inverted ("had …") form."""

from __future__ import annotations

import pytest

from cobe.dataset.clauses import QueryClauses, read_clause, read_clauses

PLAIN = "the ferry had been cancelled that morning"
HAD = "had the ferry been cancelled that morning"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (f"Rewrite the original text, based on what would have happened instead {HAD}.", QueryClauses(None, HAD)),
        (
            f"Based on the preceding text, rewrite the scenario to reflect what would have happened if {PLAIN}.",
            QueryClauses(PLAIN, HAD),
        ),
        (f"Rewrite the above passage to illustrate what would have occurred {HAD}.", QueryClauses(None, HAD)),
        (
            f"Based on the preceding text, rewrite the scenario to reflect what happens if {PLAIN}.",
            QueryClauses(PLAIN, HAD),
        ),
        (f"Revise the story as if {PLAIN} instead.", QueryClauses(PLAIN, HAD)),
        (f"Edit the above passage to reflect what would have happened {HAD}.", QueryClauses(None, HAD)),
        (f"Edit the above passage to reflect that {PLAIN}.", QueryClauses(PLAIN, HAD)),
        (f"Rewrite the passage with one change: {PLAIN}.", QueryClauses(PLAIN, HAD)),
        (f"Produce the version of the text in which {PLAIN}.", QueryClauses(PLAIN, HAD)),
        (f'Rewrite it as if, instead, "{PLAIN}".', QueryClauses(PLAIN, HAD)),
        ("Rewrite the passage with one change: the café closes early.", QueryClauses("the café closes early", None)),
    ],
)
def test_read_clause_from_every_query_form(query: str, expected: QueryClauses) -> None:
    assert read_clause(query) == expected


@pytest.mark.parametrize(
    "query",
    [
        "Produce the version of the text that follows from a different choice.",
        "Please rewrite this story.",
        "Rewrite the story as if so.",  # one word is no clause
    ],
)
def test_a_query_without_a_clause_gives_none(query: str) -> None:
    assert read_clause(query) is None


def test_the_earliest_cue_wins_so_a_clause_keeps_its_own_if() -> None:
    query = "Rewrite the original text, based on what would have happened instead had Ana asked if the shop was open."
    assert read_clause(query) == QueryClauses(None, "had Ana asked if the shop was open")


def test_read_clauses_prefers_a_plain_form_from_any_query() -> None:
    a = f"Rewrite the original text, based on what would have happened instead {HAD}."
    b = f"Revise the story as if {PLAIN}."
    assert read_clauses([a, b]) == QueryClauses(PLAIN, HAD)
    assert read_clauses([a]) == QueryClauses(None, HAD)
    assert read_clauses(["Please rewrite this story."]) == QueryClauses(None, None)
