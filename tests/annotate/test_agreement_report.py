"""The agreement report: the worked example (TP 66, FP 14, FN 6, TN 164) from a CSV and from a study."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from cobe.annotate.agreement_report import agreement_report, labels_from_csv, labels_from_study, write_agreement
from cobe.annotate.store import StudyStore
from cobe.annotate.study import create_study, read_results
from cobe.core.errors import InputError

from .synthetic import make_row, write_run

PASS = {"connectors": "T", "preserve": "T", "change": "T"}
FAIL = {"connectors": "T", "preserve": "T", "change": "F"}
FAIL_PRESERVE = {"connectors": "T", "preserve": "F", "change": "T"}
UNSCORED = {"connectors": "T", "preserve": "T", "change": None}
FAILS, PASSES = ["No", "No", "Yes"], ["Yes", "Yes", "Other"]


def worked_example() -> tuple[list[dict], dict[str, list[str]]]:
    """250 compared items with exactly TP 66, FP 14, FN 6, TN 164, plus three excluded items."""
    plan = (
        [(FAIL, FAILS)] * 66
        + [(FAIL_PRESERVE, PASSES)] * 4
        + [(FAIL, PASSES)] * 10
        + [(PASS, FAILS)] * 6
        + [(PASS, PASSES)] * 164
        + [(PASS, ["Yes", "No", "Other"]), (FAIL, ["Other", "Other", "Other"]), (UNSCORED, FAILS)]
    )
    rows, labels = [], {}
    for index, (verdicts, human) in enumerate(plan):
        row = make_row(index, "mock/a", verdicts=dict(verdicts))
        rows.append(row)
        labels[f"{row['scenario_id']}:A:mock/a"] = list(human)
    return rows, labels


def write_csv(path: Path, labels: dict[str, list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["rater", "item", "label", "comment", "answered_at"])
        for item, human in labels.items():
            for k, label in enumerate(human, start=1):
                writer.writerow([f"rater-{k}", item, label, "", "2026-01-01T00:00:00Z"])
    return path


def check_worked_example(report: dict) -> None:
    m = report["metrics"]
    assert (m["tp"], m["fp"], m["fn"], m["tn"]) == (66, 14, 6, 164)
    assert round(m["accuracy"], 3) == 0.920
    assert round(m["precision"], 3) == 0.825
    assert round(m["recall"], 3) == 0.917
    assert round(m["f1"], 3) == 0.868
    assert round(m["kappa"], 3) == 0.811
    assert m["items"] == 253 and m["n"] == 250
    assert (m["no_majority_split"], m["no_majority_abstained"], m["judge_unscored"]) == (1, 1, 1)
    # the items left out for want of a majority are named, with what each rater said
    assert [(e["item"], sorted(e["labels"].values())) for e in report["no_majority_items"]] == [
        ("251v1:A:mock/a", ["No", "Other", "Yes"]),
        ("252v1:A:mock/a", ["Other", "Other", "Other"]),
    ]
    for name in ("accuracy", "precision", "recall", "f1", "kappa"):
        low, high = report["ci"][name]
        assert low <= m[name] <= high
    assert report["per_check_disagreements"]["judge_fail_human_pass"] == {
        "connectors": 0,
        "preserve": 4,
        "change": 10,
        "items": 14,
    }
    assert report["per_check_disagreements"]["judge_pass_human_fail"]["items"] == 6
    assert len(report["disagreements"]) == 20
    first = report["disagreements"][0]
    assert {"story", "response", "verdicts", "human_labels", "human_majority"} <= set(first)


def test_worked_example_from_csv(tmp_path):
    rows, labels = worked_example()
    run = write_run(tmp_path / "run", rows)
    report = agreement_report(labels_from_csv(write_csv(tmp_path / "r.csv", labels)), read_results(run), resamples=300)
    check_worked_example(report)
    assert -1 <= report["metrics"]["fleiss_kappa"] <= 1 and report["metrics"]["krippendorff_alpha"] is not None
    saved = json.loads(write_agreement(run, report).read_text())
    assert saved["metrics"]["tp"] == 66 and len(saved["disagreements"]) == 20


def test_worked_example_from_a_study_and_numeric_csv_ids(tmp_path):
    rows, labels = worked_example()
    run = write_run(tmp_path / "run", rows)
    study = create_study(run, n=len(rows), seed=3, raters=3)
    store = StudyStore(study.path)
    ids = {item.key: item.id for item in store.items()}
    for person in store.principals()[:3]:
        index = int(person.name.split("-")[1]) - 1
        for key, human in labels.items():
            assert store.save_rating(person.id, ids[key], human[index], "")
    check_worked_example(agreement_report(labels_from_study(study.path), read_results(run), resamples=200))
    # a CSV with study item ids resolves them through the run's default study
    numeric = {str(ids[k]): v for k, v in labels.items()}
    from_ids = labels_from_csv(write_csv(tmp_path / "ids.csv", numeric), run)
    check_worked_example(agreement_report(from_ids, read_results(run), resamples=50))


def test_check_option_uses_that_checks_verdict(tmp_path):
    rows, labels = worked_example()
    run = write_run(tmp_path / "run", rows)
    report = agreement_report(
        labels_from_csv(write_csv(tmp_path / "r.csv", labels)), read_results(run), check="preserve", resamples=0
    )
    m = report["metrics"]
    assert (m["tp"], m["fp"]) == (0, 4) and report["ci"]["kappa"] is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("rater,item\nrater-1,1v1:A:mock/a\n", "missing column(s) label"),
        ("rater,item,label\nrater-1,1v1:A:mock/a,Maybe\n", "r.csv:2: label 'Maybe'"),
        ("rater,item,label\nrater-1,1v1:A:mock/a,Yes\nrater-1,1v1:A:mock/a,No\n", "rated item 1v1:A:mock/a twice"),
        ("rater,item,label\nrater-1,7,Yes\n", "study item id but no study.sqlite"),
        ("rater,item,label\n", "no ratings"),
    ],
)
def test_bad_csv_is_one_clear_error(tmp_path, content, message):
    path = tmp_path / "r.csv"
    path.write_text(content)
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        labels_from_csv(path)


def test_ratings_for_another_run_are_refused(tmp_path):
    run = write_run(tmp_path / "run", [make_row(0, "mock/a")])
    path = tmp_path / "r.csv"
    path.write_text("rater,item,label\nrater-1,99v1:A:mock/z,Yes\n")
    with pytest.raises(InputError, match="none of the 1 rated items is in the run"):
        agreement_report(labels_from_csv(path), read_results(run))
