"""The preflight and refused settings, through the real CLI against the local fake server.

A run first sends one minimal call per distinct (API model, settings), stored and priced like any call;
a model that refuses a setting (or its name) stops the run within 3 requests, preflight or not, with
exit 2 and one line naming the model, the parameter and the fix. The end-of-run line of a run with
failed calls names the error they ended with most often.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cobe.calls.caller import UNPROVEN_AT_ONCE
from cobe.calls.preflight import PROBES
from cobe.core.errors import AuthenticationFailed, ModelRefused, RunIncomplete
from support.cli import CliResult, assert_one_line_error, run_cobe
from support.openai_server import contract_env

RESPONDENT = "openai/fake-model"
JUDGE = "anthropic/fake-judge"
ITEMS = 12  # the `data_file` fixture: 4 scenarios × templates A, B, C


@pytest.fixture
def fake(openai_server, monkeypatch):
    """The fake server behind openai/ and anthropic/ specs, judge verdicts fixed by a hash of the request."""
    for name, value in contract_env(openai_server).items():
        monkeypatch.setenv(name, value)
    openai_server.control(verdict="hash")
    return openai_server


def evaluate(data: Path, run_dir: Path, *more: str, judge: str = JUDGE) -> CliResult:
    args = ["eval", "--model", RESPONDENT, "--judge", judge, "--data", str(data), "--run-dir", str(run_dir)]
    return run_cobe(*args, "--no-report", *more)


def probe_rows(run_dir: Path) -> list[tuple[str, str, str | None]]:
    """(spec, role, error) of every stored preflight call."""
    db = sqlite3.connect(run_dir / "cobe.sqlite")
    try:
        rows = db.execute("SELECT spec, role, error, request FROM calls ORDER BY spec, role").fetchall()
    finally:
        db.close()
    probes = set(PROBES.values())
    return [(spec, role, error) for spec, role, error, request in rows if any(p in request for p in probes)]


def test_a_run_first_checks_each_model_and_settings_once_and_shows_the_cost(fake, data_file, tmp_path):
    run_dir = tmp_path / "run"
    result = evaluate(data_file, run_dir)
    assert result.returncode == 0, result.stderr
    assert "preflight 2 calls (0 from store, 0 failed)" in result.stdout
    assert probe_rows(run_dir) == [(JUDGE, "judge", None), (RESPONDENT, "respondent", None)]
    stats = fake.stats()
    assert stats["models"] == {"fake-model": ITEMS + 1, "fake-judge": 3 * ITEMS + 1}
    calls = json.loads((run_dir / "summary.json").read_text())["command"]["calls"]
    assert calls["preflight"]["calls_made"] == 2 and calls["respondent"]["calls_made"] == ITEMS


def test_a_repeated_command_answers_its_preflight_from_the_store(fake, data_file, tmp_path):
    run_dir = tmp_path / "run"
    assert evaluate(data_file, run_dir).returncode == 0
    before = fake.stats()["requests"]
    again = evaluate(data_file, run_dir)
    assert again.returncode == 0, again.stderr
    assert "preflight 0 calls (2 from store, 0 failed)" in again.stdout
    assert fake.stats()["requests"] == before  # a cache hit: nothing sent, nothing paid
    skipped = evaluate(data_file, tmp_path / "other", "--no-preflight")
    assert skipped.returncode == 0 and "preflight" not in skipped.stdout
    assert probe_rows(tmp_path / "other") == []


def test_a_refused_setting_stops_the_run_at_the_preflight_in_one_line(fake, data_file, tmp_path):
    # the Anthropic SDK sends no temperature, so only the OpenAI respondent's probe carries it
    fake.control(refuse=["temperature"])
    run_dir = tmp_path / "run"
    result = evaluate(data_file, run_dir)
    assert result.returncode == ModelRefused.exit_code == 2
    assert_one_line_error(
        result, RESPONDENT, "(respondent)", "'temperature'", "Unsupported parameter", "fix:", "--temperature"
    )
    stats = fake.stats()
    assert stats["refused"] == 1 and stats["requests"] == 2  # the two probes, no item
    assert probe_rows(run_dir)[1][2] is not None  # the refused probe is stored with its error
    assert json.loads((run_dir / "summary.json").read_text())["state"] == "incomplete"


def test_without_the_preflight_a_refused_setting_still_stops_within_three_requests(fake, data_file, tmp_path):
    # the respondent's row sends its limit as max_completion_tokens; the Anthropic judge's is max_tokens
    fake.control(refuse=["max_completion_tokens"])
    result = evaluate(data_file, tmp_path / "run", "--no-preflight", "--concurrency", "16")
    assert result.returncode == ModelRefused.exit_code
    assert_one_line_error(result, RESPONDENT, "'max_completion_tokens'", "fix:", "--max-tokens", "token_param")
    stats = fake.stats()
    assert 1 <= stats["refused"] == stats["requests"] <= UNPROVEN_AT_ONCE == 3  # never the 12 items' worth


def test_a_model_the_provider_does_not_serve_is_named(fake, data_file, tmp_path):
    fake.control(unknown_models=["fake-judge"])
    result = evaluate(data_file, tmp_path / "run")
    assert result.returncode == ModelRefused.exit_code
    assert_one_line_error(result, JUDGE, "(judge)", "refused the model name", "404", "check the judge model's name")
    assert fake.stats()["models"] == {"fake-model": 1}  # the respondent's probe, no item


def test_judge_checks_the_new_judge_only(fake, data_file, tmp_path):
    run_dir = tmp_path / "run"
    assert evaluate(data_file, run_dir).returncode == 0
    before = fake.stats()["requests"]
    fake.control(refuse=["logprobs"])  # the OpenAI judge asks for P(T); this model does not give it
    result = run_cobe("judge", str(run_dir), "--judge", "openai/fake-other", "--no-report")
    assert result.returncode == ModelRefused.exit_code
    assert_one_line_error(result, "openai/fake-other (judge)", "'logprobs'", "logprobs: false")
    assert fake.stats()["requests"] - before == 1  # its probe alone: no respondent, no judge item


def test_a_key_refused_at_the_preflight_stops_before_any_item(fake, data_file, tmp_path):
    fake.control(fail_status=401)
    result = evaluate(data_file, tmp_path / "run")
    assert result.returncode == AuthenticationFailed.exit_code
    assert_one_line_error(result, "on the preflight call", "OPENAI_API_KEY")
    assert fake.stats()["requests"] == 2


def test_the_end_of_run_line_names_the_most_common_error(fake, data_file, tmp_path):
    fake.control(server_error=2 + ITEMS)  # the probes and every respondent call fail once, and are not retried
    result = evaluate(data_file, tmp_path / "run", "--max-retries", "0", "--concurrency", "1")
    assert result.returncode == RunIncomplete.exit_code
    assert_one_line_error(result, "12 of 12 items unfinished", "most often: InternalServerError", "(12 of 12")
    assert "results.jsonl" not in result.stderr
