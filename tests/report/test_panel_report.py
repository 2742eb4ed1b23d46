"""The report's Judges section: shown for a panel (each judge beside the panel, agreement, flip rates) and for a
judge grading its own kind; absent for one judge of another family."""

from __future__ import annotations

import re
from pathlib import Path

from cobe.report import build_report
from cobe.run import EvalConfig, evaluate
from support.run_data import write_dataset

PANEL = ["mock/judge-pass", "mock/judge-fail", "mock/fixed:T"]


def _run(tmp_path: Path, name: str, models: list[str], judge: str | list[str], **options) -> Path:
    data = write_dataset(tmp_path / f"{name}.jsonl", 3)
    return evaluate(EvalConfig(data=str(data), models=models, judge=judge, run_dir=tmp_path / name, **options)).run_dir


def test_report_html_shows_the_panel_table_when_a_panel_judged(tmp_path):
    run = _run(tmp_path, "panel", ["mock/echo"], PANEL)
    report = build_report([run], formats="html,md,csv", resamples=10)
    html = (run / "report.html").read_text()
    table = html[html.index('id="panel-accuracy"') : html.index("</table>", html.index('id="panel-accuracy"'))]
    assert "panel (majority)" in table and all(f"<code>{spec}</code>" in table for spec in PANEL)
    cells = re.findall(r'<td class="num">([0-9.]+) <span', table)
    assert cells == ["100.00", "100.00", "0.00", "100.00"]  # the panel, then each judge alone
    assert 'id="panel-agreement"' in html and "Krippendorff" in html
    assert 'id="panel-flips"' not in html  # one sample each: nothing to flip
    assert "## Judges" in (run / "report.md").read_text()
    assert (run / "tables" / "judge_agreement.csv").is_file()
    assert set(report.tables["judges"]["judge"]) == {"panel", *PANEL}


def test_report_shows_flip_rates_of_a_sampled_judge(tmp_path):
    run = _run(tmp_path, "sampled", ["mock/echo"], "mock/judge-pass", judge_samples=2)
    build_report([run], formats="html", resamples=10)
    html = (run / "report.html").read_text()
    assert 'id="panel-flips"' in html and "<code>mock/judge-pass</code>" in html


def test_report_warns_when_a_judge_grades_its_own_kind_and_is_silent_otherwise(tmp_path):
    own = _run(tmp_path, "own", ["mock/fixed:T"], "mock/fixed:T")
    build_report([own], formats="html", resamples=10)
    html = (own / "report.html").read_text()
    assert re.search(
        r'class="self-preference">Warning: <code>mock/fixed:T</code> grades <code>mock/fixed:T</code>', html
    )
    assert 'id="panel-accuracy"' not in html  # one judge, asked once: no panel table
    other = _run(tmp_path, "other", ["mock/echo"], "mock/judge-pass")
    build_report([other], formats="html", resamples=10)
    assert 'id="judges"' not in (other / "report.html").read_text()
