"""`cobe models check`: one minimal call per model and role with a run's exact settings, stored, every
probe reported; a refusal names the parameter and the fix and ends the command with exit 2."""

from __future__ import annotations

import pytest

from cobe.core.errors import InputError, ModelRefused
from support.cli import assert_one_line_error, run_cobe
from support.openai_server import contract_env

OPENAI = "openai/fake-model"
ANTHROPIC = "anthropic/fake-judge"


@pytest.fixture
def fake(openai_server, monkeypatch, tmp_path):
    for name, value in contract_env(openai_server).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return openai_server


def test_each_model_is_checked_as_respondent_and_judge_and_a_second_check_costs_nothing(fake, tmp_path):
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  fake-model: {input: 2, output: 8}\n")
    result = run_cobe("models", "check", OPENAI, ANTHROPIC, "--prices", str(prices))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 4 and all(line.startswith("ok ") for line in lines)
    # each line says what was sent as the model's row fits the settings, and what was left out
    judge = next(line for line in lines if f"{OPENAI} (judge): " in line)
    assert "chat, max_completion_tokens 5, temperature 0.0, logprobs" in judge and "accepted ($0.000" in judge
    assert any(f"{ANTHROPIC} (respondent): messages, max_tokens " in line for line in lines), lines
    assert "not sent: temperature 0.0 accepted (price unknown" in result.stdout
    assert (tmp_path / "cache" / "cobe" / "models-check" / "cobe.sqlite").is_file()
    assert fake.stats()["requests"] == 4
    again = run_cobe("models", "check", OPENAI, ANTHROPIC)
    # from the store, and how to ask the models themselves again (issue 39, item 10)
    assert again.stdout.count("answered from the store; another --run-dir asks again") == 4
    assert fake.stats()["requests"] == 4


def test_a_refusal_is_reported_beside_the_settings_that_passed(fake, tmp_path):
    fake.control(refuse=["logprobs"])
    result = run_cobe("models", "check", OPENAI, "--as", "judge", "--run-dir", str(tmp_path / "check"))
    assert result.returncode == ModelRefused.exit_code
    assert result.stdout.startswith(f"refused  {OPENAI} (judge) refused the parameter 'logprobs'")
    assert_one_line_error(result, "1 of 1 checks refused", "logprobs: false")
    both = run_cobe("models", "check", OPENAI, ANTHROPIC, "--as", "judge", "--run-dir", str(tmp_path / "check"))
    assert both.stdout.count("refused  ") == 1 and f"ok       {ANTHROPIC} (judge)" in both.stdout


def test_the_run_settings_are_the_ones_checked(fake, tmp_path):
    fake.control(refuse=["reasoning_effort"])
    # the fake model's row is told it reasons by an effort it takes (without, no effort is ever sent)
    row = ("-M", f"{OPENAI}:reasoning=effort", "-M", f"{OPENAI}:efforts=[low, medium, high]")
    plain = run_cobe("models", "check", OPENAI, "--as", "respondent", *row)
    assert plain.returncode == 0, plain.stderr
    effort = run_cobe("models", "check", OPENAI, "--as", "respondent", "--reasoning-effort", "medium", *row)
    assert effort.returncode == ModelRefused.exit_code
    assert_one_line_error(effort, "'reasoning_effort'", "--reasoning-effort")


def test_a_baseline_checks_as_a_respondent_only_and_bad_input_is_one_line(fake):
    local = run_cobe("models", "check", "baseline/identity", "mock/echo")
    assert local.returncode == 0 and local.stdout.count("skipped  ") == 3  # a baseline never judges
    assert fake.stats()["requests"] == 0
    refused = run_cobe("models", "check", "baseline/identity", "--as", "judge")
    assert refused.returncode == InputError.exit_code
    assert_one_line_error(refused, "cannot judge")
    bad = run_cobe("models", "check", "nonsense")
    assert bad.returncode == InputError.exit_code
    assert_one_line_error(bad, "expected provider/model")


def test_a_gemini_3_respondent_is_sent_no_temperature_unless_asked(fake):
    spec = "google/gemini-3.1-pro-preview"
    plain = run_cobe("models", "check", spec, "--as", "respondent")
    assert plain.returncode == 0, plain.stderr
    assert "temperature" not in plain.stdout, plain.stdout
    asked = run_cobe("models", "check", spec, "--as", "respondent", "--temperature", "0")
    assert asked.returncode == 0 and "temperature 0.0" in asked.stdout, asked.stdout
