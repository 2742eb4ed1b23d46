"""A run whose judge was audited (`cobe judges audit --run-dir RUN`) shows the audit's findings in its report's
judge section; an audit of another judge is said to be one, and its findings are not shown."""

from __future__ import annotations

import json

from cobe.api import report as api_report
from support.cli import assert_one_line_error, run_cobe
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
    assert 'class="audit-figure"' not in html and "<th>as expected</th>" not in html  # nor its tables


def test_the_report_shows_the_audits_tables_and_its_reliability_figure(tmp_path):
    data, run = judged_run(tmp_path, "mock/judge-pass")
    audit = run_cobe("judges", "audit", "--judge", "mock/judge-pass", "--n", "4", "--run-dir", str(run), cwd=tmp_path)
    assert audit.returncode == 0, audit.stderr
    # mock judges answer with a first-token logprob, so P(T) is known: the figure is written beside the card
    figure = (run / "audit_reliability.svg").read_text()
    assert figure.startswith("<?xml") and "against the verdicts the probes must get" in figure
    assert "![Reliability of P(T)](audit_reliability.svg)" in (run / "audit.md").read_text()
    api_report(run, formats="html", resamples=20)
    html = (run / "report.html").read_text()
    section = html[html.index('id="judge-audit"') :]
    section = section[: section.index("</section>")]
    assert 'class="audit-figure"' in section and "data:image/svg+xml;base64," in section
    # the card's tables, not only its findings: probes per check, stability, confidence
    assert "story without its change sentences" in section and "<th>as expected</th>" in section
    assert "Stability" in section and "expected calibration error" in section.lower()


def test_an_audit_file_cobe_did_not_write_is_one_line(tmp_path):
    _, run = judged_run(tmp_path, "mock/judge-pass")
    stability = {"repeats": 1, "temperature": None}
    card = {"judge": "mock/judge-pass", "judge_prompts": "paper", "data": "x", "stability": stability, "probes": 3}
    (run / "audit.json").write_text(json.dumps(card))
    refused = run_cobe("report", str(run), "--format", "html")
    assert_one_line_error(refused, "audit.json", "field probes", "expected a judge audit cobe wrote")
    assert refused.returncode == 2
