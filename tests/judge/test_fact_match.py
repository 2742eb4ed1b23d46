"""Which story parts state a change fact: the omission probe's matching, on site-shaped scenarios (one query, no
domain, several `should_change` strings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cobe.dataset.loaders import load_dataset
from cobe.judge.fact_match import STATES, clauses, content_words, coverage, omit_change_sentences, states
from support.scenarios import make_scenario

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "results_flat.jsonl"


@pytest.fixture(scope="module")
def site() -> dict:
    return {s.id: s for s in load_dataset(str(SITE)).scenarios}


def test_the_site_fixture_is_site_shaped(site):
    assert all(len(s.queries) == 1 and s.domain == "unknown" for s in site.values())
    assert sum(len(s.change) > 1 for s in site.values()) >= 8


def test_content_words_drop_function_words_and_keep_order():
    assert content_words("By eight the croissants were gone, so she baked a second tray.") == [
        "eight",
        "croissants",
        "gone",
        "baked",
        "second",
        "tray",
    ]


def test_word_forms_meet_but_other_words_do_not():
    assert coverage("Second trays were baked.", "so she baked a second tray") == 1.0  # trays meets tray
    assert coverage("The croissants were gone.", "the croissants went") == 0.5  # gone never meets went
    assert coverage("The cat sat.", "the car sat") == 0.5  # short words must be equal


def test_a_sentence_states_a_fact_from_sixty_percent_of_its_words():
    assert STATES == 0.6
    assert states("Nadia opened her bakery late.", "Nadia opened her bakery late because her oven needed repair.")
    assert not states("Nadia took a Sunday off.", "The extra hands let her take a Sunday off.")  # took ≠ take


def test_a_later_clause_is_cut_at_its_connector():
    pieces, end = clauses("By eight the croissants were gone, so she baked a second tray.")
    assert pieces == ["By eight the croissants were gone", ", so she baked a second tray"] and end == "."
    pieces, _ = clauses("Because they grew so tall, the trellis was raised.")  # a bare "so" opens no clause
    assert pieces == ["Because they grew so tall, the trellis was raised"]


def test_the_sentence_stating_both_change_facts_goes_and_the_facts_to_keep_stay(site):
    omitted = omit_change_sentences(site["101v1"])
    assert omitted.text == "Nadia opened her bakery at six because the market crowd arrived early."
    assert omitted.removed == (1,) and omitted.unmatched == () and not omitted.preserve_touched
    assert omitted.describe() == "removed sentence 2"


def test_a_fact_paraphrased_beyond_its_words_is_counted_unmatched(site):
    omitted = omit_change_sentences(site["101v3"])
    assert omitted.unmatched == ("Nadia took a Sunday off.",)
    assert omitted.text == "The extra hands let her take a Sunday off."
    assert omitted.preserve_touched  # the removed sentence also says she ran a bakery that took orders
    assert omitted.describe() == (
        "removed sentence 1; 1 change fact matched no sentence; a removed sentence also states a preserve fact"
    )


def test_a_story_made_only_of_change_facts_leaves_nothing(site):
    omitted = omit_change_sentences(site["102v4"])
    assert omitted.text == "" and omitted.removed == (0, 1)


def test_only_the_clause_that_states_the_fact_goes():
    scenario = make_scenario(
        story="For the day trip, Ravi packed sandwiches from home and took the slow regional bus. It stopped everywhere.",
        preserve=["Ravi packed sandwiches from home."],
        change=["Ravi took the slow regional bus.", "The bus stopped everywhere."],
    )
    omitted = omit_change_sentences(scenario)
    assert omitted.text == "For the day trip, Ravi packed sandwiches from home."
    assert omitted.removed == (0, 1) and omitted.unmatched == ()
