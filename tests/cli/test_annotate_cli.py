"""`cobe annotate`, `cobe agreement` and `cobe judges analyze` through the CLI, never a traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from annotate.synthetic import make_row, write_run
from annotate.test_agreement_report import worked_example, write_csv
from cobe.annotate.store import StudyStore
from cobe.cli.main import cli
from support.cli import run_cobe


def run(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output
    return result


def test_create_prints_one_link_per_rater_and_admin(tmp_path):
    rows = [make_row(i, "mock/a" if i < 8 else "mock/b") for i in range(12)]
    run_dir = write_run(tmp_path / "run", rows)
    result = run(
        "annotate",
        "create",
        str(run_dir),
        "--n",
        "6",
        "--seed",
        "0",
        "--raters",
        "3",
        "--base-url",
        "http://127.0.0.1:9999",
        "--models",
        "all",
    )
    assert result.exit_code == 0, result.output
    links = re.findall(r"(rater-\d|admin): (http://127\.0\.0\.1:9999/(?:r|a)/[\w-]{43})", result.output)
    assert [name for name, _ in links] == ["rater-1", "rater-2", "rater-3", "admin"]
    assert "mock/a 4, mock/b 2" in result.output
    assert (run_dir / "study" / "study.sqlite").is_file()
    # links cannot be shown again, only rotated
    listing = run("annotate", "links", str(run_dir / "study"))
    assert listing.exit_code == 0 and "--rotate" in listing.output and links[0][1] not in listing.output
    rotated = run("annotate", "links", str(run_dir / "study"), "--rotate", "--who", "rater-2")
    assert (
        rotated.exit_code == 0
        and "rater-2: http://127.0.0.1:9999/r/" in rotated.output
        and "rater-1:" not in rotated.output
    )
    status = run("annotate", "status", str(run_dir / "study"))
    assert status.exit_code == 0 and "rater-3" in status.output


def test_create_one_model_tier_one_as_in_the_paper(tmp_path):
    rows = []
    for i in range(12):
        row = make_row(i, "mock/a" if i % 2 else "mock/b", template="A" if i < 8 else "H1")
        row["tier"] = 1 if i < 8 else 3
        rows.append(row)
    run_dir = write_run(tmp_path / "run", rows)
    done = run_cobe("annotate", "create", str(run_dir), "--model", "mock/a", "--tier", "1", "--n", "250")
    assert done.returncode == 0, done.stderr
    assert "Items per model: mock/a 4\n" in done.stdout
    assert "only 4 rateable responses matched, fewer than --n 250" in done.stdout
    assert {(i.model, i.template) for i in StudyStore(run_dir / "study").items()} == {("mock/a", "A")}
    helped = run_cobe("annotate", "create", "--help").stdout
    assert "--model MODEL --tier 1 --n 250 --raters 3" in helped
    assert "more than half of the raters (two of three; both of two)" in " ".join(helped.split())
    code, err = run_main("annotate", "create", str(run_dir), "--model", "mock/c", "--out", str(tmp_path / "s"))
    assert code == 2 and "--model mock/c: not in the run" in err and err.count("\n") == 1


def test_create_on_a_run_of_several_models_asks_for_model_unless_all(tmp_path):
    rows = [make_row(i, "mock/a" if i % 2 else "mock/b") for i in range(8)]
    run_dir = write_run(tmp_path / "run", rows)
    code, err = run_main("annotate", "create", str(run_dir), "--n", "4")
    assert code == 2 and err.count("\n") == 1
    assert "the run holds 2 models (mock/a, mock/b)" in err and "--model" in err and "--models all" in err
    assert not (run_dir / "study").exists()
    code, err = run_main("annotate", "create", str(run_dir), "--model", "mock/a", "--models", "all")
    assert code == 2 and "exclude each other" in err
    done = run_cobe("annotate", "create", str(run_dir), "--n", "4", "--models", "all")
    assert done.returncode == 0, done.stderr
    assert "Items per model: mock/a 2, mock/b 2" in done.stdout
    assert StudyStore(run_dir / "study").meta("models") == "all"


def run_main(*args: str) -> tuple[int, str]:
    """The real entry point: exit code and stderr."""
    done = run_cobe(*args)
    assert "Traceback" not in done.stderr
    return done.returncode, done.stderr


def test_create_errors_are_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    code, err = run_main("annotate", "create", str(tmp_path / "empty"))
    assert code == 2 and err.startswith("error: ") and "no results file" in err and err.count("\n") == 1
    run_dir = write_run(tmp_path / "run", [make_row(0, "mock/a")])
    code, err = run_main("annotate", "create", str(run_dir), "--n", "0")
    assert code == 2 and "--n 0: expected at least 1 item" in err
    code, err = run_main("annotate", "serve", str(tmp_path / "empty"))
    assert code == 2 and "no rating study found" in err


def test_agreement_from_csv_writes_agreement_json(tmp_path):
    rows, labels = worked_example()
    run_dir = write_run(tmp_path / "run", rows)
    csv_path = write_csv(tmp_path / "ratings.csv", labels)
    result = run("agreement", str(csv_path), "--run", str(run_dir), "--resamples", "100")
    assert result.exit_code == 0, result.output
    assert "0.920" in result.output and "0.811" in result.output and "66 / 14 / 6 / 164" in result.output
    saved = json.loads((run_dir / "agreement.json").read_text())
    assert saved["metrics"]["kappa"] is not None and round(saved["metrics"]["f1"], 3) == 0.868
    assert len(saved["disagreements"]) == 20
    as_json = run("agreement", str(csv_path), "--run", str(run_dir), "--json", "--resamples", "0", "--check", "change")
    data = json.loads(as_json.output)
    assert data["check"] == "change" and data["metrics"]["fp"] == 10
    assert "need --run" in str(run("agreement", str(csv_path)).exception)


def _rated_study(tmp_path: Path) -> Path:
    """A 6-item study whose humans fail exactly the responses that contain BADREWRITE."""
    rows = [make_row(i, "mock/a", response=f"Rewrite {i}" + (" BADREWRITE" if i % 3 == 0 else "")) for i in range(6)]
    run_dir = write_run(tmp_path / "run", rows)
    run("annotate", "create", str(run_dir), "--n", "6", "--raters", "2")
    store = StudyStore(run_dir / "study")
    for person in store.principals()[:2]:
        for item in store.items():
            store.save_rating(person.id, item.id, "No" if "BADREWRITE" in item.response else "Yes", "")
    return run_dir / "study"


def test_agreement_from_a_study_uses_its_run(tmp_path):
    study = _rated_study(tmp_path)
    result = run("agreement", str(study), "--resamples", "50")
    assert result.exit_code == 0, result.output
    saved = json.loads((study.parent / "agreement.json").read_text())
    # the synthetic run's judge passed everything, humans failed two items
    assert (saved["metrics"]["fn"], saved["metrics"]["tn"]) == (2, 4)


def test_agreement_lists_items_without_a_majority(tmp_path):
    """Three raters: Yes/Yes/Other is a majority, Yes/No/Other and a lone answer are not, and are named."""
    rows = [make_row(i, "mock/a") for i in range(4)]
    run_dir = write_run(tmp_path / "run", rows)
    run("annotate", "create", str(run_dir), "--n", "4", "--raters", "3")
    store = StudyStore(run_dir / "study")
    raters = store.principals()[:3]
    answers = {
        "1v1": ["Yes", "Yes", "Other"],
        "2v1": ["Yes", "No", "Other"],
        "3v1": ["No", None, None],  # two raters have not answered yet: one vote of three
        "4v1": ["No", "No", "Yes"],
    }
    for item in store.items():
        for person, label in zip(raters, answers[item.scenario_id]):
            if label:
                store.save_rating(person.id, item.id, label, "")
    result = run("agreement", str(run_dir / "study"), "--resamples", "0")
    assert result.exit_code == 0, result.output
    assert (
        "Without a majority (two matching Yes/No answers of three is needed; left out above): "
        "2v1:A:mock/a, 3v1:A:mock/a" in " ".join(result.output.split())
    )
    saved = json.loads((run_dir / "agreement.json").read_text())
    m = saved["metrics"]
    # the judge passed all four; humans pass 1v1 and fail 4v1; 2v1 and 3v1 are out of every figure
    assert (m["n"], m["tn"], m["fn"], m["no_majority"]) == (2, 1, 1, 2)
    assert (m["no_majority_split"], m["no_majority_abstained"]) == (1, 1)
    assert saved["no_majority_items"][1] == {"item": "3v1:A:mock/a", "labels": {"rater-1": "No"}}


def test_a_two_rater_study_says_its_majority_is_both_raters(tmp_path):
    run_dir = write_run(tmp_path / "run", [make_row(i, "mock/a") for i in range(3)])
    run("annotate", "create", str(run_dir), "--n", "3", "--raters", "2")
    store = StudyStore(run_dir / "study")
    first, second = store.principals()[:2]
    answers = {"1v1": ("Yes", "Yes"), "2v1": ("Yes", "No"), "3v1": ("No", "No")}
    for item in store.items():
        for person, label in zip((first, second), answers[item.scenario_id]):
            store.save_rating(person.id, item.id, label, "")
    result = run("agreement", str(run_dir / "study"), "--resamples", "0")
    shown = " ".join(result.output.split())
    assert result.exit_code == 0 and "of three" not in shown
    assert (
        "Without a majority (the same Yes/No answer from both raters is needed; left out above): 2v1:A:mock/a" in shown
    )


def test_judges_analyze_ranks_by_kappa(tmp_path):
    study = _rated_study(tmp_path)
    script = tmp_path / "judge.yaml"
    script.write_text('BADREWRITE: "F"\ndefault: "T"\n')
    result = run(
        "judges",
        "analyze",
        str(study),
        "--judge",
        "mock/judge-pass",
        "--judge",
        f"mock/file:{script}",
        "--judge",
        "mock/fixed:maybe",
        "--json",
        "--resamples",
        "20",
    )
    assert result.exit_code == 0, result.output
    ranked = json.loads(result.stdout)["judges"]  # one object, its list inside (issue 43, item 15)
    assert "progress: judge " in result.stderr  # off a terminal judging prints progress lines there
    assert [r["judge"] for r in ranked] == [f"mock/file:{script}", "mock/judge-pass", "mock/fixed:maybe"]
    # a judge that passes everything has no kappa (one class on its side), and says why
    assert ranked[0]["kappa"] == 1.0 and ranked[1]["kappa"] is None and ranked[2]["kappa"] is None
    assert ranked[1]["kappa_undefined"] == "undefined: the judge said pass on every item"
    assert ranked[2]["unscored_share"] == 1.0 and ranked[0]["unscored_share"] == 0.0
    assert all(r["seconds_per_1000"] is not None for r in ranked)
    assert (study / "judges.sqlite").is_file()
    table = run("judges", "analyze", str(study), "--judge", "mock/judge-fail", "--resamples", "0")
    assert table.exit_code == 0 and "mock/" in table.output and "kappa" in table.output
    assert "kappa of mock/judge-fail: undefined: the judge said fail on every item." in table.output
