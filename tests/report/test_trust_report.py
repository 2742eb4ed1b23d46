"""Reports show the judge self-test and the human-calibrated pass rates when a run has them."""

from __future__ import annotations

import json
import math
from pathlib import Path

from cobe.annotate import StudyStore, create_study
from cobe.api import leaderboard
from cobe.api import report as api_report
from cobe.judge.selftest_result import SelfTest, probe_check, self_test_verdict
from cobe.report import build_report
from support.cli import run_cobe
from support.results import make_rows, write_run


def judge_check() -> dict:
    checks = [
        probe_check("identity", "change", "F", ["T"] * 9 + ["F"]),
        *(probe_check("illustrative", c, "T", ["T"] * 10) for c in ("connectors", "preserve", "change")),
        probe_check("swapped", "preserve", "F", ["T"] * 10),
    ]
    line, ok = self_test_verdict(checks)
    test = SelfTest(judge="local/gemma-3-270m", judge_prompts="default", data="builtin:starter", checks=checks)
    return test.model_copy(update={"verdict": line, "as_expected": ok, "scenarios": ["1v1"] * 10}).model_dump(
        mode="json"
    )


def rated_run(tmp_path: Path) -> Path:
    run = write_run(tmp_path / "run", make_rows("mock/m", 30, 0.7))
    (run / "summary.json").write_text(json.dumps({"run_id": "run-1", "judge_check": judge_check()}))
    create_study(run, n=40, seed=2, raters=3)  # <run>/study/study.sqlite
    store = StudyStore(run / "study")
    raters = [p for p in store.principals() if p.role == "rater"]
    for item in store.items():
        row = json.loads(item.row_json)
        # humans fail every third item the judge passed, and agree otherwise
        label = "Yes" if row["passed"] and item.id % 3 else "No"
        for rater in raters:
            store.save_rating(rater.id, item.id, label, "")
    return run


def test_report_html_and_md_show_the_self_test_and_calibrated_rates(tmp_path):
    run = rated_run(tmp_path)
    api_report(run, formats="md,html", resamples=50)
    html = (run / "report.html").read_text()
    assert 'id="judge-check"' in html and "this judge passes nearly everything" in html
    assert "unchanged story" in html and "[0%, 45%]" in html  # 1 of 10 with its exact CI
    assert 'id="calibration"' in html and "human-calibrated (95% CI)" in html
    assert html.count('class="num calibrated"') == 1
    md = (run / "report.md").read_text()
    assert "## Judge self-test (`run`)" in md and "## Human-calibrated pass rates" in md
    assert "| unchanged story | change | F | 1/10 | 10% | [0%, 45%] | 0 |" in md
    assert "a No does not say which failed" in md


def test_leaderboard_puts_the_calibrated_rate_beside_the_judge_only_one(tmp_path):
    run = rated_run(tmp_path)
    board = leaderboard(run, resamples=0)
    row = board.iloc[0]
    assert row["human_labels"] == 40 and row["calibrated_low"] <= row["calibrated"] <= row["calibrated_high"]
    assert row["calibrated"] < row["accuracy"]  # humans fail a third of what the judge passed
    plain = leaderboard(write_run(tmp_path / "bare", make_rows("mock/m", 5)), resamples=0)
    assert "calibrated" not in plain.columns


def test_a_report_without_either_has_neither_section(tmp_path):
    run = write_run(tmp_path / "run", make_rows("mock/m", 6))
    build_report([run], formats="html", resamples=0)
    html = (run / "report.html").read_text()
    assert 'id="judge-check"' not in html and 'id="calibration"' not in html


def test_cli_report_takes_a_study_made_elsewhere(tmp_path):
    run = rated_run(tmp_path)
    moved = tmp_path / "elsewhere"
    (run / "study").rename(moved)
    r = run_cobe("report", str(run), "--study", str(moved), "--format", "md", "--resamples", "0")
    assert r.returncode == 0, r.stderr
    assert "human-calibrated" in r.stdout
    line = next(x for x in (run / "report.md").read_text().splitlines() if x.startswith("| mock/m |"))
    cell = line.split("|")[5].strip()  # "calibrated [low, high]"
    assert not math.isnan(float(cell.split()[0]))
