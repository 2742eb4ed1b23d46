"""The rubric raters see beside every item: the paper's four conditions and two worked examples, no criteria."""

from __future__ import annotations

import re

from cobe.annotate.app import create_app

from .test_app import sign_in


def rubric_text(small_study) -> str:
    """The rubric as a rater reads it on the first item, tags stripped and spaces collapsed."""
    page = sign_in(create_app(small_study.path), small_study.raters["rater-1"]).get("/rate/1").text
    aside = page[page.index('<aside class="card rubric">') : page.index("</aside>")]
    return " ".join(re.sub(r"<[^>]+>", " ", aside).split())


def test_rubric_states_the_four_conditions(small_study):
    text = rubric_text(small_study)
    conditions = [
        "It fits the original story.",
        "It makes the requested difference.",
        "It updates what follows, and only that.",
        "Its causes and connecting words are right.",
    ]
    positions = [text.index(condition) for condition in conditions]
    assert positions == sorted(positions)
    # condition 3 names both halves: downstream updated, upstream kept
    assert "what happened before it, or does not depend on it" in text
    assert "Answer Yes only when the rewrite meets all four conditions" in text


def test_rubric_has_a_connector_example_and_a_changed_prior_event(small_study):
    text = rubric_text(small_study)
    connector = text[text.index("Example 1") : text.index("Example 2")]
    assert "Yes (a connecting word that had to change)" in connector
    assert "because the heat had finally broken" in connector and "despite the heat" in connector
    assert "“because” had to become “despite”" in connector
    prior = text[text.index("Example 2") :]
    assert "No (an earlier event changed to fit)" in prior
    assert "booked a window table" in prior and "booked a table at the back" in prior


def test_rubric_shows_no_criteria_or_model(small_study):
    text = rubric_text(small_study).lower()
    for hidden in ("criterion", "criteria", "preserve", "mock/", "judge", "should change"):
        assert hidden not in text


def test_a_hallucinated_or_incoherent_rewrite_is_no_and_other_is_for_indecision(small_study):
    text = rubric_text(small_study)
    no = text[text.index("Answer No if any condition fails") : text.index("Answer Other")]
    assert "invents events or people the story and the request give no ground for" in no
    assert "does not read as a coherent story" in no and no.rstrip().endswith("is also No .")
    other = text[text.index("Answer Other") : text.index("Example 1")]
    assert "only when you cannot decide between Yes and No" in other
    assert "Other is not for poor rewrites: those are No." in other
    assert "not a rewrite" not in other  # no longer an example of Other: such a response is No
