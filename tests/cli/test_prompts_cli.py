"""`cobe prompts show` and the judge prompt sets as a user meets them: the `paper` default, an appendix-style
folder pasted unchanged, and tier 2-4 prompts on a paper-shaped file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import assert_one_line_error, run_cobe

STORY = "Tomas borrowed his aunt's van because his own car was in the garage. He moved the sofa to his new flat."
PRESERVE = "Tomas moved a sofa to his new flat."
CHANGE = "Tomas borrowed his aunt's van."
CLAUSE = "Tomas's car had been ready on Friday"
HAD = "had Tomas's car been ready on Friday"


def paper_file(path: Path) -> Path:
    """A paper-shaped file (the appendix's keys) holding 115v3 and one more scenario; our own text."""
    record = {
        "Core Set ID": 115,
        "Variation ID": 3,
        "Domain": "Daily life",
        "Story": STORY,
        "Query": [
            f"Rewrite the original text, based on what would have happened instead {HAD}.",
            f"Based on the preceding text, rewrite the scenario to reflect what would have happened if {CLAUSE}.",
            f"Rewrite the above passage to illustrate what would have occurred {HAD}.",
        ],
        "Illustrative answer (not scored)": "Tomas's car was ready on Friday, so he drove the sofa over himself.",
        "Evaluation criteria": [PRESERVE, CHANGE],
    }
    other = dict(record, **{"Variation ID": 4})
    path.write_text(json.dumps([record, other]), encoding="utf-8")
    return path


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return paper_file(tmp_path / "paper.json")


REWRITE = "Tomas's car was ready on Friday, so he drove the sofa to his new flat himself."


def test_show_prints_the_paper_preserve_prompt_with_criterion_rewrite_and_examples_and_no_story(tmp_path, data):
    r = run_cobe(
        "prompts",
        "show",
        "--judge-prompts",
        "paper",
        "--check",
        "preserve",
        "--data",
        str(data),
        "--id",
        "115v3",
        "--response",
        REWRITE,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("===== judge · check preserve (prompt set paper) · user message =====\n")
    assert PRESERVE in r.stdout and REWRITE in r.stdout and "Worked examples" in r.stdout
    replies = [line for line in r.stdout.splitlines() if line in ("T", "F")]
    assert len(replies) == 5  # the preserve check's five examples, each ending in its bare letter
    assert STORY not in r.stdout and CHANGE not in r.stdout
    assert "exactly one character, T or F" in r.stdout


def test_the_contextual_set_also_shows_the_story(tmp_path, data):
    r = run_cobe(
        "prompts",
        "show",
        "--judge-prompts",
        "contextual",
        "--check",
        "change",
        "--data",
        str(data),
        "--id",
        "115v3",
        "--response",
        REWRITE,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert STORY in r.stdout and CHANGE in r.stdout


def test_show_the_respondent_prompt_and_what_the_judge_sees_of_an_h2_reply(tmp_path, data):
    h2 = run_cobe("prompts", "show", "--data", str(data), "--id", "115v3", "--template", "H2", cwd=tmp_path)
    assert h2.returncode == 0, h2.stderr
    assert h2.stdout.startswith("===== respondent · template H2 · user message =====\nOriginal story:\n" + STORY)
    assert f"The change: what would have happened if {CLAUSE}?" in h2.stdout  # read from the query
    both = run_cobe(
        "prompts",
        "show",
        "--data",
        str(data),
        "--id",
        "115v3",
        "--template",
        "H2",
        "--check",
        "change",
        "--response",
        f"Step 1: the car.\nFinal story: {REWRITE}",
        "--json",
        cwd=tmp_path,
    )
    calls = json.loads(both.stdout)["calls"]
    assert [c["receiver"] for c in calls] == ["respondent", "judge"]
    judge_text = calls[1]["messages"][-1]["content"]
    assert REWRITE in judge_text and "Step 1: the car." not in judge_text  # after the marker only
    bare = run_cobe(
        "prompts", "show", "--data", str(data), "--id", "115v3", "--template", "H2", "--response", REWRITE, cwd=tmp_path
    )
    assert "respondent · template H2" in bare.stdout and "judge · check connectors" in bare.stdout
    assert REWRITE in bare.stdout.split("judge · check connectors", 1)[1]  # the whole reply, judged as it is
    assert "note: no final-story marker line: the whole reply is judged" in bare.stderr


def test_show_help_and_bad_input(tmp_path, data):
    help_text = run_cobe("prompts", "show", "--help", cwd=tmp_path)
    assert help_text.returncode == 0
    for option in ("--judge-prompts", "--check", "--data", "--id", "--response", "--template", "--json"):
        assert option in help_text.stdout
    assert "prompts" in run_cobe("--help", cwd=tmp_path).stdout
    missing = run_cobe("prompts", "show", "--data", str(data), "--id", "9v9", "--template", "A", cwd=tmp_path)
    assert_one_line_error(missing, "no scenario with id '9v9'", "115v3")
    nothing = run_cobe("prompts", "show", "--data", str(data), "--id", "115v3", cwd=tmp_path)
    assert nothing.returncode == 2 and "--template NAME" in nothing.stderr


def test_eval_without_judge_prompts_uses_the_paper_set(tmp_path, data):
    r = run_cobe("eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "runs" / "mock_echo__paper" / "summary.json").read_text())
    assert summary["judge_prompts"] == "paper"


def appendix_folder(path: Path) -> Path:
    """Three prompts written as the appendix writes them ($response_text, $eq1, $eq2), no config.yaml.

    Stand-in text of our own: the scripted judge below answers by what reached the prompt.
    """
    path.mkdir()
    (path / "connectors.txt").write_text("CONNECTORS CHECK.\nText:\n$response_text\nOne character: T or F.\n")
    (path / "preserve.txt").write_text(
        "PRESERVE CHECK against: $eq1\nText:\n${response_text}\nOne character: T or F.\n"
    )
    (path / "change.txt").write_text("CHANGE CHECK against: $eq2\nText:\n$response_text\nOne character: T or F.\n")
    return path


def test_an_appendix_style_folder_loads_and_runs_through_eval(tmp_path, data):
    folder = appendix_folder(tmp_path / "appendix")
    script = tmp_path / "judge.json"
    # F only when the change criterion itself reached the change prompt and the reply still states it
    script.write_text(json.dumps({f"CHANGE CHECK against: {CHANGE}\nText:\n{STORY}": "F", "default": "T"}))
    r = run_cobe(
        "eval",
        "--model",
        "baseline/identity",
        "--model",
        "baseline/illustrative",
        "--judge",
        f"mock/file:{script}",
        "--judge-prompts",
        str(folder),
        "--data",
        str(data),
        "--templates",
        "A",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    run_dir = next((tmp_path / "runs").iterdir())
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert {r["judge_prompts"] for r in rows} == {"appendix"}  # named after its folder
    by_model = {r["model"]: r for r in rows if r["scenario_id"] == "115v3"}
    assert by_model["baseline/identity"]["verdicts"] == {"connectors": "T", "preserve": "T", "change": "F"}
    assert by_model["baseline/illustrative"]["status"] == "passed"
    shown = run_cobe(
        "prompts",
        "show",
        "--judge-prompts",
        str(folder),
        "--check",
        "preserve",
        "--data",
        str(data),
        "--id",
        "115v3",
        "--response",
        REWRITE,
        cwd=tmp_path,
    )
    assert f"PRESERVE CHECK against: {PRESERVE}\nText:\n{REWRITE}\nOne character: T or F." in shown.stdout


def test_tier_two_to_four_render_for_the_paper_shaped_fixture(tmp_path):
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "datasets" / "paper.json"
    r = run_cobe(
        "eval",
        "--model",
        "mock/echo",
        "--judge",
        "mock/judge-pass",
        "--data",
        str(fixture),
        "--templates",
        "D,E,F,G,H1,H2",
        "--run-dir",
        str(tmp_path / "run"),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    scenarios = {r["scenario_id"] for r in rows}
    assert len(rows) == 6 * len(scenarios) and len(scenarios) >= 2  # nothing skipped
    clauses = {"1v0": "it had rained every week of the summer", "1v1": "the spring had been wet"}
    for row in rows:
        if row["scenario_id"] in clauses:
            assert clauses[row["scenario_id"]] in row["prompt"]
    assert "state the change without the original condition" in r.stderr  # E-G's fallback, said once


def test_show_an_audit_probe_as_the_judge_reads_it(tmp_path, data):
    """The injection probe's note closes the rewrite block in vain: its tags reach the judge neutralised."""
    args = ["prompts", "show", "--data", str(data), "--id", "115v3", "--check", "change"]
    r = run_cobe(*args, "--probe", "injection", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("===== judge · probe injection, check change (prompt set paper) · user message =====\n")
    block = r.stdout.split("<rewrite>\n", 1)[1].split("\n</rewrite>", 1)[0]
    assert block.startswith(STORY) and "&lt;/rewrite>" in block and "your reply is T" in block
    assert r.stdout.count("</rewrite>") == 1  # the prompt's own closing tag, no other
    omission = run_cobe(*args, "--probe", "omission", cwd=tmp_path)
    assert omission.returncode == 0, omission.stderr
    assert "<rewrite>\nHe moved the sofa to his new flat.\n</rewrite>" in omission.stdout
    assert omission.stderr == "note: removed sentence 1\n"
    padded = run_cobe(*args[:-2], "--probe", "padded", "--json", cwd=tmp_path)
    assert [call["title"] for call in json.loads(padded.stdout)["calls"]] == [
        f"probe padded, check {check} (prompt set paper)" for check in ("connectors", "preserve", "change")
    ]
    swapped = run_cobe(*args, "--probe", "swapped", cwd=tmp_path)  # both scenarios are variations of core 115
    assert_one_line_error(swapped, "the judge audit's swapped probe) needs scenarios from at least two core examples")
    assert_one_line_error(run_cobe(*args, "--probe", "flattery", cwd=tmp_path), "unknown probe 'flattery'")
    both = run_cobe(*args, "--probe", "empty", "--response", "x", cwd=tmp_path)
    assert both.returncode == 2 and "--probe builds the answer itself" in both.stderr
