"""Parsing a model's proposed variation: each kind of bad output is rejected with its reason."""

from __future__ import annotations

import json

import pytest

from cobe.curate.augment import Rejected, augment, augment_messages, parse_output, prompt_fingerprint
from cobe.dataset import load_dataset
from cobe.dataset.schema import CausalGraph, Edge, Fact, GraphType, Scenario
from support.curate_project import CORES

CORE = load_dataset(CORES).get("1v0")
GOOD = {
    "domain": "garden",
    "story": "Ivan watered his plants at dawn. The hose ran dry, so he bought a pump.",
    "intervention": "Ivan had grown cacti",
    "original_condition": "Ivan grew tomatoes",
    "illustrative_answer": "Ivan grew cacti and rarely watered them.",
    "preserve": ["Ivan had a garden."],
    "change": ["Ivan bought a pump."],
}


def _reason(text: str) -> str:
    with pytest.raises(Rejected) as caught:
        parse_output(text, CORE, "1v5", 5)
    return caught.value.reason


def test_a_good_answer_becomes_a_scenario_with_templated_queries() -> None:
    scenario = parse_output("```json\n" + json.dumps(GOOD) + "\n```", CORE, "1v5", 5)
    assert scenario.id == "1v5" and scenario.core_id == 1 and scenario.graph_type == CORE.graph_type
    assert scenario.queries[1] == (
        "Based on the preceding text, rewrite the scenario to reflect what would have happened if Ivan had grown cacti."
    )


def test_each_bad_answer_is_rejected_with_its_reason() -> None:
    assert _reason("Sure! Here is a story about ducks.") == "invalid_json"
    assert _reason("[1, 2]") == "invalid_json"
    assert _reason(json.dumps(GOOD | {"queries": ["a", "b"]})) == "wrong_query_count"
    assert _reason(json.dumps(GOOD | {"story": ""})) == "schema"
    assert _reason(json.dumps(GOOD | {"intervention": "grew cacti"})) == "schema"
    assert _reason(json.dumps(GOOD | {"mood": "happy"})) == "schema"
    assert _reason(json.dumps({k: v for k, v in GOOD.items() if k != "preserve"})) == "schema"


def test_prompts_vary_by_slot_and_attempt_and_have_a_stable_fingerprint() -> None:
    first, second = augment_messages(CORE, 1, 1), augment_messages(CORE, 1, 2)
    assert first != second and CORE.story in first[1].content
    assert prompt_fingerprint() == prompt_fingerprint() and len(prompt_fingerprint()) == 12


def test_a_slot_gives_up_after_max_attempts(project) -> None:
    result = augment(project, "mock/fixed:not json at all", per_core=1, max_attempts=2, concurrency=2, core_ids=["1v0"])
    assert result.added == [] and result.gave_up == 1 and result.rejects["invalid_json"] == 2


def test_augmenting_again_only_fills_missing_slots(project, tmp_path) -> None:
    script = tmp_path / "one.json"
    script.write_text(json.dumps([json.dumps(GOOD)]))
    assert augment(project, f"mock/file:{script}", per_core=1, core_ids=["1v0"]).added == ["1v1"]
    again = augment(project, f"mock/file:{script}", per_core=1, core_ids=["1v0"])
    assert again.calls == 0 and again.added == []


def umbrella_core() -> Scenario:
    """A core whose preserved umbrella is a consequence of the forecast that the repair errand keeps true."""
    edges = [("forecast", "expects_rain"), ("expects_rain", "took_umbrella"), ("bent_spoke", "took_umbrella")]
    return CORE.model_copy(
        update={
            "graph_type": GraphType.collider,
            "graph": CausalGraph(
                variables=["forecast", "expects_rain", "took_umbrella", "bent_spoke"],
                edges=[Edge(source=a, target=b) for a, b in edges],
                intervened="forecast",
                preserve_facts=[Fact(text="Lena took her umbrella.", variable="took_umbrella", holds_despite=True)],
                change_facts=[Fact(text="Lena expected rain.", variable="expects_rain")],
            ),
        }
    )


def test_a_variation_with_a_fact_that_holds_despite_the_change_is_accepted() -> None:
    core = umbrella_core()
    prompt = augment_messages(core, 1, 1)[1].content
    assert "took_umbrella (holds despite the change" in prompt and '"holds_despite": true' in prompt
    answer = GOOD | {
        "story": "The almanac promised frost, so Ivan carried his gloves to the market; their seam also needed the tailor.",
        "preserve": ["Ivan carried his gloves to the market."],
        "change": ["Ivan expected frost."],
        "graph": {
            "variables": ["almanac", "expects_frost", "carried_gloves", "torn_seam"],
            "edges": [
                {"source": "almanac", "target": "expects_frost"},
                {"source": "expects_frost", "target": "carried_gloves"},
                {"source": "torn_seam", "target": "carried_gloves"},
            ],
            "intervened": "almanac",
            "preserve_facts": [
                {"text": "Ivan carried his gloves to the market.", "variable": "carried_gloves", "holds_despite": True}
            ],
            "change_facts": [{"text": "Ivan expected frost.", "variable": "expects_frost"}],
        },
    }
    scenario = parse_output(json.dumps(answer), core, "1v5", 5)
    assert scenario.graph is not None and scenario.graph.preserve_facts[0].holds_despite
    # the same answer without the flag keeps a descendant as preserved: rejected, with the reason
    answer["graph"]["preserve_facts"][0]["holds_despite"] = False
    with pytest.raises(Rejected, match="graph.preserve_facts\\[0\\]: preserved fact is about 'carried_gloves'"):
        parse_output(json.dumps(answer), core, "1v5", 5)
