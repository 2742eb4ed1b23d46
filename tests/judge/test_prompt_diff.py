"""`judges diff`: one judge's stored verdicts under two prompt sets, compared; missing ones judged only when asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.run import EvalConfig, evaluate, judges_diff
from support.cli import run_cobe


@pytest.fixture
def judge(tmp_path: Path) -> str:
    """F to the checks whose prompt shows the original story (the contextual set's preserve and change), else T."""
    script = tmp_path / "judge.json"
    script.write_text(json.dumps({"<original_story>": "F", "default": "T"}))
    return f"mock/file:{script}"


@pytest.fixture
def run_dir(data_file: Path, judge: str) -> Path:
    return evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge=judge)).run_dir


def shown_prompts(run_dir: Path) -> str:
    return json.loads((run_dir / "summary.json").read_text())["judge_prompts"]


def test_without_a_judge_a_missing_prompt_set_is_named_in_one_line(run_dir, judge):
    with pytest.raises(InputError) as caught:
        judges_diff(run_dir, ("paper", "contextual"))
    message = str(caught.value)
    assert "\n" not in message
    assert f"12 of 12 responses have no verdicts of {judge} with prompt set contextual" in message
    assert f"cobe judge {run_dir} --judge {judge} --judge-prompts contextual" in message


def test_with_the_judge_the_missing_set_is_judged_and_the_flips_counted(run_dir, judge):
    diff = judges_diff(run_dir, "paper,contextual", judge)
    assert diff.judged["contextual"]["calls_made"] == 36
    table = {r["target"]: r for r in diff.records()}
    assert table["connectors"]["flips"] == 0 and table["connectors"]["compared"] == 12
    for target in ("preserve", "change", "overall"):
        assert table[target] | {"target": None} == {
            "target": None,
            "compared": 12,
            "flips": 12,
            "flip_rate": 100.0,
            "t_to_f": 12,
            "f_to_t": 0,
            "pass_rate_a": 100.0,
            "pass_rate_b": 0.0,
            "pass_rate_change": -100.0,
        }
    assert shown_prompts(run_dir) == "paper"  # the run still shows the judge it showed
    # both sets are stored now: the run's own judge is compared with no call at all
    again = judges_diff(run_dir, ("contextual", "paper"))
    assert again.judged == {} and {r["target"]: r["t_to_f"] for r in again.records()}["preserve"] == 0
    assert {r["target"]: r["f_to_t"] for r in again.records()}["preserve"] == 12


def test_the_command_prints_the_comparison_and_refuses_a_bad_prompts_list(run_dir, judge):
    done = run_cobe("judges", "diff", str(run_dir), "--judge", judge, "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["prompts"] == ["paper", "contextual"] and out["responses"] == 12
    assert [r["flips"] for r in out["diff"]] == [0, 12, 12, 12]
    table = run_cobe("judges", "diff", str(run_dir))
    assert table.returncode == 0 and "overall" in table.stdout and "-100.0" in table.stdout
    bad = run_cobe("judges", "diff", str(run_dir), "--prompts", "paper")
    assert bad.returncode == 2
    assert bad.stderr.strip() == "error: --prompts paper: expected two prompt sets, e.g. paper,contextual"
