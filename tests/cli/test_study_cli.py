"""`cobe plan` as a user runs it: from stated rates, from a pilot run, and one line per bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import CliResult, run_cobe
from support.results import family_rows, make_rows, write_run


def plan(tmp_path: Path, *args: str) -> CliResult:
    return run_cobe("plan", *args, cwd=tmp_path)


def test_stated_rates_answer_all_three_questions(tmp_path):
    r = plan(tmp_path, "--pass-rate", "0.6", "--icc", "0.5", "--judge-sensitivity", "0.9", "--judge-specificity", "0.8")
    assert r.returncode == 0, r.stderr
    assert "scenarios for the accuracy's CI half-width: 683 scenarios" in r.stdout
    assert "judge–human correlation: 0.707 (stated)" in r.stdout
    assert "smallest difference two models show at 80% power:" in r.stdout and "exact McNemar" in r.stdout
    data = json.loads(plan(tmp_path, "--pass-rate", "0.6", "--icc", "0.5", "--items", "900", "--json").stdout)
    assert data["pilot"] is None and data["answers"][0]["value"] == 683
    assert data["answers"][2]["inputs"]["paired items"] == [900, "stated"]


def test_a_pilot_run_with_two_models(tmp_path):
    rows = make_rows("mock/a", 30, 0.7) + make_rows("mock/b", 30, 0.5)
    run = write_run(tmp_path / "pilot", rows)
    r = plan(tmp_path, str(run))
    assert r.returncode == 2 and "holds several models" in r.stderr and "--model" in r.stderr
    r = plan(tmp_path, str(run), "--model", "mock/a", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["pilot"]["model"] == "mock/a" and data["pilot"]["scenarios"] == 30
    psi, source = data["answers"][2]["inputs"]["discordant share ψ"]
    assert source == "pilot (vs mock/b)" and 0 < psi < 1


def test_bad_input_is_one_line(tmp_path):
    r = plan(tmp_path, "--judge-sensitivity", "0.9")
    assert r.returncode == 2 and r.stderr.strip() == (
        "error: --judge-sensitivity and --judge-specificity go together; give both or neither"
    )
    run = write_run(tmp_path / "pilot", make_rows("mock/a", 3))
    r = plan(tmp_path, str(run), "--model", "nope")
    assert r.returncode == 2 and "--model 'nope': not in" in r.stderr


def test_a_pilot_without_spread_is_worded_right(tmp_path):
    """One scenario, every phrasing passed: no count of scenarios answers (not '1 scenario'), and what follows is
    said in words; no 'nan'."""
    run = write_run(tmp_path / "pilot", make_rows("mock/a", 1, 1.0))
    r = plan(tmp_path, str(run), "--human-rate", "0.6", "--items", "3")
    assert r.returncode == 0, r.stderr
    assert "(mock/a): 1 scenario × 3 phrasings" in r.stdout
    assert "scenarios for the accuracy's CI half-width: no answer: nothing varies\n" in r.stdout
    assert "the pilot's rates leave no spread (it passed every answer, or none)" in r.stdout
    assert "human labels for the calibrated CI half-width: not reachable" in r.stdout
    assert "not reachable with 3 judged items: even labelling every one leaves the interval wider" in r.stdout
    assert "nan" not in r.stdout.lower() and "normal approximation (Connor): not reachable" in r.stdout


def test_a_pilot_in_families_plans_with_their_design_effect(tmp_path):
    run = write_run(tmp_path / "pilot", family_rows("mock/a", cores=20, variations=10))
    data = json.loads(plan(tmp_path, str(run), "--json").stdout)
    assert data["pilot"]["cores"] == 20 and data["pilot"]["core_icc"] == 1.0
    inputs = data["answers"][0]["inputs"]
    assert inputs["variations per core example"] == [10.0, "pilot"] and inputs["design effect"][0] == 10.0
    # outcomes fixed by the core: ten times the scenarios of independent ones, 200 more cores' worth
    independent = json.loads(plan(tmp_path, str(run), "--json", "--core-icc", "0").stdout)["answers"][0]["value"]
    assert data["answers"][0]["value"] == pytest.approx(10 * independent, rel=0.01)
    shown = plan(tmp_path, str(run)).stdout
    assert "Pilot" in shown and "200 scenarios in 20 core examples × 3 phrasings" in shown
    assert "core examples of 10 variations each" in shown


SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"


@pytest.fixture
def site_run(tmp_path: Path) -> Path:
    """The site's category-examples shape imported as a run: 12 scenarios, each asked in one phrasing (its
    query_idx), three models."""
    from cobe.integrations.site_results import import_site_results

    return import_site_results(SITE / "category-examples.json", tmp_path / "site").out


def test_a_site_pilot_counts_the_phrasings_each_scenario_has(tmp_path, site_run):
    r = plan(tmp_path, str(site_run), "--model", "gpt-5.4-pro")
    assert r.returncode == 0, r.stderr
    assert "(gpt-5.4-pro): 12 scenarios in 5 core examples × 1 phrasing," in r.stdout
    assert "× 3 phrasings" not in r.stdout
    # one phrasing per scenario: nothing to estimate the ICC from, and the plan says so
    assert "phrasing correlation (ICC): 1 (assumed: the pilot answers each scenario in one phrasing" in r.stdout
    data = json.loads(plan(tmp_path, str(site_run), "--model", "gpt-5.4-pro", "--json").stdout)
    assert data["pilot"]["phrasings"] == 1 and data["pilot"]["icc"] is None
    assert data["answers"][0]["inputs"]["phrasings"] == [1, "pilot"]
    assert 0 <= data["answers"][0]["inputs"]["phrasing correlation (ICC)"][0] <= 1


def test_against_names_the_second_model_and_the_default_says_which(tmp_path, site_run):
    default = plan(tmp_path, str(site_run), "--model", "gpt-5.4-pro")
    line = next(x for x in default.stdout.splitlines() if "discordant share ψ" in x)
    assert "the most discordant of 2 models; --against MODEL chooses" in line
    assert "vs claude-opus-4.7" in line or "vs qwen-2.5-7b" in line
    chosen = json.loads(
        plan(tmp_path, str(site_run), "--model", "gpt-5.4-pro", "--against", "claude-opus-4.7", "--json").stdout
    )
    assert chosen["answers"][2]["inputs"]["discordant share ψ"][1] == "pilot (vs claude-opus-4.7)"
    assert chosen["answers"][2]["inputs"]["discordant share ψ"][0] == chosen["pilot"]["discordance"]["claude-opus-4.7"]
    self_paired = plan(tmp_path, str(site_run), "--model", "gpt-5.4-pro", "--against", "gpt-5.4-pro")
    assert self_paired.returncode == 2 and "the model planned from" in self_paired.stderr
    unknown = plan(tmp_path, str(site_run), "--model", "gpt-5.4-pro", "--against", "nope")
    assert unknown.returncode == 2 and "expected one of claude-opus-4.7, qwen-2.5-7b" in unknown.stderr
    no_run = plan(tmp_path, "--against", "x")
    assert no_run.returncode == 2 and "pilot RUN" in no_run.stderr


def test_detect_answers_scenarios_and_labels_in_text_and_json(tmp_path, site_run):
    args = (str(site_run), "--model", "gpt-5.4-pro", "--against", "qwen-2.5-7b", "--detect", "3")
    r = plan(tmp_path, *args)
    assert r.returncode == 0, r.stderr
    assert "scenarios to tell two models 3 points apart at 80% power: " in r.stdout
    assert "human labels to tell two models 3 points apart on their human-calibrated rates: " in r.stdout
    data = json.loads(plan(tmp_path, *args, "--json").stdout)
    found, human = data["answers"][3], data["answers"][4]
    assert found["unit"] == "scenarios" and found["value"] >= found["inputs"]["independent pairs needed"][0]
    assert found["inputs"]["discordant share ψ"][1] == "pilot (vs qwen-2.5-7b)"
    assert human["unit"] == "labels per model" and 0 < human["value"] <= found["value"]
    assert f"{found['value']:,} scenarios" in r.stdout
    assert len(json.loads(plan(tmp_path, str(site_run), "--model", "gpt-5.4-pro", "--json").stdout)["answers"]) == 3
    bad = plan(tmp_path, "--detect", "0")
    assert bad.returncode == 2 and "--detect 0: expected 0.1 to 100 points" in bad.stderr


def test_the_detectable_difference_carries_the_families_design_effect(tmp_path):
    data = json.loads(plan(tmp_path, "--variations", "19", "--core-icc", "0.2", "--icc", "0", "--json").stdout)
    scenarios, difference = data["answers"][0], data["answers"][2]
    assert scenarios["inputs"]["design effect"][0] == pytest.approx(4.6)
    assert difference["inputs"]["design effect of the pairs"][0] == pytest.approx(4.6)
    independent = json.loads(
        plan(tmp_path, "--items", str(difference["inputs"]["paired items"][0]), "--icc", "0", "--json").stdout
    )
    # the same items as independent pairs detect a difference half the size: the families cost √4.6
    assert difference["value"] > 2 * independent["answers"][2]["value"]
