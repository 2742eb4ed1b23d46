"""A query's phrasing is what it says: word-for-word templates, reworded variants, the file's numbering, `other`."""

from __future__ import annotations

import pytest

from cobe.dataset.queries import UNMATCHED, duplicate_labels, label_queries, recognise_query, site_query_idx

A = "Rewrite the original text, based on what would have happened instead had the shop stayed open."
B = "Based on the preceding text, rewrite the scenario to reflect what would have happened if the shop had stayed open."
C = "Rewrite the above passage to illustrate what would have occurred had the shop stayed open."


@pytest.mark.parametrize(
    ("query", "phrasing"),
    [
        (A, "A"),
        (B, "B"),
        (C, "C"),
        # reworded around a template: the words that set the phrasing apart still say which
        ("Based on the preceding text, rewrite the scenario to reflect what happens if the shop had stayed open.", "B"),
        ("Edit the above passage to reflect what would have happened had the shop stayed open.", "C"),
        ("Using the original text, show what would have happened instead had the shop stayed open.", "A"),
        (
            "  based on THE PRECEDING   text, rewrite the scenario to reflect what would have happened if it rained.",
            "B",
        ),
        # variants that name no phrasing
        ("Revise the story as if the shop had stayed open.", None),
        ("Rewrite the passage with one change: the shop had stayed open.", None),
        ("Produce the version of the text in which the shop had stayed open.", None),
        # words of two phrasings at once name neither
        ("Based on the original text and the preceding text, rewrite the scenario to reflect this change.", None),
    ],
)
def test_recognise_query(query: str, phrasing: str | None) -> None:
    assert recognise_query(query) == phrasing


def test_the_site_numbering_is_the_authors_positions() -> None:
    assert site_query_idx() == {2: "A", 5: "B", 7: "C"}


def test_a_lone_query_is_labelled_by_what_it_says_never_by_its_place() -> None:
    assert label_queries([C]) == ["C"]
    assert label_queries([B]) == ["B"]
    assert label_queries(["Revise the story as if the shop had stayed open."]) == [UNMATCHED]


def test_the_files_numbering_decides_only_where_the_words_are_silent() -> None:
    revise = "Revise the story as if the shop had stayed open."
    assert label_queries([revise], ["B"]) == ["B"]
    assert label_queries([C], ["A"]) == ["C"]  # the words win over query_idx 2
    # a hint never takes a phrasing that another query's words claim
    assert label_queries([revise, B], ["B", "C"]) == [UNMATCHED, "B"]


def test_a_list_of_three_is_the_papers_a_b_c_where_the_words_are_silent() -> None:
    revise = "Revise the story as if the shop had stayed open."
    assert label_queries([A, revise, C]) == ["A", "B", "C"]
    assert label_queries([A, revise]) == ["A", UNMATCHED]  # two queries say nothing by their order
    assert label_queries([B, revise, C]) == ["B", UNMATCHED, "C"]  # B is taken by the words of the first


def test_a_phrasing_claimed_twice_goes_to_the_first_query() -> None:
    labels = label_queries([B, B.replace("shop", "bakery"), C])
    assert labels == ["B", UNMATCHED, "C"]
    assert duplicate_labels(labels) == []
    assert duplicate_labels(["B", UNMATCHED, UNMATCHED]) == [2]
