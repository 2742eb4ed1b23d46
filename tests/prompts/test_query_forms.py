"""Every tier 2-4 template against every query form a scenario may carry alone: the rendered text states the
change once, grammatically, in the form the template reads well with ("instead instead" never appears)."""

from __future__ import annotations

import re

import pytest

from cobe.prompts import respondent_messages, select_templates, unphrased_reason

PLAIN = "the ferry had been cancelled that morning"
HAD = "had the ferry been cancelled that morning"
#: query form → (the query, whether it states the change plainly)
FORMS: dict[str, tuple[str, bool]] = {
    "A": (f"Rewrite the original text, based on what would have happened instead {HAD}.", False),
    "B": (f"Based on the preceding text, rewrite the scenario to reflect what would have happened if {PLAIN}.", True),
    "C": (f"Rewrite the above passage to illustrate what would have occurred {HAD}.", False),
    "B, what happens if": (
        f"Based on the preceding text, rewrite the scenario to reflect what happens if {PLAIN}.",
        True,
    ),
    "edit the above passage": (f"Edit the above passage to reflect what would have happened {HAD}.", False),
    "revise as if": (f"Revise the story as if {PLAIN} instead.", True),
    "one change": (f"Rewrite the passage with one change: {PLAIN}.", True),
    "the version in which": (f"Produce the version of the text in which {PLAIN}.", True),
    "reflect that": (f"Edit the above passage to reflect that {PLAIN}.", True),
}
#: template → (the request as it reads with the plain clause, as it reads with the "had …" form)
EXPECTED: dict[str, tuple[str, str]] = {
    "D": (f"what would have happened if {PLAIN}? Please retell", f"what would have happened {HAD}? Please retell"),
    "E": (f"changed one thing: suppose that {PLAIN}. Rewrite", f"changed one thing. What would have followed {HAD}?"),
    "F": (
        f"change one moment of the story, so that {PLAIN} instead. How",
        f"change one moment of the story. How would the text above read {HAD}?",
    ),
    "G": (f"have unfolded if, instead, {PLAIN}? Please", f"have unfolded {HAD}? Please"),
    "H1": (f"version of the original story: what would have happened if {PLAIN}. Keep", f"happened {HAD}. Keep"),
    "H2": (f"The change: what would have happened if {PLAIN}?", f"The change: what would have happened {HAD}?"),
}
FLAWS = re.compile(r"\binstead,? instead\b|\bif,? if\b|\bhad had\b|\.\.|\?\.|\.\?|,\.|\s,|\{|\}", re.I)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", EXPECTED)
def test_every_template_reads_the_change_from_every_query_form(scenario_factory, name: str, form: str) -> None:
    query, plain = FORMS[form]
    alone = scenario_factory(intervention=None, original_condition=None, queries=[query])
    (template,) = select_templates([name])
    messages = respondent_messages(alone, template)
    assert messages is not None, unphrased_reason(alone, template)
    text = messages[0].content
    expected = EXPECTED[name][0 if plain else 1]
    assert expected in text
    assert text.count(PLAIN if plain else HAD) == 1  # the change stated once
    assert not FLAWS.search(text), FLAWS.search(text)


@pytest.mark.parametrize("form", FORMS)
def test_tier_one_sends_each_query_as_written_under_the_phrasing_it_follows(scenario_factory, form: str) -> None:
    query, _ = FORMS[form]
    alone = scenario_factory(intervention=None, original_condition=None, queries=[query])
    sent = {t.name: respondent_messages(alone, t) for t in select_templates(tier=1)}
    (name,) = [name for name, messages in sent.items() if messages is not None]
    assert sent[name] == respondent_messages(alone, select_templates([name])[0])
    assert sent[name][0].content == f"{alone.story}\n\n{query}"  # type: ignore[index]
    words = {
        "A": "A",
        "B": "B",
        "C": "C",
        "B, what happens if": "B",
        "edit the above passage": "C",
        "reflect that": "C",
    }
    assert name == words.get(form, "other")


@pytest.mark.parametrize("name", EXPECTED)
def test_the_original_condition_is_used_only_with_the_plain_clause(scenario_factory, name: str) -> None:
    (template,) = select_templates([name])
    with_condition = scenario_factory(intervention=None, queries=[FORMS["B"][0]])
    text = respondent_messages(with_condition, template)[0].content  # type: ignore[index]
    request = text.split(with_condition.story, 1)[1]
    assert ("Ravi missed the 8:05 ferry" in request) == ("original_condition" in template.fields)
    only_had = scenario_factory(intervention=None, queries=[FORMS["A"][0]])
    request = respondent_messages(only_had, template)[0].content.split(only_had.story, 1)[1]  # type: ignore[index]
    assert "Ravi missed" not in request and EXPECTED[name][1] in request


def test_h1_asks_for_the_counterfactual_version_keeping_prior_and_unaffected_facts() -> None:
    (h1,) = select_templates(["H1"])
    for wording in (h1.text, h1.had_text or ""):
        request = wording.split("Rewrite prompt:", 1)[1]
        assert "counterfactual version" in request
        assert "Keep the prior facts, and every fact the change does not affect, as they were" in request
        assert "update what follows from the change" in request
