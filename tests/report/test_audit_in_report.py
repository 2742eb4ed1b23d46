"""A run whose judge was audited (`cobe judges audit --run-dir RUN`) shows the audit's findings in its report's
judge section; an audit of another judge is said to be one, and its findings are not shown."""

from __future__ import annotations

import json

from cobe.api import report as api_report
from support.cli import run_cobe
from support.run_data import write_dataset


def judged_run(tmp_path, judge: str):
    data = write_dataset(tmp_path / "data.jsonl", 4)
    run = tmp_path / "run"
    made = run_cobe("eval", "-m", "mock/echo", "--judge", judge, "--data", str(data), "--run-dir", str(run))
    assert made.returncode == 0, made.stderr
    return data, run


def test_the_audited_judges_findings_are_in_the_report(tmp_path):
    data, run = judged_run(tmp_path, "mock/judge-pass")
    # the run's own data by default: the audit reads it from the run's summary
    audit = run_cobe("judges", "audit", "--judge", "mock/judge-pass", "--n", "4", "--run-dir", str(run), cwd=tmp_path)
    assert audit.returncode == 0, audit.stderr
    card = json.loads((run / "audit.json").read_text())
    assert card["data"] == str(data) and len(card["scenarios"]) == 4
    api_report(run, formats="md,html", resamples=20)
    html = (run / "report.html").read_text()
    assert 'id="judge-audit"' in html
    omission = next(line for line in card["findings"] if "omissions" in line)
    assert omission.startswith("passes 100% of omissions") and omission in html
    md = (run / "report.md").read_text()
    assert "## Judge audit (`run`: `mock/judge-pass`)" in md and f"- {omission}" in md


def test_an_audit_of_another_judge_is_named_and_not_shown(tmp_path):
    data, run = judged_run(tmp_path, "mock/judge-pass")
    audit = run_cobe("judges", "audit", "--judge", "mock/judge-fail", "--n", "4", "--run-dir", str(run), cwd=tmp_path)
    assert audit.returncode == 0, audit.stderr
    api_report(run, formats="md,html", resamples=20)
    html = (run / "report.html").read_text()
    assert "not the judge whose verdicts the run shows (<code>mock/judge-pass</code>)" in html
    assert "omissions" not in html and "## Judge audit" not in (run / "report.md").read_text()
