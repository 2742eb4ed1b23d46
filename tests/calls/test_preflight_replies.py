"""The preflight judges what came back (issue 39, items 5 and 10): a respondent's empty reply, or a judge's with no
T or F, stops the run before the spend, in one line showing the reply and what to try; a stored one is asked again
only when the command says so (--reask-unscored)."""

from __future__ import annotations

import json
from pathlib import Path

from cobe.core.errors import UnusableReplies
from support.cli import CliResult, assert_one_line_error, run_cobe
from support.store_reads import stored_count

SPEC = "openai-api/fake/base-model"
JUDGE = "openai-api/fake/judge-model"


def evaluate(server, data: Path, run_dir: Path, *more: str) -> CliResult:
    env = {"FAKE_BASE_URL": server.base_url, "FAKE_API_KEY": None}
    args = ["eval", "-m", SPEC, "-j", JUDGE, "--data", str(data), "--run-dir", str(run_dir), "--no-report"]
    return run_cobe(*args, *more, env=env)


def test_an_empty_respondent_reply_stops_the_run_before_any_item(openai_server, data_file, tmp_path):
    # what llama.cpp's server answered a base model with no chat template (issue 39): "", finish stop, 0 tokens
    openai_server.control(reply="")
    done = evaluate(openai_server, data_file, tmp_path / "run")
    assert done.returncode == UnusableReplies.exit_code
    assert_one_line_error(
        done,
        f"{SPEC} (respondent): the preflight call's reply cannot be used (an empty reply '', finish stop, 0 tokens)",
        "nothing else was sent",
        "chat template",
        f"-M {SPEC}:api=completions",
    )
    assert openai_server.stats()["requests"] == 2  # the two probes, and not one item
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["state"] == "incomplete" and summary["command"]["calls"]["respondent"]["calls_made"] == 0


def test_a_judge_reply_without_a_verdict_stops_the_run_showing_the_reply(openai_server, data_file, tmp_path):
    # what the same server answered the judge's probe with a gemma chat format: not T or F
    openai_server.control(question_answer="This is a connection check")
    done = evaluate(openai_server, data_file, tmp_path / "run", "--json")
    assert done.returncode == 2
    end = json.loads(done.stdout)
    assert end["state"] == "incomplete" and end["exit_code"] == 2
    assert f"{JUDGE} (judge)" in end["message"]
    assert "no verdict: no T/F verdict in: 'This is a connection check'" in end["message"]
    assert openai_server.stats()["requests"] == 2


def test_a_stored_unusable_probe_stops_again_and_says_how_to_ask_again(openai_server, data_file, tmp_path):
    openai_server.control(question_answer="This is a connection check")
    assert evaluate(openai_server, data_file, tmp_path / "run").returncode == 2
    openai_server.control(question_answer="T")  # the server is fixed; the store still holds the old answer
    sent = openai_server.stats()["requests"]
    again = evaluate(openai_server, data_file, tmp_path / "run")
    assert_one_line_error(again, "came from the store", "--reask-unscored", "a new run directory")
    assert openai_server.stats()["requests"] == sent  # the server was never contacted
    stored = stored_count(tmp_path / "run")
    asked = evaluate(openai_server, data_file, tmp_path / "run", "--reask-unscored")
    assert asked.returncode == 0, asked.stderr
    assert stored_count(tmp_path / "run") > stored  # the judge's probe asked again beside the old answer, not over it


def test_models_check_says_a_reply_cannot_be_used(openai_server, tmp_path):
    openai_server.control(reply="")
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": None}
    done = run_cobe("models", "check", SPEC, "--run-dir", "r", cwd=tmp_path, env=env)
    assert done.returncode == UnusableReplies.exit_code
    assert f"unusable {SPEC} (respondent): the preflight call's reply cannot be used" in done.stdout
    assert f"ok       {SPEC} (judge)" in done.stdout  # the question asked for one letter was answered T
    openai_server.control(reply=None)  # the server answers now; the store still holds the empty reply
    again = run_cobe("models", "check", SPEC, "--run-dir", "r", cwd=tmp_path, env=env)
    assert again.returncode == UnusableReplies.exit_code and "came from the store" in again.stdout
    asked = run_cobe("models", "check", SPEC, "--run-dir", "r", "--reask-unscored", cwd=tmp_path, env=env)
    assert asked.returncode == 0, asked.stdout
    assert f"ok       {SPEC} (respondent)" in asked.stdout
