"""Every caller that judges builds its judge with `JudgePanel.from_plan`, and one scenario with one response gives
the same verdicts through each of them: eval, re-judge, both self-tests, judging pairs (and curation's and the
agreement report's uses of it), the inspect task and the reward function.

The judge is scripted by content, so a caller that judged other text, or asked another check, would differ: it
answers F to the change criterion and to the unchanged story, T to anything else. The response is the
scenario's illustrative rewrite, which is also what the self-test's `illustrative` probe asks about.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from cobe.annotate.agreement_report import analyze_judges
from cobe.annotate.store import StudyStore
from cobe.annotate.study import create_study
from cobe.core.results import CHECKS, ResultRow
from cobe.curate.checks import CheckFailure, consistency_failures
from cobe.curate.project import Item
from cobe.dataset.loaders import spool_dataset
from cobe.dataset.schema import Scenario
from cobe.integrations.reward import CobeReward
from cobe.judge.checker import CheckResult
from cobe.judge.pairs import judge_responses
from cobe.judge.panel import JudgePanel
from cobe.judge.selftest import judge_check, select_scenarios
from cobe.judge.selftest_result import SelfTest
from cobe.run import EvalConfig, evaluate, generate, judge_run
from support.run_data import write_dataset

EXPECTED = {"connectors": "T", "preserve": "T", "change": "F"}
#: what the same judge says of the unchanged story: had a caller judged it instead, every check would differ
OF_THE_STORY = {"connectors": "F", "preserve": "F", "change": "F"}


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Two scenarios of two core examples (the self-test's swapped probe needs a partner)."""
    return write_dataset(tmp_path / "data.jsonl", 2)


@pytest.fixture
def chosen(data: Path) -> Scenario:
    """The scenario a one-scenario self-test draws: every caller judges this one."""
    return select_scenarios(spool_dataset(str(data)), 1, 0)[0]


@pytest.fixture
def judge(tmp_path: Path) -> str:
    """F for the change criterion ("Many visitors bought bread.") and for the story ("..., so the shelves")."""
    script = tmp_path / "judge.yaml"
    script.write_text(
        '"Many visitors bought bread, so": "F"\n"Many visitors bought bread.": "F"\ndefault: "T"\n', encoding="utf-8"
    )
    return f"mock/file:{script}"


class Spy:
    """Which plans `JudgePanel.from_plan` built judges for, and every verdict a panel's `checks` returned."""

    def __init__(self) -> None:
        self.built: list[str] = []
        self.seen: dict[tuple[str, str], dict[str, str | None]] = {}


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    spy = Spy()
    build, checks = JudgePanel.from_plan.__func__, JudgePanel.checks  # type: ignore[attr-defined]

    def from_plan(cls: type[JudgePanel], plan: Any, caller: Any, providers: Any = None) -> JudgePanel:
        spy.built.append(plan.spec)
        return build(cls, plan, caller, providers)

    async def recorded(self: JudgePanel, scenario: Scenario, response: str, *args: Any) -> dict[str, CheckResult]:
        results = await checks(self, scenario, response, *args)
        spy.seen.setdefault((scenario.id, response), {}).update({c: r.verdict for c, r in results.items()})
        return results

    monkeypatch.setattr(JudgePanel, "from_plan", classmethod(from_plan))
    monkeypatch.setattr(JudgePanel, "checks", recorded)
    return spy


def shown_verdicts(run_dir: Path, scenario_id: str) -> dict[str, str | None]:
    """The verdicts results.jsonl shows for the scenario's response under template A."""
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    [row] = [r for r in rows if r["scenario_id"] == scenario_id and r["template"] == "A"]
    return row["verdicts"]


def probe_verdicts(test: SelfTest | dict[str, Any], probe: str = "illustrative") -> dict[str, str | None]:
    """What a one-scenario self-test's judge said on a probe, read back from its counts."""
    result = test if isinstance(test, SelfTest) else SelfTest.model_validate(test)
    assert len(result.scenarios) == 1
    return {
        row.check: ("T" if row.says_t else "F") if row.scored else None for row in result.checks if row.probe == probe
    }


def config(data: Path, run_dir: Path, judge: str | None, **extra: Any) -> EvalConfig:
    return EvalConfig(
        models=["baseline/illustrative"], judge=judge, data=str(data), templates=["A"], run_dir=run_dir, **extra
    )


def test_eval_and_its_judge_check(spy: Spy, data: Path, chosen: Scenario, judge: str, tmp_path: Path) -> None:
    summary = evaluate(config(data, tmp_path / "eval", judge, judge_check=1))
    assert shown_verdicts(summary.run_dir, chosen.id) == EXPECTED
    assert probe_verdicts(summary.summary["judge_check"]) == EXPECTED
    assert spy.built == [judge, judge]  # the run's judge, and its self-test's


def test_rejudge(spy: Spy, data: Path, chosen: Scenario, judge: str, tmp_path: Path) -> None:
    run_dir = generate(config(data, tmp_path / "run", None)).run_dir
    assert spy.built == []
    judge_run(run_dir, judge)
    assert shown_verdicts(run_dir, chosen.id) == EXPECTED
    assert spy.built == [judge]


def test_judges_check(spy: Spy, data: Path, judge: str, tmp_path: Path) -> None:
    result = judge_check(judge, data=str(data), n=1, run_dir=tmp_path / "check")
    assert probe_verdicts(result) == EXPECTED
    assert probe_verdicts(result, "identity") == {"change": "F"}
    assert spy.built == [judge]


def test_judging_pairs(spy: Spy, chosen: Scenario, judge: str, tmp_path: Path) -> None:
    response = chosen.illustrative_answer
    [item] = judge_responses([(chosen, response)], judge, store_path=tmp_path / "pairs.sqlite")
    assert item.verdicts == EXPECTED and item.status == "failed"
    [story] = judge_responses([(chosen, chosen.story)], judge, store_path=tmp_path / "pairs.sqlite")
    assert story.verdicts == OF_THE_STORY  # the script tells the texts apart
    assert spy.built == [judge, judge]


def test_a_panel_with_samples_through_the_pairs_path(spy: Spy, chosen: Scenario, judge: str, tmp_path: Path) -> None:
    panel = [judge, "mock/judge-pass", "mock/judge-fail"]  # the scripted judge casts the deciding vote
    [item] = judge_responses(
        [(chosen, chosen.illustrative_answer)], panel, store_path=tmp_path / "panel.sqlite", samples=3
    )
    assert item.verdicts == EXPECTED
    assert item.checks["change"].raw == "F | F | F | T | T | T | F | F | F"  # each judge, each of its three samples
    assert spy.built == ["panel(" + ", ".join(panel) + ")"]


def test_curation_consistency_check(spy: Spy, chosen: Scenario, judge: str, tmp_path: Path) -> None:
    item = Item(
        id="c1",
        core_id=chosen.core_id,
        variation=chosen.variation,
        status="candidate",
        is_core=False,
        parent_id=None,
        source="test",
        model=None,
        prompt_fingerprint=None,
        scenario=chosen,
        created_at="",
        updated_at="",
    )
    failures = consistency_failures([item], judge, str(tmp_path / "calls.sqlite"))
    # the illustrative answer fails change and nothing else; the unchanged story fails change, as it should
    assert failures == [CheckFailure("c1", "self_consistency", "illustrative answer fails the change check")]
    assert spy.seen[(chosen.id, chosen.illustrative_answer)] == EXPECTED
    assert spy.built == [judge]


def test_agreement_report_judge_ranking(spy: Spy, chosen: Scenario, judge: str, tmp_path: Path) -> None:
    row = ResultRow(
        run_id="r",
        model="m/x",
        scenario_id=chosen.id,
        core_id=chosen.core_id,
        variation=chosen.variation,
        domain=chosen.domain or "",
        template="A",
        story=chosen.story,
        query=chosen.queries[0],
        preserve=chosen.preserve,
        change=chosen.change,
        response=chosen.illustrative_answer,
        status="pending",
    )
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "results.jsonl").write_text(row.model_dump_json() + "\n", encoding="utf-8")
    links = create_study(run_dir, tmp_path / "study", n=1, seed=0, raters=2, base_url="http://testserver")
    store = StudyStore(links.path)
    for person in store.principals()[:2]:
        for rated in store.items():
            store.save_rating(person.id, rated.id, "No", "")
    [ranked] = analyze_judges(tmp_path / "study", [judge], resamples=0)
    assert ranked["judge"] == judge
    assert spy.seen[(chosen.id, chosen.illustrative_answer)] == EXPECTED
    assert spy.built == [judge]


def inspect_score(chosen: Scenario, judge: str | list[str], **options: Any) -> Any:
    """The inspect task's scorer on the chosen scenario's illustrative rewrite, as inspect would call it."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.model import ModelName, ModelOutput
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState

    from cobe.integrations.inspect_task import cobe_judge, sample_metadata

    state = TaskState(
        ModelName("mockllm/model"),
        sample_id=f"{chosen.id}-A",
        epoch=1,
        input="",
        messages=[],
        output=ModelOutput.from_content("mockllm/model", chosen.illustrative_answer),
        metadata=sample_metadata(chosen, "A", 1, 0),
    )
    return asyncio.run(cobe_judge(judge, **options)(state, Target("")))


def test_inspect_task_scorer(spy: Spy, chosen: Scenario, judge: str) -> None:
    score = inspect_score(chosen, judge)
    assert score.metadata["verdicts"] == EXPECTED and score.metadata["judge"] == judge
    assert score.value["passed"] == 0.0
    assert {c: score.value[c] for c in CHECKS} == {"connectors": 1.0, "preserve": 1.0, "change": 0.0}
    assert spy.built == [judge]


def test_inspect_task_scorer_with_a_panel_and_samples(spy: Spy, chosen: Scenario, judge: str) -> None:
    panel = f"{judge},mock/judge-pass,mock/judge-fail"  # as -T judge=... gives it
    score = inspect_score(chosen, panel, judge_samples=2)
    assert score.metadata["verdicts"] == EXPECTED
    assert score.metadata["judge"] == f"panel({judge}, mock/judge-pass, mock/judge-fail)"
    assert score.metadata["judge_fingerprint"].startswith("panel-")
    assert spy.built == [score.metadata["judge"]]


def test_reward_function(spy: Spy, data: Path, chosen: Scenario, judge: str, tmp_path: Path) -> None:
    reward = CobeReward(judge, str(data), store=tmp_path / "reward.sqlite", partial=True)
    assert reward([chosen.illustrative_answer], scenario_id=[chosen.id]) == [pytest.approx(2 / 3)]
    assert spy.seen[(chosen.id, chosen.illustrative_answer)] == EXPECTED
    assert spy.built == [judge]
