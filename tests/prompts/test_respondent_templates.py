"""Respondent templates: selection, rendering per tier, clauses read from queries, and what the judge sees."""

from __future__ import annotations

import pytest

from cobe.core.errors import InputError
from cobe.prompts import (
    extract_final_story,
    judged_text,
    load_templates,
    respondent_messages,
    select_templates,
    unphrased_reason,
)
from cobe.prompts.templates import TEMPLATE_FIELDS


def test_bundled_templates_cover_every_tier() -> None:
    tiers = {name: t.tier for name, t in load_templates().items()}
    assert tiers == {"A": 1, "B": 1, "C": 1, "other": 1, "D": 2, "E": 2, "F": 2, "G": 2, "H1": 3, "H2": 4}
    assert all(t.fields <= TEMPLATE_FIELDS for t in load_templates().values())


def test_default_selection_is_tier_one() -> None:
    assert [t.name for t in select_templates()] == ["A", "B", "C", "other"]


@pytest.mark.parametrize(
    ("tier", "names"), [(1, ["A", "B", "C", "other"]), (2, ["D", "E", "F", "G"]), (3, ["H1"]), (4, ["H2"])]
)
def test_select_by_tier(tier: int, names: list[str]) -> None:
    assert [t.name for t in select_templates(tier=tier)] == names


def test_select_by_name_is_case_insensitive_and_ordered() -> None:
    assert [t.name for t in select_templates(["h2", "d", "A"])] == ["A", "D", "H2"]


def test_select_names_and_tier_combine() -> None:
    assert [t.name for t in select_templates(["A"], tier=3)] == ["A", "H1"]


def test_unknown_name_lists_known_names() -> None:
    with pytest.raises(InputError, match=r"unknown template 'Z'; known templates: A, B, C, other, D, E, F, G, H1, H2"):
        select_templates(["A", "Z"])


def test_unknown_tier_lists_known_tiers() -> None:
    with pytest.raises(InputError, match=r"no templates in tier 9; known tiers: 1, 2, 3, 4"):
        select_templates(tier=9)


@pytest.mark.parametrize("name", ["A", "B", "C"])
def test_tier1_is_story_blank_line_query(scenario, name: str) -> None:
    (template,) = select_templates([name])
    messages = respondent_messages(scenario, template)
    assert messages is not None and len(messages) == 1
    assert messages[0].role == "user"
    assert messages[0].content == scenario.story + "\n\n" + scenario.queries[template.phrasing]


def test_tier1_needs_no_intervention_fields(bare_scenario) -> None:
    assert all(respondent_messages(bare_scenario, t) is not None for t in select_templates(["A", "B", "C"]))
    (other,) = select_templates(["other"])
    assert respondent_messages(bare_scenario, other) is None  # every query follows a phrasing


def test_tier1_skips_a_missing_phrasing(scenario_factory) -> None:
    short = scenario_factory(queries=["Rewrite the original text, based on what would have happened instead had X."])
    (template_c,) = select_templates(["C"])
    assert respondent_messages(short, template_c) is None


@pytest.mark.parametrize("name", ["D", "E", "F", "G", "H1", "H2"])
def test_higher_tiers_render_from_fields(scenario, name: str) -> None:
    (template,) = select_templates([name])
    messages = respondent_messages(scenario, template)
    assert messages is not None and len(messages) == 1
    content = messages[0].content
    if template.tier >= 3:  # the paper's layout: the story block, then the request block
        assert content.startswith("Original story:\n" + scenario.story + "\n\nRewrite prompt:\n")
    else:
        assert content.startswith(scenario.story + "\n\n")
    assert "Ravi had caught the 8:05 ferry" in content
    assert "ferry." + "?" not in content and "ferry.," not in content  # the period is dropped mid-sentence
    assert "{" not in content
    if "original_condition" in template.fields:
        assert "Ravi missed the 8:05 ferry" in content


@pytest.mark.parametrize("name", ["E", "F", "G"])
def test_original_condition_templates_use_it(name: str) -> None:
    (template,) = select_templates([name])
    assert "original_condition" in template.fields
    assert template.fallback_text is not None and "{original_condition}" not in template.fallback_text


@pytest.mark.parametrize("name", ["D", "E", "F", "G", "H1", "H2"])
def test_without_fields_the_clause_is_read_from_the_query(bare_scenario, name: str) -> None:
    (template,) = select_templates([name])
    messages = respondent_messages(bare_scenario, template)
    assert messages is not None
    assert "Ravi had caught the 8:05 ferry" in messages[0].content  # from query B, as on official files


@pytest.mark.parametrize("name", ["D", "E", "F", "G", "H1", "H2"])
def test_without_fields_or_a_query_that_states_the_change_the_pair_is_skipped_and_named(
    scenario_factory, name: str
) -> None:
    lost = scenario_factory(intervention=None, original_condition=None, queries=["Please rewrite this story."] * 3)
    (template,) = select_templates([name])
    assert respondent_messages(lost, template) is None
    reason = unphrased_reason(lost, template) or ""
    assert reason.startswith(f"scenario 12v2: template {name} needs the intervention, but the scenario has no")


@pytest.mark.parametrize("name", ["E", "F", "G"])
def test_fallback_wording_when_only_original_condition_missing(name: str, scenario_factory) -> None:
    (template,) = select_templates([name])
    partial = scenario_factory(original_condition="  ")
    messages = respondent_messages(partial, template)
    assert messages is not None
    request = messages[0].content.removeprefix(partial.story)
    assert "Ravi had caught the 8:05 ferry" in request and "missed" not in request


def test_h1_keeps_and_updates_in_one_sentence_with_no_list_of_what_to_keep() -> None:
    (h1,) = select_templates(["H1"])
    request = h1.text.split("Rewrite prompt:", 1)[1]
    assert "Answer with the rewritten text only." in request
    for hint in ("reason", "goal", "physical", "amount", "place"):
        assert hint not in request.lower()


def test_h2_has_four_steps_then_the_change_then_the_marker() -> None:
    (h2,) = select_templates(["H2"])
    request = h2.text.split("Rewrite prompt:", 1)[1]
    steps = [request.index(f"Step {n} ") for n in (1, 2, 3, 4)]
    assert steps == sorted(steps) and "Step 5" not in request
    assert "unobserved confounders" in request and "do-intervention" in request
    assert steps[-1] < request.index("{if_clause}") < request.index('"Final story:"')


def test_intervention_only_templates_render_without_original_condition(scenario_factory) -> None:
    partial = scenario_factory(original_condition=None)
    assert all(respondent_messages(partial, t) is not None for t in select_templates(["D", "H1", "H2"]))


def test_had_clause_in_a_custom_template(tmp_path, scenario_factory) -> None:
    (tmp_path / "tier2.yaml").write_text(
        'tier: 2\ntemplates:\n  X:\n    text: "{story}\\n\\nWhat if, {had_clause}?"\n', encoding="utf-8"
    )
    (template,) = select_templates(["X"], directory=str(tmp_path))
    messages = respondent_messages(scenario_factory(), template)
    assert messages is not None
    assert messages[0].content.endswith("What if, had Ravi caught the 8:05 ferry?")
    unfit = scenario_factory(intervention="Ravi caught the ferry")  # not past perfect: cannot be inverted
    assert respondent_messages(unfit, template) is None
    assert (unphrased_reason(unfit, template) or "").startswith("scenario 12v2: intervention 'Ravi caught")


def test_unknown_placeholder_fails_at_load(tmp_path) -> None:
    (tmp_path / "tier2.yaml").write_text('tier: 2\ntemplates:\n  X:\n    text: "{storey}"\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"template X uses unknown placeholder\(s\) storey"):
        load_templates(str(tmp_path))


def test_h2_declares_its_marker() -> None:
    (h2,) = select_templates(["H2"])
    assert h2.final_marker == "Final story:"
    assert "Final story:" in h2.text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1. Variables...\n2. Graph...\nFinal story: Ravi caught the ferry.", "Ravi caught the ferry."),
        (
            "Steps.\n\n**Final story:**\nRavi caught the ferry.\nHe ate with friends.",
            "Ravi caught the ferry.\nHe ate with friends.",
        ),
        ("I will end with 'Final story:' below.\nFINAL STORY:  Ravi caught it.", "Ravi caught it."),
        ("**Final story**: Ravi caught it.", "Ravi caught it."),
        ("No marker here, just a story.  ", "No marker here, just a story."),
        ("Reasoning only.\nFinal story:", ""),
    ],
)
def test_extract_final_story(raw: str, expected: str) -> None:
    assert extract_final_story(raw) == expected


def test_judged_text_extracts_only_for_marker_templates() -> None:
    (a,) = select_templates(["A"])
    (h2,) = select_templates(["H2"])
    raw = "Plan.\nFinal story: Ravi caught it."
    assert judged_text(a, raw).text == raw
    assert judged_text(h2, raw).text == "Ravi caught it."


def test_a_marker_less_h2_reply_is_judged_whole_and_marked() -> None:
    (h2,) = select_templates(["H2"])
    shown = judged_text(h2, "Step 1: the ferry.\nRavi caught it and ate with friends.  ")
    assert shown.text == "Step 1: the ferry.\nRavi caught it and ate with friends."
    assert shown.no_marker and shown.unjudged is None
    assert not judged_text(h2, "Steps.\nFinal story: Ravi caught it.").no_marker


@pytest.mark.parametrize("reason", ["length", "max_tokens", "MAX_TOKENS"])
def test_a_reply_cut_off_by_the_token_limit_is_not_judged(reason: str) -> None:
    for template in select_templates(["A", "H2"]):
        shown = judged_text(template, "Final story: Ravi caught the", reason)
        assert shown.text is None and shown.unjudged == "truncated"
    (a,) = select_templates(["A"])
    assert judged_text(a, "Ravi caught it.", "stop").text == "Ravi caught it."


def test_every_tier_two_to_four_template_renders_for_the_paper_shaped_fixture() -> None:
    from pathlib import Path

    from cobe.dataset.loaders import load_dataset

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "datasets" / "paper.json"
    scenarios = load_dataset(fixture).scenarios
    assert scenarios and all(s.intervention is None for s in scenarios)  # official shape: no field
    for scenario in scenarios:
        clause = scenario.queries[1].split("what would have happened if ", 1)[1].rstrip(".")
        for template in select_templates(["D", "E", "F", "G", "H1", "H2"]):
            messages = respondent_messages(scenario, template)
            assert messages is not None and clause in messages[0].content and "{" not in messages[0].content
