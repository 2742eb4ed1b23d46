"""`cobe judges audit` against the fake server: the card on stdout and in the run directory, every call priced
and found again (a repeated audit pays for nothing, `--dry-run` counts what is left), and a provider without
logprobs said once."""

from __future__ import annotations

import json

import pytest

from cobe.judge.audit import plan_audit
from support.audit_judges import JUDGE, robust, script, write_prompts, write_site_data
from support.cli import assert_one_line_error, run_cobe
from support.openai_server import contract_env


@pytest.fixture
def setup(tmp_path, openai_server):
    env = {"LOCALFAKE_BASE_URL": openai_server.base_url, "LOCALFAKE_API_KEY": None}
    data, prompts = write_site_data(tmp_path / "site.jsonl"), write_prompts(tmp_path / "markers")
    plan = plan_audit(JUDGE, str(prompts), str(data), n=10, repeats=2)
    openai_server.control(script=script(plan, robust), verdict="unsure")
    args = ["judges", "audit", "--judge", JUDGE, "--judge-prompts", str(prompts), "--data", str(data), "--n", "10"]
    (tmp_path / "prices.yaml").write_text("models:\n  fake-model: {input: 2.0, output: 8.0}\n")
    return env, [*args, "--prices", str(tmp_path / "prices.yaml")], tmp_path / "audit-run"


def test_the_card_is_printed_and_written_and_a_second_audit_pays_for_nothing(tmp_path, openai_server, setup):
    env, args, run_dir = setup
    ahead = run_cobe(*args, "--run-dir", str(run_dir), "--dry-run", cwd=tmp_path, env=env)
    assert ahead.returncode == 0, ahead.stderr
    # 110 probes x 3 checks x 2 repeats: 660 questions, 136 of them the same call as another (reordered's change
    # check is the illustrative rewrite's; an empty answer's connectors check is the same for every scenario)
    assert "judge calls: 524 to make, 0 from the store, 136 the same call as another question's" in ahead.stdout
    assert "estimated cost: $0.0" in ahead.stdout
    assert not run_dir.exists() and openai_server.stats()["judge_requests"] == 0
    first = run_cobe(*args, "--run-dir", str(run_dir), cwd=tmp_path, env=env)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0] == (
        f"Judge audit of {JUDGE} (prompts markers) on 10 scenarios of {tmp_path / 'site.jsonl'}, 2 asks per check "
        "(95% exact CIs)"
    )
    assert (
        lines[1]
        == "  - passes 0% of omissions [0%, 31%] (0 of 10): it does not take removed consequences for changed ones"
    )
    assert "  - asked each check 2 times, it gives the same verdict every time (330 questions)" in lines
    assert any(line.startswith("judge calls: 524 made, 136 from the store, $0.0") for line in lines)
    sent = openai_server.stats()["judge_requests"]
    assert sent == 524
    card = (run_dir / "audit.md").read_text()
    assert card.startswith(f"# Judge audit: `{JUDGE}`") and "| story without its change sentences | 10 |" in card
    saved = json.loads((run_dir / "audit.json").read_text())
    assert saved["findings"][0] == lines[1][4:] and len(saved["answers"]) == 330
    again = run_cobe(*args, "--run-dir", str(run_dir), "--json", cwd=tmp_path, env=env)
    result = json.loads(again.stdout)
    assert result["state"] == "complete" and result["calls_made"] == 0 and result["calls_cached"] == 660
    assert openai_server.stats()["judge_requests"] == sent
    after = run_cobe(*args, "--run-dir", str(run_dir), "--dry-run", cwd=tmp_path, env=env)
    assert "judge calls: 0 to make, 524 from the store, 136 the same call as another question's" in after.stdout


def test_a_default_run_directory_names_the_judge_and_the_data(tmp_path, setup):
    env, args, _ = setup
    r = run_cobe(*args, "--probes", "injection", "--repeats", "1", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "runs" / "audit__openai-api_localfake_fake-model__site" / "audit.json").is_file()
    assert "--probes injection: its verdicts are compared with identity's, so identity is asked too" in r.stdout
    assert "Stability: not measured (one ask per check; --repeats 3 asks each check three times)" in r.stdout


def test_a_judge_without_logprobs_is_said_once(tmp_path, openai_server, setup):
    env, args, run_dir = setup
    anthropic = "anthropic/claude-opus-4-7"
    i = args.index(JUDGE)
    r = run_cobe(
        *args[:i], anthropic, *args[i + 1 :], "--probes", "identity", cwd=tmp_path, env=contract_env(openai_server)
    )
    assert r.returncode == 0, r.stderr
    said = [line for line in r.stdout.splitlines() if "log-probabilities" in line]
    assert said == [
        f"  - {anthropic} returns no first-token log-probabilities (its API gives none, as Anthropic's does, or the "
        "prompt set does not ask for them), so how far its confidence holds is not measured"
    ]


def test_bad_options_are_one_line(tmp_path, setup):
    env, args, _ = setup
    assert_one_line_error(run_cobe(*args, "--probes", "flattery", cwd=tmp_path, env=env), "--probes 'flattery'")
    unpriced = run_cobe(*args[:-2], "--max-cost", "1", cwd=tmp_path, env=env)
    assert_one_line_error(unpriced, "--max-cost: no price known for openai-api/localfake/fake-model")
    panel = run_cobe(*args[:3], f"{JUDGE},{JUDGE}2", *args[4:], cwd=tmp_path, env=env)
    assert_one_line_error(panel, "the audit tests one judge at a time")


def test_the_preflight_stops_a_refused_setting_before_any_probe_is_sent(tmp_path, openai_server, setup):
    env, args, run_dir = setup
    openai_server.control(refuse=["logprobs"])
    r = run_cobe(*args, "--run-dir", str(run_dir), cwd=tmp_path, env=env)
    assert_one_line_error(r, "logprobs")
    assert r.returncode == 2 and openai_server.stats()["judge_requests"] == 0
    assert openai_server.stats()["requests"] == 1  # the preflight's one call


def test_max_cost_stops_the_audit_and_the_same_command_resumes_it(tmp_path, openai_server, setup):
    env, args, run_dir = setup
    stopped = run_cobe(
        *args, "--run-dir", str(run_dir), "--max-cost", "0.0005", "--concurrency", "1", cwd=tmp_path, env=env
    )
    assert stopped.returncode == 4 and "--max-cost" in stopped.stderr
    paid = openai_server.stats()["judge_requests"]
    assert 0 < paid < 524
    resumed = run_cobe(*args, "--run-dir", str(run_dir), "--json", cwd=tmp_path, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["calls_made"] == 524 - paid  # what the stopped audit paid for is not asked again
    assert openai_server.stats()["judge_requests"] == 524


def test_the_preflight_stops_a_judge_whose_reply_holds_no_verdict(tmp_path, openai_server, setup):
    env, args, run_dir = setup
    openai_server.control(question_answer="This is a connection check")
    r = run_cobe(*args, "--run-dir", str(run_dir), cwd=tmp_path, env=env)
    assert_one_line_error(r, "the preflight call's reply cannot be used", "no T/F verdict in")
    assert r.returncode == 2 and openai_server.stats()["judge_requests"] == 0
