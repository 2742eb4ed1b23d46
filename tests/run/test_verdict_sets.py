"""A run keeps every judge's verdicts as a verdict set: one is current, a re-judge says which it replaced,
and an earlier set is made current again with no model call."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.run import EvalConfig, evaluate, judge_run
from cobe.run.verdict_sets import list_verdict_sets, show_verdict_set
from cobe.store.store import STORE_NAME


def statuses(run_dir: Path) -> set[tuple[str, str | None]]:
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    return {(row["status"], row["judge"]) for row in map(json.loads, lines)}


@pytest.fixture
def rejudged(data_file: Path) -> Path:
    """A run judged by judge-pass, then by judge-fail."""
    first = evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", limit=2))
    second = judge_run(first.run_dir, "mock/judge-fail")
    assert second.replaced == "mock/judge-pass (prompts paper)"
    (notice,) = [n for n in second.notices if "instead of" in n]
    assert notice.startswith(f"{first.run_dir} now shows the verdicts of mock/judge-fail (prompts paper) instead of ")
    assert f"`cobe judge {first.run_dir} --show mock/judge-pass`" in notice
    return first.run_dir


def test_a_second_judge_keeps_the_first_judges_verdict_set(rejudged):
    sets = list_verdict_sets(rejudged)
    assert [(s.ref.spec, s.current, s.responses) for s in sets] == [
        ("mock/judge-fail", True, 6),
        ("mock/judge-pass", False, 6),
    ]
    assert all(s.shown for s in sets) and sets[0].shown >= sets[1].shown
    db = sqlite3.connect(rejudged / STORE_NAME)
    kept = dict(db.execute("SELECT judge, count(*) FROM verdicts GROUP BY judge").fetchall())
    assert kept == {"mock/judge-pass": 18, "mock/judge-fail": 18}
    db.close()
    assert statuses(rejudged) == {("failed", "mock/judge-fail")}


def test_show_makes_an_earlier_set_current_with_no_call(rejudged):
    summary = show_verdict_set(rejudged, "mock/judge-pass")
    assert summary.stats == {} and summary.replaced == "mock/judge-fail (prompts paper)" and summary.unfinished == 0
    assert statuses(rejudged) == {("passed", "mock/judge-pass")}
    written = json.loads((rejudged / "summary.json").read_text())
    assert written["judge"] == "mock/judge-pass" and written["models"]["mock/echo"]["accuracy"] == 100.0
    assert [s.ref.spec for s in list_verdict_sets(rejudged) if s.current] == ["mock/judge-pass"]
    # by number in the listing, or by the start of the fingerprint (which two judges of one prompt set share)
    show_verdict_set(rejudged, "2")
    assert statuses(rejudged) == {("failed", "mock/judge-fail")}
    fingerprint = list_verdict_sets(rejudged)[0].ref.identity
    with pytest.raises(InputError, match=rf"--show {fingerprint[:6]}: names 2 verdict sets of .*1 mock/judge-fail"):
        show_verdict_set(rejudged, fingerprint[:6])
    with pytest.raises(InputError, match=r"--show openai/gpt-5.4: names no verdict set"):
        show_verdict_set(rejudged, "openai/gpt-5.4")


def test_a_panels_members_are_sets_of_their_own(data_file):
    panel = evaluate(
        EvalConfig(data=str(data_file), models=["mock/echo"], judge=["mock/judge-pass", "mock/judge-fail"], limit=1)
    )
    sets = list_verdict_sets(panel.run_dir)
    assert sets[0].current and sets[0].ref.combined and sets[0].responses == 3
    assert {(s.ref.spec, s.shown) for s in sets[1:]} == {("mock/judge-pass", None), ("mock/judge-fail", None)}
    show_verdict_set(panel.run_dir, "mock/judge-pass")  # one member alone, as it judged
    assert statuses(panel.run_dir) == {("passed", "mock/judge-pass")}
    show_verdict_set(panel.run_dir, "1")  # the panel is second now: the current set comes first
    assert statuses(panel.run_dir) == {("passed", "mock/judge-pass")}
    back = [s for s in list_verdict_sets(panel.run_dir) if s.ref.combined]
    show_verdict_set(panel.run_dir, back[0].ref.identity)
    # the panel of a pass and a fail judge ties on every check: unscored
    assert statuses(panel.run_dir) == {("unscored", back[0].ref.spec)}


def test_the_cli_lists_the_sets_without_writing_and_switches_back(rejudged):
    from support.cli import run_cobe

    before = sorted(p.name for p in rejudged.iterdir())
    listed = run_cobe("runs", str(rejudged), "--verdict-sets", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [(s["judge"], s["current"], s["responses"]) for s in json.loads(listed.stdout)["verdict_sets"]] == [
        ("mock/judge-fail", True, 6),
        ("mock/judge-pass", False, 6),
    ]
    table = run_cobe("runs", str(rejudged), "--verdict-sets").stdout
    assert "mock/judge-pass" in table and "yes" in table
    assert sorted(p.name for p in rejudged.iterdir()) == before  # a listing writes nothing there
    switched = run_cobe("judge", str(rejudged), "--show", "mock/judge-pass", "--no-report")
    assert switched.returncode == 0, switched.stderr
    assert "now shows the verdicts of mock/judge-pass (prompts paper) instead of mock/judge-fail" in switched.stderr
    assert "mock/judge-pass (paper)" in switched.stdout and statuses(rejudged) == {("passed", "mock/judge-pass")}
    both = run_cobe("judge", str(rejudged), "--show", "1", "--judge", "mock/judge-pass")
    assert both.returncode == 2 and "--show and --judge" in both.stderr
    neither = run_cobe("judge", str(rejudged))
    assert neither.returncode == 2 and "--judge: expected a judge spec" in neither.stderr


def test_a_shown_set_keeps_its_judge_in_the_settings_block(rejudged, tmp_path):
    from support.cli import run_cobe

    switched = run_cobe("judge", str(rejudged), "--show", "mock/judge-pass", "--no-report")
    assert switched.returncode == 0, switched.stderr
    judges = json.loads((rejudged / "summary.json").read_text())["settings"]["judges"]
    assert judges == {
        "mock/judge-pass": {
            "api": "local",
            "thinking": "no thinking mode",
            "max_tokens": 5,
            "temperature": 0.0,
            "logprobs": True,
        }
    }
    judge_rows = [line for line in (rejudged / "report.md").read_text().splitlines() if line.startswith("| judge |")]
    assert judge_rows and all("`mock/judge-pass`" in line for line in judge_rows)
    report = run_cobe("report", str(rejudged), "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    markdown = (tmp_path / "report" / "report.md").read_text()
    settings = markdown[markdown.index("## Settings") :]
    assert "| judge | `mock/judge-pass` |" in settings and "mock/judge-fail" not in settings
