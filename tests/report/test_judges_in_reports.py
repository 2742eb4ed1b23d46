"""Judge identity travels with every number: leaderboards name each row's judge and prompt set, and runs judged
differently are not ranked together unless asked (--across-judges), which then says so on every table."""

from __future__ import annotations

import json

import pytest

import cobe
from cobe.core.errors import InputError
from cobe.report import build_report
from support.cli import assert_one_line_error, run_cobe
from support.results import make_rows, write_run


def judged_run(path, model, judge, prompts="paper", fingerprint=None, pass_rate=0.6, run_id=None):
    rows = make_rows(model, 12, pass_rate, run_id=run_id or path.name)
    for row in rows:
        row["judge"], row["judge_prompts"] = judge, prompts
    run = write_run(path, rows)
    if fingerprint is not None:  # what the engine's summary.json records beside the judge
        (run / "summary.json").write_text(json.dumps({"judge": judge, "judge_fingerprint": fingerprint}))
    return run


def test_leaderboards_name_the_judge_and_prompt_set(tmp_path):
    a = judged_run(tmp_path / "a", "m1", "mock/judge-pass", "paper")
    b = judged_run(tmp_path / "b", "m2", "mock/judge-pass", "paper")
    board = cobe.leaderboard([a, b], resamples=20)
    assert sorted(map(tuple, board[["model", "judge", "judge_prompts"]].values.tolist())) == [
        ("m1", "mock/judge-pass", "paper"),
        ("m2", "mock/judge-pass", "paper"),
    ]
    report = build_report([a, b], out=tmp_path / "r", formats="md,csv", resamples=20)
    text = (report.out / "report.md").read_text()
    assert "| judge | judge prompts |" in text and "| `mock/judge-pass` | `paper` |" in text
    assert "## Runs and their judges" in text and "Note:" not in text
    done = run_cobe("report", str(a), str(b), "--out", str(tmp_path / "t"), "--resamples", "20", "--format", "md")
    assert done.returncode == 0 and "mock/judge-pass" in done.stdout and "(paper)" in done.stdout


def test_runs_judged_differently_are_refused_naming_both(tmp_path):
    a = judged_run(tmp_path / "a", "m", "mock/judge-pass")
    b = judged_run(tmp_path / "b", "m", "mock/judge-fail")
    with pytest.raises(
        InputError, match=r"judged differently .*a: mock/judge-pass \(prompts paper\).*b: mock/judge-fail"
    ):
        build_report([a, b], out=tmp_path / "r", formats="md", resamples=20)
    assert_one_line_error(run_cobe("compare", str(a), str(b)), "mock/judge-pass", "mock/judge-fail", "--across-judges")
    refused = run_cobe("report", str(a), str(b), "--out", str(tmp_path / "r"))
    assert refused.returncode == 2
    assert_one_line_error(refused, "judged differently", "mock/judge-fail")
    # the same judge with another prompt set, or another fingerprint of one prompt set, is judged differently too
    c = judged_run(tmp_path / "c", "m", "mock/judge-pass", "contextual")
    assert run_cobe("compare", str(a), str(c)).returncode == 2
    d = judged_run(tmp_path / "d", "m", "mock/judge-pass", fingerprint="aaaa1111")
    e = judged_run(tmp_path / "e", "m", "mock/judge-pass", fingerprint="bbbb2222")
    assert_one_line_error(run_cobe("compare", str(d), str(e)), "aaaa1111", "bbbb2222")
    assert run_cobe("compare", str(a), str(d), "--resamples", "20").returncode == 0  # one side unrecorded: alike


def test_across_judges_says_so_on_every_table(tmp_path):
    a = judged_run(tmp_path / "a", "m", "mock/judge-pass", pass_rate=0.9)
    b = judged_run(tmp_path / "b", "m", "mock/judge-fail", pass_rate=0.1)
    report = build_report([a, b], out=tmp_path / "r", formats="md,html", resamples=20, across_judges=True)
    assert report.judge_note is not None and "mock/judge-fail" in report.judge_note
    text = (report.out / "report.md").read_text()
    sections = text.split("\n## ")[1:]
    tables = [s for s in sections if "\n|" in s and not s.startswith(("Agreement", "Judge self-test"))]
    assert len(tables) >= 8 and all("> **Note:** the runs were judged differently" in s for s in tables)
    html = (report.out / "report.html").read_text()
    assert html.count('class="judge-note warn"') >= 4
    compared = run_cobe("compare", str(a), str(b), "--across-judges", "--resamples", "20")
    assert compared.returncode == 0 and "judged differently" in compared.stdout and "mock/judge-fail" in compared.stdout
    as_json = json.loads(run_cobe("compare", str(a), str(b), "--across-judges", "--json").stdout)
    assert "mock/judge-pass" in as_json["judges_differ"]
    listed = run_cobe("report", str(a), str(b), "--out", str(tmp_path / "t"), "--format", "md", "--across-judges")
    assert listed.returncode == 0 and "judged differently" in listed.stdout
