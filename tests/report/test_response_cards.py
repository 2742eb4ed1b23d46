"""What report.html's response cards are given: the scenario's illustrative answer (once per scenario, from the run's
store), each check's P(T) and raw reply, and, for a model whose source gives one verdict per response (the site's
published verdicts), that verdict, with the per-check tables and figure left to the models that have them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cobe.report import build_report
from cobe.report.answers import illustrative_answers
from cobe.report.load import load_runs
from cobe.report.tables import build_tables
from support.card_runs import CHANGE_REPLY, illustrative, scripted_run, site_run
from support.cli import run_cobe
from support.results import make_rows, write_run
from support.run_data import write_dataset

NOTE = "No per-check verdicts for"


def _payload(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert found is not None
    return json.loads(found.group(1))


def test_a_card_gets_the_illustrative_answer_once_per_scenario_and_each_checks_reply_and_p_true(tmp_path: Path) -> None:
    run = scripted_run(tmp_path)
    build_report([run], formats="html", resamples=20)
    html = (run / "report.html").read_text()
    data = _payload(html)
    assert len(data["rows"]) == 9  # three scenarios × A, B, C
    for index in (1, 2, 3):
        answer = illustrative(index)
        assert data["scenarios"][f"{index}v0"]["illustrative"] == answer
        assert html.count(answer) == 1  # in the payload once, however many rows answer the scenario
    for row in data["rows"]:
        assert dict(zip(data["checks"], row["p"])) == {"connectors": 1.0, "preserve": 1.0, "change": 0.0}
        assert row["r"] == {"connectors": "T", "preserve": "T", "change": CHANGE_REPLY}
    assert data["overall"] == {}  # judged per check: every card shows its three checks
    assert "window.__xss" in html and "<script>window.__xss" not in html and "<img src=x" not in html


def test_a_runs_own_report_reads_the_answers_from_its_store_and_leaves_no_file_beside_it(tmp_path: Path) -> None:
    write_dataset(tmp_path / "data.jsonl", 2)
    r = run_cobe("eval", "--data", "data.jsonl", "--model", "mock/echo", "--judge", "mock/judge-pass", "--run-dir", "run",
                 cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    # the report is redrawn under the run's lock, the store closed: read as idle, no -wal or -shm is left behind
    assert [p.name for p in (tmp_path / "run").glob("cobe.sqlite*")] == ["cobe.sqlite"]
    data = _payload((tmp_path / "run" / "report.html").read_text())
    assert data["scenarios"]["1v0"]["illustrative"] == illustrative(1)
    r = run_cobe("report", "run", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in (tmp_path / "run").glob("cobe.sqlite*")] == ["cobe.sqlite"]


def test_a_bare_results_file_has_no_illustrative_answer_and_no_p_true_to_give(tmp_path: Path) -> None:
    run = write_run(tmp_path / "r", make_rows("mock/m", 6, 0.5))  # results.jsonl alone: no store beside it
    assert illustrative_answers(load_runs([run]).frame) == {}
    build_report([run], formats="html", resamples=0)
    data = _payload((run / "report.html").read_text())
    assert {s["illustrative"] for s in data["scenarios"].values()} == {None}
    assert not any("p" in row for row in data["rows"])


def test_a_site_import_says_once_it_has_no_per_check_verdicts_and_draws_no_empty_table(tmp_path: Path) -> None:
    run = site_run(tmp_path)
    report = build_report([run], out=tmp_path / "rep", formats="md,html,csv,svg", resamples=20)
    assert report.tables["checks"].empty and report.tables["error_types"].empty
    markdown = (report.out / "report.md").read_text()
    assert markdown.count(NOTE) == 1
    assert "cobe-site (published)" in markdown.split(NOTE)[1].splitlines()[0]
    assert "| E1 upstream" not in markdown and "## Failure rate per check" not in markdown
    assert not (report.out / "figures" / "checks.svg").exists()
    html = (report.out / "report.html").read_text()
    assert html.count(NOTE) == 1 and 'data-figure="checks"' not in html
    data = _payload(html)
    assert (
        sorted(data["overall"].values()) == ["cobe-site (published)"] * 3 == [data["overall"][str(i)] for i in range(3)]
    )
    # the site's gold answer is the scenario's illustrative answer, kept in the imported run's store
    assert all(s["illustrative"] for s in data["scenarios"].values())


def test_a_model_with_per_check_verdicts_keeps_its_rates_beside_one_with_overall_verdicts_only(tmp_path: Path) -> None:
    judged = make_rows("mock/judged", 12, 0.5)
    overall = make_rows("ext/overall", 12, 0.5)
    for row in overall:  # as `cobe import` writes a file's overall verdicts: passed or failed, no check
        row.update(verdicts={}, judge_raw={}, unscored={}, judge="lm-eval")
    run = write_run(tmp_path / "r", judged + overall)
    tables = build_tables(load_runs([run]).frame, resamples=0)
    assert set(tables["checks"]["label"]) == {"mock/judged"}
    kept = tables["error_types"]
    assert set(kept.loc[kept["error"].isin(["E1", "E2", "E3"]), "label"]) == {"mock/judged"}
    # E4 / E5 come from the responses' pass or fail, which the overall verdicts do give
    assert set(kept.loc[kept["label"] == "ext/overall", "error"]) == {"E4", "E5"}
    report = build_report([run], out=tmp_path / "rep", formats="md,html", resamples=0)
    markdown = (report.out / "report.md").read_text()
    (line,) = [line for line in markdown.splitlines() if line.startswith(NOTE)]
    assert "ext/overall" in line and "mock/judged" not in line and "(lm-eval)" in line
    data = _payload((report.out / "report.html").read_text())
    assert data["overall"] == {str(data["labels"].index("ext/overall")): "lm-eval"}
