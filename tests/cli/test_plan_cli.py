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
    """One scenario, every phrasing passed: no '1 scenarios', no more labels than judged items, no 'nan'."""
    run = write_run(tmp_path / "pilot", make_rows("mock/a", 1, 1.0))
    r = plan(tmp_path, str(run), "--human-rate", "0.6")
    assert r.returncode == 0, r.stderr
    assert "(mock/a): 1 scenario × 3 phrasings" in r.stdout
    assert "scenarios for the accuracy's CI half-width: 1 scenario\n" in r.stdout
    assert "the rates leave no spread" in r.stdout
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
