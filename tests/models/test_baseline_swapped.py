"""`baseline/swapped`: another core example's illustrative rewrite, chosen deterministically."""

from __future__ import annotations

import random

import pytest

from cobe.core.errors import InputError
from cobe.dataset.spool import ScenarioSpool
from cobe.models import GenerateConfig, Message, get_provider
from cobe.models.baseline import swap_partners
from support.scenarios import make_scenario

ASK = [Message(role="user", content="q")]


def pool() -> list:
    out = []
    for core in (3, 7, 12):
        for variation in (1, 2):
            out.append(
                make_scenario(
                    id=f"{core}v{variation}",
                    core_id=core,
                    variation=variation,
                    illustrative_answer=f"Rewrite of {core}v{variation}.",
                )
            )
    return out


def test_partners_come_from_the_next_core_example_at_the_same_position():
    partners = swap_partners(pool())
    assert {k: v.id for k, v in partners.items()} == {
        "3v1": "7v1",
        "3v2": "7v2",
        "7v1": "12v1",
        "7v2": "12v2",
        "12v1": "3v1",
        "12v2": "3v2",
    }
    shuffled = pool()
    random.Random(4).shuffle(shuffled)
    assert {k: v.id for k, v in swap_partners(shuffled).items()} == {k: v.id for k, v in partners.items()}


def test_a_core_with_fewer_variations_wraps_round():
    scenarios = [*pool(), make_scenario(id="20v1", core_id=20, variation=1, illustrative_answer="R20.")]
    partners = swap_partners(scenarios)
    assert partners["12v2"].id == "20v1" and partners["20v1"].id == "3v1"


def test_scenarios_without_an_illustrative_answer_are_neither_asked_nor_partners():
    scenarios = [*pool(), make_scenario(id="9v1", core_id=9, variation=1, illustrative_answer="")]
    partners = swap_partners(scenarios)
    assert "9v1" not in partners and all(p.id != "9v1" for p in partners.values())


def test_one_core_example_is_not_enough():
    with pytest.raises(InputError, match="at least two core examples"):
        swap_partners([s for s in pool() if s.core_id == 3])


async def test_the_provider_answers_with_the_partners_rewrite():
    provider = get_provider("baseline/swapped")
    scenarios = pool()
    with pytest.raises(InputError, match="needs the dataset"):
        await provider.generate(ASK, GenerateConfig(), scenario=scenarios[0])
    for each in (provider, get_provider("baseline/identity")):  # the Provider hook a run calls on every provider
        each.use_scenarios(scenarios)
    out = await provider.generate(ASK, GenerateConfig(), scenario=scenarios[0])
    assert out.text == "Rewrite of 7v1." and out.input_tokens == 0
    stranger = make_scenario(id="99v1", core_id=99, variation=1, illustrative_answer="x")
    with pytest.raises(InputError, match="no partner"):
        await provider.generate(ASK, GenerateConfig(), scenario=stranger)


def test_unknown_baselines_name_all_three():
    with pytest.raises(InputError, match="baseline/swapped"):
        get_provider("baseline/oracle")


async def test_a_spooled_dataset_gives_the_same_partners_and_stays_on_disk():
    scenarios = pool()
    spool = ScenarioSpool(scenarios)
    assert {k: v.id for k, v in swap_partners(spool).items()} == {k: v.id for k, v in swap_partners(scenarios).items()}
    provider, spool = get_provider("baseline/swapped"), ScenarioSpool(scenarios)
    provider.use_scenarios(spool)
    assert len(spool._recent) == 0  # finding partners parsed each scenario once and kept none
    out = await provider.generate(ASK, GenerateConfig(), scenario=scenarios[5])
    assert out.text == "Rewrite of 3v2."
