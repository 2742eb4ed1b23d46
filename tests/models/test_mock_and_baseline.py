"""Scripted mock models and the identity / illustrative baselines."""

from __future__ import annotations

import json

import pytest

from cobe.core.errors import InputError
from cobe.dataset.schema import Scenario
from cobe.models import GenerateConfig, Message, get_provider

CFG = GenerateConfig()


def ask(text: str) -> list[Message]:
    return [Message(role="system", content="sys words"), Message(role="user", content=text)]


async def test_echo_and_fixed():
    echo = get_provider("mock/echo")
    out = await echo.generate(ask("hello big world"), CFG)
    assert out.text == "hello big world" and out.input_tokens == 5 and out.output_tokens == 3
    assert echo.cacheable()
    fixed = get_provider("mock/fixed:The cat stayed home.")
    assert (await fixed.generate(ask("x"), CFG)).text == "The cat stayed home."


async def test_judges():
    assert (await get_provider("mock/judge-pass").generate(ask("q"), CFG)).text == "T"
    out = await get_provider("mock/judge-fail").generate(ask("q"), GenerateConfig(logprobs=True))
    assert out.text == "F" and out.first_token_logprobs == {"F": 0.0}


async def test_cycle_counts_calls_and_is_not_cacheable():
    cycle = get_provider("mock/cycle:T,F,garbage")
    texts = [(await cycle.generate(ask("q"), CFG)).text for _ in range(4)]
    assert texts == ["T", "F", "garbage", "T"]
    assert not cycle.cacheable()


async def test_max_tokens_truncates():
    out = await get_provider("mock/echo").generate(ask("a b c d"), GenerateConfig(max_tokens=2))
    assert out.text == "a b" and out.finish_reason == "length"


async def test_file_mapping_and_list(tmp_path):
    table = tmp_path / "script.yaml"
    table.write_text("rain: It stayed dry.\nsnow: It melted.\ndefault: Nothing changed.\n")
    provider = get_provider(f"mock/file:{table}")
    assert (await provider.generate(ask("what if the snow and rain"), CFG)).text == "It stayed dry."
    assert (await provider.generate(ask("what if snow"), CFG)).text == "It melted."
    assert (await provider.generate(ask("other"), CFG)).text == "Nothing changed."
    assert provider.cacheable()
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps(["one", "two"]))
    provider = get_provider(f"mock/file:{listed}")
    assert [(await provider.generate(ask("q"), CFG)).text for _ in range(3)] == ["one", "two", "one"]
    assert not provider.cacheable()


def test_file_errors(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        get_provider(f"mock/file:{tmp_path / 'missing.json'}")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="bad.json:1: invalid JSON"):
        get_provider(f"mock/file:{bad}")
    bad.write_text("[1, 2]")
    with pytest.raises(InputError, match="expected a non-empty list"):
        get_provider(f"mock/file:{bad}")


async def test_file_mapping_without_default(tmp_path):
    table = tmp_path / "t.json"
    table.write_text(json.dumps({"rain": "dry"}))
    with pytest.raises(InputError, match="no script key matches"):
        await get_provider(f"mock/file:{table}").generate(ask("snow"), CFG)


def test_unknown_mock_form():
    with pytest.raises(InputError, match="unknown mock form"):
        get_provider("mock/wat")


async def test_latency_env(monkeypatch):
    monkeypatch.setenv("COBE_MOCK_LATENCY", "0.01")
    out = await get_provider("mock/echo").generate(ask("q"), CFG)
    assert out.latency_s == 0.01
    monkeypatch.setenv("COBE_MOCK_LATENCY", "slow")
    with pytest.raises(InputError, match="COBE_MOCK_LATENCY"):
        get_provider("mock/echo")


SCENARIO = Scenario(
    id="1v1",
    core_id=1,
    variation=1,
    domain="daily life",
    story="Mara took the bus because her bike was broken.",
    queries=["a", "b", "c"],
    illustrative_answer="Mara rode her bike.",
    preserve=["Mara went out."],
    change=["Mara took the bus."],
)


async def test_baselines():
    identity = get_provider("baseline/identity")
    out = await identity.generate(ask("q"), CFG, scenario=SCENARIO)
    assert out.text == SCENARIO.story and out.input_tokens == 0 and out.output_tokens == 0
    out = await get_provider("baseline/illustrative").generate(ask("q"), CFG, scenario=SCENARIO)
    assert out.text == "Mara rode her bike."
    with pytest.raises(InputError, match="scenario="):
        await identity.generate(ask("q"), CFG)
    with pytest.raises(InputError, match="unknown baseline"):
        get_provider("baseline/oracle")
