"""`cobe judges check` against a real local server speaking the OpenAI protocol: a judge scripted to
answer correctly passes the self-test, one that always says T is named for what it cannot tell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import CliResult, run_cobe

JUDGE = "openai-api/localfake/fake-model"
NAMES = ["Ada", "Bo", "Cy", "Di"]
TASKS = ["baked bread", "fixed a bike", "painted a fence", "mended a net"]

# a prompt set of our own with plain markers, so scripted answers key on its text
CHECK_TEXTS = {
    "connectors": "CHECK=connectors\nREWRITE: {response} :END\nAnswer with exactly one letter: T or F.",
    "preserve": "CHECK=preserve\nKEEP: {criterion} :END\nREWRITE: {response} :END\nAnswer with exactly one letter: T or F.",
    "change": "CHECK=change\nDROP: {criterion} :END\nREWRITE: {response} :END\nAnswer with exactly one letter: T or F.",
}


def story(i: int) -> str:
    return f"{NAMES[i]} {TASKS[i]} on Sunday because the weather was dry. The neighbours came to watch."


def answer(i: int) -> str:
    return f"{NAMES[i]} {TASKS[i]} on Sunday although the weather was wet. Nobody came to watch."


def keep(i: int) -> str:
    return f"{NAMES[i]} {TASKS[i]} on Sunday."


def write_data(path: Path) -> Path:
    rows = [
        {
            "id": f"{i + 1}v1",
            "core_id": i + 1,
            "variation": 1,
            "domain": "daily life",
            "story": story(i),
            "queries": [f"Rewrite the text had it rained ({q})." for q in "abc"],
            "illustrative_answer": answer(i),
            "preserve": [keep(i)],
            "change": ["The neighbours came to watch."],
        }
        for i in range(len(NAMES))
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def write_prompts(directory: Path) -> Path:
    directory.mkdir()
    (directory / "config.yaml").write_text("name: markers\ntemperature: 0\nmax_tokens: 5\nlogprobs: true\n")
    for check, text in CHECK_TEXTS.items():
        (directory / f"{check}.txt").write_text(text + "\n")
    return directory


def correct_script() -> list[dict]:
    """A judge that reads the rewrite: the story itself fails change; preserve passes only the scenario's own rewrite."""
    rules = []
    for i in range(len(NAMES)):
        rules.append({"contains": ["CHECK=change", f"REWRITE: {story(i)} :END"], "answer": "F"})
        rules.append({"contains": ["CHECK=preserve", f"KEEP: {keep(i)}", f"REWRITE: {answer(i)} :END"], "answer": "T"})
        rules.append({"contains": ["CHECK=preserve", f"KEEP: {keep(i)}"], "answer": "F"})
    return rules


@pytest.fixture
def setup(tmp_path, openai_server):
    env = {
        "LOCALFAKE_BASE_URL": openai_server.base_url,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "LOCALFAKE_API_KEY": None,
    }
    return env, write_data(tmp_path / "data.jsonl"), write_prompts(tmp_path / "markers")


def check(tmp_path: Path, env: dict, data: Path, prompts: Path, *extra: str) -> CliResult:
    args = ["judges", "check", "--judge", JUDGE, "--judge-prompts", str(prompts), "--data", str(data), "--n", "4"]
    return run_cobe(*args, *extra, cwd=tmp_path, env=env)


def test_a_correct_judge_behaves_as_expected_and_its_calls_are_cached(tmp_path, openai_server, setup):
    env, data, prompts = setup
    openai_server.control(script=correct_script())
    run_dir = tmp_path / "check-run"
    r = check(tmp_path, env, data, prompts, "--run-dir", str(run_dir))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[-1] == "Judge self-test verdict: the judge behaves as expected on all three probes"
    assert "unchanged story → change F: 4/4 = 100% [40%, 100%]" in r.stdout
    assert "another story's rewrite → preserve F: 4/4 = 100%" in r.stdout
    assert openai_server.stats()["judge_requests"] == 4 * 5  # five questions per scenario, nothing else
    assert (run_dir / "cobe.sqlite").is_file()
    again = check(tmp_path, env, data, prompts, "--run-dir", str(run_dir), "--json")
    result = json.loads(again.stdout)
    assert result["calls_made"] == 0 and result["calls_cached"] == 20 and result["as_expected"] is True
    assert openai_server.stats()["judge_requests"] == 20


def test_a_judge_that_always_says_t_is_flagged(tmp_path, openai_server, setup):
    env, data, prompts = setup
    openai_server.control(verdict="T")
    r = check(tmp_path, env, data, prompts)
    assert r.returncode == 0, r.stderr
    assert "unchanged story → change F: 0/4 = 0% [0%, 60%]" in r.stdout
    verdict = r.stdout.strip().splitlines()[-1]
    assert verdict.startswith("Judge self-test verdict: this judge passes nearly everything")
    assert "cannot tell an unchanged story" in verdict
    assert (tmp_path / "cache" / "cobe" / "judge-check" / "cobe.sqlite").is_file()  # the default cache


def test_a_judge_blind_to_unchanged_stories_only(tmp_path, openai_server, setup):
    env, data, prompts = setup
    # right about preserve, but passes the unchanged story on change
    openai_server.control(script=[rule for rule in correct_script() if "CHECK=change" not in rule["contains"]])
    r = check(tmp_path, env, data, prompts)
    assert r.returncode == 0, r.stderr
    verdict = r.stdout.strip().splitlines()[-1]
    assert verdict == "Judge self-test verdict: this judge cannot tell an unchanged story from a rewrite"


def test_data_without_two_core_examples_is_one_line(tmp_path, setup):
    env, data, prompts = setup
    one = tmp_path / "one.jsonl"
    one.write_text(data.read_text().splitlines()[0] + "\n")
    r = check(tmp_path, env, one, prompts)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().startswith("error: the judge self-test needs scenarios") and "two core examples" in r.stderr


def test_a_judge_pointed_at_another_server_is_not_answered_from_the_first_ones_calls(tmp_path, openai_server, setup):
    """The same spec behind another base URL (another model behind one name) makes its calls again, and
    the run says in one line that its endpoint changed; back at the first server, its calls answer again."""
    from support.openai_server import ThreadedServer

    env, data, prompts = setup
    openai_server.control(script=correct_script())
    run_dir = str(tmp_path / "check-run")
    assert check(tmp_path, env, data, prompts, "--run-dir", run_dir).returncode == 0
    other = ThreadedServer()
    try:
        other.control(verdict="T")
        moved = check(tmp_path, env | {"LOCALFAKE_BASE_URL": other.base_url}, data, prompts, "--run-dir", run_dir)
        assert other.stats()["judge_requests"] == 20
    finally:
        other.close()
    assert "judge calls: 20 made, 0 from the store" in moved.stdout
    notice = [line for line in moved.stdout.splitlines() if "now points at" in line]
    assert notice == [
        f"  {JUDGE} now points at {other.base_url.rstrip('/')}, no longer at {openai_server.base_url.rstrip('/')}: no "
        "call made there answers for it here (what a run already recorded from there is kept; a new run "
        "directory asks everything again)"
    ]
    back = check(tmp_path, env, data, prompts, "--run-dir", run_dir, "--json")
    assert json.loads(back.stdout)["calls_cached"] == 20
    assert openai_server.stats()["judge_requests"] == 20


def test_nothing_listening_at_the_judges_url_is_never_answered_from_the_store(tmp_path, openai_server, setup):
    """The issue's case: after a check against the fake, OPENAI_BASE_URL at a dead port answered "0 made, 25
    from the store"; now every call is attempted there (and fails), none comes from the store."""
    env, data, prompts = setup
    openai_server.control(script=correct_script())
    run_dir = str(tmp_path / "check-run")
    assert check(tmp_path, env, data, prompts, "--run-dir", run_dir).returncode == 0
    dead = env | {"LOCALFAKE_BASE_URL": "http://127.0.0.1:1/v1"}
    r = check(tmp_path, dead, data, prompts, "--run-dir", run_dir, "--max-retries", "0")
    assert r.returncode == 5, r.stderr
    assert "judge calls: 20 made, 20 failed, 0 from the store" in r.stdout


def test_off_a_terminal_the_self_test_prints_progress_lines_on_stderr(tmp_path, openai_server, setup):
    """The issue's case: 16 minutes of nothing on stderr; a run prints `progress:` lines there, so does this."""
    env, data, prompts = setup
    openai_server.control(script=correct_script())
    r = check(tmp_path, env, data, prompts, "--run-dir", str(tmp_path / "check-run"))
    assert r.returncode == 0, r.stderr
    progress = [line for line in r.stderr.splitlines() if line.startswith("progress: judge-check ")]
    assert progress and progress[0].startswith("progress: judge-check 0/12 done (0%)")
    assert progress[-1].startswith("progress: judge-check 12/12 done (100%), 0 failed")


def test_a_self_test_answered_from_the_store_says_how_to_ask_again(tmp_path, openai_server, setup):
    env, data, prompts = setup
    openai_server.control(verdict="maybe")  # a judge that never says T or F
    run_dir = str(tmp_path / "check-run")
    first = check(tmp_path, env, data, prompts, "--run-dir", run_dir)
    assert first.returncode == 5 and "no usable verdict" in first.stderr
    openai_server.control(verdict="T")  # fixed on the server; its stored answers are the old ones
    again = check(tmp_path, env, data, prompts, "--run-dir", run_dir)
    # each unusable verdict was asked twice (the judge's own re-ask): 40 answers, all from the store
    assert "judge calls: 0 made, 40 from the store (every one: to ask again, add --reask-unscored" in again.stdout
    asked = check(tmp_path, env, data, prompts, "--run-dir", run_dir, "--reask-unscored", "--json")
    result = json.loads(asked.stdout)
    # each question asked again (the stored answer and its one re-ask were both unusable): the old rows kept
    assert asked.returncode == 0 and result["calls_made"] == 20 and result["calls_cached"] == 0
    assert all(row["share"] is not None for row in result["checks"])


def test_a_judge_whose_reply_holds_no_verdict_stops_at_the_preflight(tmp_path, openai_server, setup):
    """The issue's real server with a gemma chat format answered the probe in words: a self-test then asked all
    its questions of a judge that gives no verdict; the preflight stops it before they are sent, as a run's does."""
    env, data, prompts = setup
    openai_server.control(question_answer="This is a connection check")
    r = check(tmp_path, env, data, prompts, "--run-dir", str(tmp_path / "check-run"), "--json")
    assert r.returncode == 2, r.stderr
    end = json.loads(r.stdout)
    assert (
        end["state"] == "incomplete" and f"{JUDGE} (judge): the preflight call's reply cannot be used" in end["message"]
    )
    assert "no T/F verdict in: 'This is a connection check'" in end["message"]
    assert openai_server.stats()["requests"] == 1  # the probe, and not one of the self-test's questions
