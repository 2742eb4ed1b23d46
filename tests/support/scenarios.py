"""A small scenario for prompt and judge tests, written for this project (no dataset text copied)."""

from __future__ import annotations

import pytest

from cobe.dataset.schema import Scenario


def make_scenario(**overrides: object) -> Scenario:
    """A small scenario with intervention fields; override any field."""
    fields: dict[str, object] = {
        "id": "12v2",
        "core_id": 12,
        "variation": 2,
        "domain": "daily life",
        "story": "Ravi missed the 8:05 ferry, so he reached the island after lunch. He ate alone.",
        "queries": [
            "Rewrite the original text, based on what would have happened instead had Ravi caught the 8:05 ferry.",
            "Based on the preceding text, rewrite the scenario to reflect what would have happened if Ravi had caught the 8:05 ferry.",
            "Rewrite the above passage to illustrate what would have occurred had Ravi caught the 8:05 ferry.",
        ],
        "preserve": ["Ravi travelled to the island.", "The ferry left at 8:05."],
        "change": ["Ravi reached the island after lunch."],
        "intervention": "Ravi had caught the 8:05 ferry.",
        "original_condition": "Ravi missed the 8:05 ferry",
    }
    fields.update(overrides)
    return Scenario.model_validate(fields)


@pytest.fixture
def scenario_factory():
    """`make_scenario` as a fixture, for tests that override fields."""
    return make_scenario


@pytest.fixture
def scenario() -> Scenario:
    return make_scenario()


@pytest.fixture
def bare_scenario() -> Scenario:
    """The same item without the intervention fields that tiers 2–4 need."""
    return make_scenario(intervention=None, original_condition=None)
