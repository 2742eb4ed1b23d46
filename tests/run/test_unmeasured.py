"""A run that measured nothing of a model is not `complete` (issue 39, item 5), and a run answered from the store
says how to ask again, which --reask-unscored does (item 10)."""

from __future__ import annotations

import json
from pathlib import Path

from cobe.core.errors import RunUnmeasured
from support.cli import CliResult, assert_one_line_error, run_cobe
from support.store_reads import stored_count, stored_state

SPEC = "openai-api/fake/base-model"


def evaluate(server, data: Path, *more: str) -> CliResult:
    env = {"FAKE_BASE_URL": server.base_url, "FAKE_API_KEY": None}
    args = ["eval", "-m", SPEC, "-j", SPEC, "--data", str(data), "--templates", "A", "--run-dir", "r"]
    return run_cobe(*args, *more, env=env)


def rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def test_a_run_with_no_scored_row_ends_unmeasured_not_complete(openai_server, data_file, tmp_path):
    # every verdict unparseable: the real server ended `complete`, exit 0, 0 passed, 0 failed, 4 unscored
    openai_server.control(verdict="perhaps")
    done = evaluate(openai_server, data_file, "--no-report")
    assert done.returncode == RunUnmeasured.exit_code == 8
    assert done.stdout.splitlines()[0].rstrip() == "r: unmeasured"
    assert_one_line_error(done, f"no row of {SPEC} (4 unscored, 0 errors) was scored", "--reask-unscored")
    assert "most often: no T/F verdict in: 'perhaps'" in done.stderr
    run_dir = tmp_path / "r"
    assert stored_state(run_dir) == "unmeasured"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["state"] == "unmeasured" and summary["unmeasured"] == [SPEC]
    report = (run_dir / "report.md").read_text()
    assert "no scored row" in report and "state: unmeasured" in report
    (listed,) = json.loads(run_cobe("runs", str(tmp_path), "--json").stdout)["runs"]
    assert listed["state"] == "unmeasured"
    again = evaluate(openai_server, data_file, "--no-report", "--json")
    end = json.loads(again.stdout)
    assert (again.returncode, end["state"], end["exit_code"]) == (8, "unmeasured", 8)
    assert end["models"][0]["unscored"] == 4 and end["message"].startswith("r: every item finished")


def test_a_report_gives_such_a_model_no_rank_and_says_why_at_the_top(openai_server, data_file, tmp_path):
    openai_server.control(verdict="perhaps")
    assert evaluate(openai_server, data_file, "--no-report").returncode == 8
    made = run_cobe("report", "r", "--out", "rep", "--resamples", "0")
    assert made.returncode == 0, made.stderr
    page = (tmp_path / "rep" / "report.html").read_text()
    top = page[: page.index("</header>")]
    assert 'class="unranked-note warn"' in top and "no rank is given" in top
    cell = page[page.index('<td class="num rank-range">') :].split("</td>", 1)[0]
    assert cell.endswith(">–")  # not "1": the report ranked a model that measured nothing first
    markdown = (tmp_path / "rep" / "report.md").read_text()
    assert markdown.index("**No rank:**") < markdown.index("## Leaderboard")
    assert f"| – | – | {SPEC} |" in markdown


def test_a_run_answered_from_the_store_says_how_to_ask_again(openai_server, data_file, tmp_path):
    openai_server.control(verdict="perhaps")
    assert evaluate(openai_server, data_file, "--no-report").returncode == 8
    openai_server.control(verdict="T")  # the judge's server is fixed; its stored answers are the old ones
    sent = openai_server.stats()["requests"]
    again = evaluate(openai_server, data_file, "--no-report")
    assert again.returncode == 8 and openai_server.stats()["requests"] == sent
    assert "Every call was answered from the store, none sent" in again.stdout
    assert "--reask-unscored" in again.stdout and "--run-dir" in again.stdout
    stored = stored_count(tmp_path / "r", "calls")
    asked = evaluate(openai_server, data_file, "--no-report", "--reask-unscored")
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.splitlines()[0].rstrip() == "r: complete"
    assert all(row["status"] == "passed" for row in rows(tmp_path / "r"))
    # each unusable answer asked again under a key of its own: the old rows stay beside the new
    assert stored_count(tmp_path / "r", "calls") == stored + 4 * 3
    assert openai_server.stats()["requests"] == sent + 4 * 3


def test_empty_answers_asked_again_are_judged_again(openai_server, data_file, tmp_path):
    # empty answers judged F: scored, so the run is measured, but not one answer was a rewrite
    openai_server.control(reply="", verdict="F")
    first = evaluate(openai_server, data_file, "--no-report", "--no-preflight")
    assert first.returncode == 0, first.stderr
    assert [row["response"] for row in rows(tmp_path / "r")] == [""] * 4
    openai_server.control(reply=None, verdict="T")
    asked = evaluate(openai_server, data_file, "--no-report", "--no-preflight", "--reask-unscored")
    assert asked.returncode == 0, asked.stderr
    answered = rows(tmp_path / "r")
    # the new answers, judged anew: no verdict of the empty answers they replaced is left
    assert all(row["response"].startswith("Instead, ") for row in answered)
    assert all(row["status"] == "passed" and set(row["judge_raw"].values()) == {"T"} for row in answered)
    assert stored_count(tmp_path / "r", "verdicts") == 4 * 3
