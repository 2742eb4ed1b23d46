"""The run plan: its items and messages, one plan for the run and --dry-run, the judge settings in one place."""

from __future__ import annotations

import gc
import json
import sqlite3
import typing
from pathlib import Path

import pytest

from cobe.core.errors import BudgetExceeded, InputError
from cobe.dataset import Scenario, load_dataset, sample_scenarios
from cobe.dataset.spool import RECENT, ScenarioSpool
from cobe.models.base import Message
from cobe.run import EvalConfig, evaluate, generate, judge_run
from cobe.run.config import EvalOptions
from cobe.run.engine import RunSetUp, open_session
from cobe.run.plan import plan_rejudge, plan_run
from cobe.store.store import STORE_NAME, Store
from support.run_data import scenario, write_dataset

SPEC = "openai-api/fake/fake-model"


@pytest.fixture
def mixed_data(tmp_path: Path) -> Path:
    """Two scenarios; only the first says what originally happened, so E uses its fallback wording for the second."""
    first = dict(scenario(1), original_condition="the baker 1 kept the shop open late")
    path = tmp_path / "mixed.jsonl"
    path.write_text(json.dumps(first) + "\n" + json.dumps(scenario(2)) + "\n", encoding="utf-8")
    return path


def test_plan_lists_each_item_with_its_messages(mixed_data):
    config = EvalConfig(
        data=str(mixed_data), models=["mock/echo", "baseline/identity"], judge="mock/echo", templates=["A", "E"]
    )
    plan = plan_run(config)
    one, two = plan.scenarios
    got = [(i.model, i.scenario.id, i.template.name) for i in plan.items]
    assert got == [
        ("mock/echo", "1v0", "A"),
        ("mock/echo", "1v0", "E"),
        ("mock/echo", "2v0", "A"),
        ("mock/echo", "2v0", "E"),
        ("baseline/identity", "1v0", "A"),
        ("baseline/identity", "1v0", "E"),
        ("baseline/identity", "2v0", "A"),
        ("baseline/identity", "2v0", "E"),
    ]
    assert plan.skipped == {}
    assert "1 scenario × template pairs state the change without the original condition" in plan.notices[0]
    assert plan.notices[0].endswith(": E: 1")
    first = plan.items[0]
    assert first.messages == (Message(role="user", content=f"{one.story}\n\n{one.queries[0]}"),)
    assert first.prompt == first.messages[-1].content and first.response_key == ("mock/echo", "1v0", "A")
    e_prompt = plan.items[1].prompt
    assert e_prompt.startswith(one.story) and "in reality the baker 1 kept the shop open late" in e_prompt
    assert plan.items[2].messages[-1].content == f"{two.story}\n\n{two.queries[0]}"
    fallback = plan.items[3].prompt
    assert fallback.startswith(two.story) and "in reality" not in fallback and two.intervention.rstrip(".") in fallback
    # the same chat for every model, and one provider per spec (a model judging itself shares it)
    assert plan.items[4].messages == first.messages
    assert set(plan.providers) == {"mock/echo", "baseline/identity"}
    assert plan.respondent is not None and plan.respondent.max_tokens == 512
    assert plan.judge is not None and plan.judge.spec == "mock/echo" and plan.judge.batch_poll_s is None
    assert plan.stored_config["template_names"] == ["A", "E"] and len(plan.data_fingerprint) == 16
    assert plan.run_dir == Path("runs/mock_echo-baseline_identity__mixed__tpl-A-E")
    assert plan.summary_fields()["skipped"] == {}


def test_generate_plans_no_judge_and_nothing_is_written(mixed_data):
    plan = plan_run(
        EvalConfig(data=str(mixed_data), models=["mock/echo"], judge="mock/judge-pass"), "generate", with_judge=False
    )
    assert plan.judge is None and set(plan.providers) == {"mock/echo"}
    assert not plan.run_dir.exists()


def test_a_stored_run_plans_the_same_items_for_its_judge(data_file):
    config = EvalConfig(data=str(data_file), models=["mock/echo"], templates=["A", "C"])
    planned = plan_run(config, "generate", with_judge=False)
    g = generate(config)
    store = Store(g.run_dir / STORE_NAME)
    try:
        again = plan_rejudge(store, g.run_dir, "mock/judge-pass", "default", {"judge_temperature": 0.3})
    finally:
        store.close()
    assert [(i.response_key, i.messages) for i in again.items] == [(i.response_key, i.messages) for i in planned.items]
    assert again.run_id == g.run_id and again.respondent is None and again.command == "judge"
    assert again.judge is not None and again.judge.settings.temperature == 0.3
    assert again.data_fingerprint == planned.data_fingerprint


def test_dry_run_after_generate_counts_the_judge_calls_the_run_makes(data_file):
    base = dict(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass")
    generate(EvalConfig(**base))
    dry = evaluate(EvalConfig(**base, dry_run=True)).dry_run
    assert dry is not None
    assert (dry.respondent_calls, dry.respondent_cached, dry.judge_calls, dry.judge_cached) == (0, 12, 36, 0)
    made = evaluate(EvalConfig(**base)).stats
    assert (made["respondent"]["calls_made"], made["judge"]["calls_made"]) == (0, 36)


def test_dry_run_and_run_agree_on_what_is_left_after_a_stop(data_file, openai_server, monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_BASE_URL", openai_server.base_url)
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  fake-model: {input: 1000, output: 1000}\n")  # $0.001 a token
    base = dict(data=str(data_file), models=[SPEC], judge=SPEC, prices=prices, concurrency=2, max_tokens=64)
    with pytest.raises(BudgetExceeded):
        evaluate(EvalConfig(**base, max_cost=0.5))  # stops part way: some items generated, some judged
    dry = evaluate(EvalConfig(**base, dry_run=True)).dry_run
    assert dry is not None
    assert dry.respondent_calls + dry.respondent_cached == 12 and dry.judge_calls + dry.judge_cached == 36
    assert 0 < dry.respondent_calls + dry.judge_calls < 12 + 36
    sent = openai_server.stats()["requests"]
    made = evaluate(EvalConfig(**base)).stats
    assert made["respondent"]["calls_made"] == dry.respondent_calls
    assert made["judge"]["calls_made"] == dry.judge_calls
    assert openai_server.stats()["requests"] - sent == dry.respondent_calls + dry.judge_calls
    left = evaluate(EvalConfig(**base, dry_run=True)).dry_run
    assert left is not None and (left.respondent_calls, left.judge_calls) == (0, 0)


def test_judge_temperature_override_reaches_the_run_and_the_dry_run(data_file):
    base = dict(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass")
    plan = plan_run(EvalConfig(**base, judge_temperature=0.7))
    assert plan.judge is not None and plan.judge.settings.temperature == 0.7 and plan.judge.settings.max_tokens == 5
    assert plan_run(EvalConfig(**base)).judge.settings.temperature == 0  # the prompt set's own
    first = evaluate(EvalConfig(**base, judge_temperature=0.7))
    db = sqlite3.connect(first.run_dir / STORE_NAME)
    stored = {json.loads(s)["temperature"] for (s,) in db.execute("SELECT judge_settings FROM verdicts")}
    assert stored == {0.7}
    # as after a kill between the judge calls' commit and their verdicts': only the calls are stored
    with db:
        db.execute("DELETE FROM verdicts")
    db.close()
    same = evaluate(EvalConfig(**base, judge_temperature=0.7, dry_run=True)).dry_run
    other = evaluate(EvalConfig(**base, judge_temperature=0.2, dry_run=True)).dry_run
    assert same is not None and (same.judge_calls, same.judge_cached) == (0, 36)
    assert other is not None and (other.judge_calls, other.judge_cached) == (36, 0)
    rerun = evaluate(EvalConfig(**base, judge_temperature=0.7)).stats["judge"]
    assert (rerun["calls_made"], rerun["calls_cached"]) == (0, 36)


def test_a_session_judges_with_the_plans_settings(data_file):
    plan = plan_run(
        EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", judge_temperature=0.4)
    )
    session = open_session(plan, RunSetUp(Store(plan.run_dir / STORE_NAME)))
    try:
        assert session.panel is not None and plan.judge is not None
        assert [judge.settings for judge in session.panel.members] == [plan.judge.settings]
    finally:
        session.store.close()


def test_run_eval_options_name_every_other_config_field():
    assert set(typing.get_type_hints(EvalOptions)) == set(EvalConfig.model_fields) - {"models", "judge", "data"}


def test_a_template_reworded_since_the_stored_responses_is_refused_not_mixed(mixed_data, tmp_path):
    config = EvalConfig(data=str(mixed_data), models=["mock/echo"], templates=["A", "E"], run_dir=tmp_path / "run")
    generate(config)
    db = sqlite3.connect(tmp_path / "run" / STORE_NAME)
    db.execute("UPDATE responses SET prompt = 'older wording of the request' WHERE template = 'E'")
    db.commit()
    db.close()
    with pytest.raises(InputError, match="stored responses to template E answered other prompt wording"):
        generate(config)
    # judging the stored answers calls no respondent, so it is not refused
    assert judge_run(tmp_path / "run", "mock/judge-pass").state == "complete"


def test_a_plan_holds_its_scenarios_on_disk_and_reads_each_when_an_item_needs_it(tmp_path):
    path = write_dataset(tmp_path / "many.jsonl", 600)
    config = EvalConfig(data=str(path), models=["mock/echo"], judge="mock/judge-pass", templates=["A", "B"])
    plan = plan_run(config)
    assert isinstance(plan.scenarios, ScenarioSpool) and len(plan.scenarios) == 600
    assert not any(isinstance(value, Scenario) for item in plan.items for value in gc.get_referents(item))
    assert len(plan.scenarios._recent) == 0  # planning parsed each scenario once and kept none
    assert [i.scenario_id for i in plan.items[:4]] == ["1v0", "1v0", "2v0", "2v0"]
    assert plan.items[3].scenario == Scenario.model_validate(scenario(2))
    summary = evaluate(config.model_copy(update={"run_dir": str(tmp_path / "run")}))
    assert summary.state == "complete" and summary.items == 1200
    assert len(plan.scenarios._recent) <= RECENT


def test_a_sampled_plan_draws_what_sample_scenarios_draws(tmp_path):
    path = write_dataset(tmp_path / "many.jsonl", 50)
    config = EvalConfig(data=str(path), models=["mock/echo"], judge="mock/echo", sample=7, seed=3, limit=5)
    expected = [s.id for s in sample_scenarios(load_dataset(path).scenarios, 7, 3)][:5]
    assert plan_run(config).scenarios.ids == expected
    assert plan_run(config.model_copy(update={"sample": None})).scenarios.ids == [f"{i}v0" for i in range(1, 6)]
