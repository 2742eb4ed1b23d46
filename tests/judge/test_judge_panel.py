"""The strict majority of judges and of samples, the panel that asks them, and the self-preference rule."""

from __future__ import annotations

import asyncio
from itertools import permutations

import pytest

from cobe.calls.caller import Caller
from cobe.core.errors import DiskFull, InputError
from cobe.core.reserve import out_of_space
from cobe.dataset.schema import Scenario
from cobe.judge.judge_plan import plan_judges
from cobe.judge.panel import (
    JudgePanel,
    majority,
    provider_family,
    self_preference,
    self_preference_notices,
)
from cobe.judge.specs import panel_name, split_specs
from cobe.store.store import Store
from support.run_data import scenario
from support.store_reads import stored_count


def test_three_judges_two_against_one_is_a_majority() -> None:
    assert majority(["T", "F", "T"]) == ("T", None)
    assert majority(["F", "T", "F"]) == ("F", None)


def test_two_judges_one_each_is_a_tie_and_unscored() -> None:
    assert majority(["T", "F"]) == (None, "judges split 1 T / 1 F")


def test_an_unparseable_verdict_abstains() -> None:
    assert majority(["T", None, "T"]) == ("T", None)  # two of the two that answered
    assert majority(["T", "F", None]) == (None, "judges split 1 T / 1 F")  # the abstention breaks no tie
    assert majority([None, None], "samples") == (None, "no verdict from any of the samples")


@pytest.mark.parametrize("votes", [["T", "F"], ["T", "F", None], ["T", "T", "F", "F"], ["F", "T", "T"]])
def test_order_never_breaks_a_tie_or_changes_a_majority(votes: list) -> None:
    outcomes = {majority(order) for order in permutations(votes)}
    assert len(outcomes) == 1


def test_spec_lists_split_on_commas_and_keep_scripted_specs_whole() -> None:
    assert split_specs(["openai/gpt-5,anthropic/claude-x", "google/gemini-2"]) == [
        "openai/gpt-5",
        "anthropic/claude-x",
        "google/gemini-2",
    ]
    assert split_specs(["mock/cycle:T,F,T", "mock/judge-pass"]) == ["mock/cycle:T,F,T", "mock/judge-pass"]
    with pytest.raises(InputError, match="mock/judge-pass named twice"):
        split_specs(["mock/judge-pass", "mock/judge-fail,mock/judge-pass"])
    assert panel_name(["a/x"]) == "a/x" and panel_name(["a/x", "b/y"]) == "panel(a/x, b/y)"


@pytest.mark.parametrize(
    ("judge", "respondent", "why"),
    [
        ("openai/gpt-5.4", "openai-api/vllm/gpt-oss-20b", "the same provider family (openai)"),
        ("openai-api/azure/gpt-4o", "openai/o3", "the same provider family (openai)"),
        ("anthropic/claude-opus-4-7", "openai-api/router/claude-sonnet-4", "the same provider family (anthropic)"),
        ("google/gemini-2.5-pro", "openai-api/vllm/gemini-mirror", "the same provider family (google)"),
        ("openai-api/vllm/llama-3.1-70b", "vllm/meta/Llama-3.1-70B", "the same model"),
        ("openai/gpt-5.4", "anthropic/claude-opus-4-7", None),
        ("openai-api/vllm/qwen3-32b", "openai-api/vllm/llama-3.1-70b", None),
        ("mock/judge-pass", "mock/echo", None),
    ],
)
def test_the_provider_family_rule(judge: str, respondent: str, why: str | None) -> None:
    assert self_preference(judge, respondent) == why


def test_families_and_notices() -> None:
    assert provider_family("openai/o3") == "openai" and provider_family("openai-api/vllm/qwen") is None
    lines = self_preference_notices(["openai/gpt-5.4", "anthropic/claude-opus-4-7"], ["openai/gpt-4.1", "mock/echo"])
    assert lines == [
        "self-preference: judge openai/gpt-5.4 grades openai/gpt-4.1, the same provider family (openai); "
        "judges tend to favour answers of their own kind"
    ]


def _panel(tmp_path, specs: list[str], samples: int = 1) -> tuple[JudgePanel, Store]:
    store = Store(tmp_path / "cobe.sqlite")
    plan, _ = plan_judges(specs, "paper", samples=samples)
    return JudgePanel.from_plan(plan, Caller(store)), store


def _verdicts(tmp_path, specs: list[str]) -> dict[str, tuple]:
    panel, store = _panel(tmp_path, specs)
    try:
        results = asyncio.run(panel.checks(Scenario.model_validate(scenario(1)), "A rewrite."))
    finally:
        store.close()
    return {check: (r.verdict, r.unscored) for check, r in results.items()}


def test_a_panel_of_three_returns_each_checks_majority(tmp_path) -> None:
    got = _verdicts(tmp_path, ["mock/judge-pass", "mock/judge-fail", "mock/fixed:T"])
    assert got == dict.fromkeys(("connectors", "preserve", "change"), ("T", None))


def test_a_panel_of_two_that_split_leaves_every_check_unscored(tmp_path) -> None:
    got = _verdicts(tmp_path, ["mock/judge-pass", "mock/judge-fail"])
    assert set(got.values()) == {(None, "judges split 1 T / 1 F")}


def test_a_judge_whose_answer_cannot_be_read_abstains(tmp_path) -> None:
    agree = _verdicts(tmp_path, ["mock/judge-fail", "mock/fixed:maybe", "mock/fixed:F"])
    assert set(agree.values()) == {("F", None)}
    split = _verdicts(tmp_path / "b", ["mock/judge-pass", "mock/fixed:maybe", "mock/judge-fail"])
    assert set(split.values()) == {(None, "judges split 1 T / 1 F")}


def test_reversing_the_panel_changes_nothing(tmp_path) -> None:
    specs = ["mock/judge-pass", "mock/fixed:maybe", "mock/judge-fail", "mock/fixed:F"]
    forward = _verdicts(tmp_path / "a", specs)
    backward = _verdicts(tmp_path / "b", specs[::-1])
    assert forward == backward == dict.fromkeys(("connectors", "preserve", "change"), ("F", None))


def test_samples_are_asked_as_distinct_calls(tmp_path) -> None:
    panel, store = _panel(tmp_path, ["mock/judge-pass"], samples=3)
    try:
        asks = panel.asks(("preserve",))
        answers = asyncio.run(panel.ask(Scenario.model_validate(scenario(1)), "A rewrite.", asks))
        keys = [answers[ask].call_key for ask in asks]
        assert asks == [(0, "preserve", 0), (0, "preserve", 1), (0, "preserve", 2)]
        assert len(set(keys)) == 3
        stored = store.db.execute("SELECT request FROM calls WHERE key = ?", (keys[0],)).fetchone()[0]
        assert '"sample"' not in stored  # the first sample keeps the key a single ask always had
    finally:
        store.close()


async def test_a_check_that_stops_leaves_the_calls_beside_it_to_finish_and_keep_their_answers(tmp_path, monkeypatch):
    # seen under load: one check of a response met a full disk while another check's call was out, the first
    # error ended the item at once, and the call still out was answered by the server and never stored
    panel, store = _panel(tmp_path, ["mock/judge-pass"])
    provider = panel.members[0].provider
    answer, gate, failed = provider.generate, asyncio.Event(), asyncio.Event()
    sent = 0

    async def generate(*args, **kwargs):
        nonlocal sent
        sent += 1
        if sent == 1:  # the first check's call is still out when the disk fills
            await gate.wait()
        return await answer(*args, **kwargs)

    put_call = store.put_call

    def put_call_on_a_full_disk(row):
        if not failed.is_set():  # the first answer back finds no room, and the store says so from then on
            failed.set()
            store.out_of_space = True
            raise out_of_space(tmp_path)
        put_call(row)

    monkeypatch.setattr(provider, "generate", generate)
    monkeypatch.setattr(store, "put_call", put_call_on_a_full_disk)
    try:
        asking = asyncio.create_task(panel.checks(Scenario.model_validate(scenario(1)), "A rewrite."))
        await failed.wait()
        for _ in range(20):
            await asyncio.sleep(0)
        assert not asking.done()  # the call still out is waited for
        gate.set()
        with pytest.raises(DiskFull):
            await asking
        assert sent == 2  # the third check was never sent: the disk was full by then
        assert stored_count(tmp_path) == 1  # the answer that came back is kept
    finally:
        store.close()
