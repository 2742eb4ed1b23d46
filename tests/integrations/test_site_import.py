"""`cobe import FILE --from cobe-site`: the site's judged results as published, nested or flat (fixtures: our own
stories in the site's shapes, three models, unknown verdicts, examples listed under both groupings)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.integrations.site_results import import_site_results
from cobe.report import build_report
from cobe.run.verdict_sets import list_verdict_sets
from support.cli import run_cobe

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"


def _examples(path: Path) -> list[dict]:
    """Each example of a fixture once, read the plain way (not through cobe)."""
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    nested = json.loads(path.read_text(encoding="utf-8"))
    unique = {}
    for grouping in nested.values():
        for examples in grouping.values():
            for example in examples:
                unique[json.dumps(example, sort_keys=True)] = example
    return list(unique.values())


def _site_accuracy(examples: list[dict]) -> dict[str, float]:
    """The site's own figure per model: correct / (correct + wrong), unknown left out."""
    counts = Counter((m, o["verdict"]) for e in examples for m, o in e["model_outputs"].items())
    models = {m for m, _ in counts}
    return {m: 100 * counts[(m, "correct")] / (counts[(m, "correct")] + counts[(m, "wrong")]) for m in models}


def _rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("name", ["category-examples.json", "results_flat.jsonl"])
def test_site_results_import_with_unknown_unscored_and_the_sites_accuracy(tmp_path: Path, name: str) -> None:
    source = SITE / name
    examples = _examples(source)
    result = import_site_results(source, tmp_path / "run")
    rows = _rows(result.out)
    assert result.rows == len(rows) == 3 * len(examples) == 36  # an example under both groupings counts once
    unknown = [r for r in rows if r["status"] == "unscored"]
    expected_unknown = sum(o["verdict"] == "unknown" for e in examples for o in e["model_outputs"].values())
    assert len(unknown) == expected_unknown == 3
    assert all(r["passed"] is None and "unknown" in r["unscored"]["change"] for r in unknown)
    summary = json.loads((result.out / "summary.json").read_text())
    assert summary["source"] == "cobe-site" and summary["status"]["unscored"] == 3
    for model, figure in _site_accuracy(examples).items():
        assert summary["accuracy"][model]["pooled_accuracy"] == pytest.approx(figure)
        counts = summary["site_verdicts"][model]
        assert summary["accuracy"][model]["passed"] == counts["correct"]
        assert summary["accuracy"][model]["failed"] == counts["wrong"]


def test_rows_carry_the_phrasing_their_query_says_and_the_groupings(tmp_path: Path) -> None:
    rows = _rows(import_site_results(SITE / "category-examples.json", tmp_path / "run").out)
    by_id = {r["scenario_id"]: r for r in rows if r["model"] == "gpt-5.4-pro"}
    assert {sid: r["template"] for sid, r in by_id.items() if sid.startswith("101v")} == {
        "101v1": "A",
        "101v2": "B",
        "101v3": "C",
    }
    assert by_id["104v3"]["template"] == "B"  # "Revise the story as if …": query_idx 5 decides
    assert (by_id["101v1"]["domain"], by_id["101v1"]["graph_type"]) == ("Food and cooking", "chain")
    assert (by_id["102v4"]["domain"], by_id["102v4"]["graph_type"]) == ("unknown", "fork")
    assert by_id["101v1"]["query"].startswith("Rewrite the original text") and by_id["101v1"]["story"]


def test_an_imported_site_run_reports_like_any_other(tmp_path: Path) -> None:
    run = import_site_results(SITE / "results_flat.jsonl", tmp_path / "run").out
    report = build_report([run], formats="md", resamples=20)
    board = report.leaderboard.set_index("model")
    assert board.loc["qwen-2.5-7b", "unscored"] == 2 and board.loc["gpt-5.4-pro", "scored"] == 12
    assert set(report.tables["phrasing"]["template"]) == {"A", "B", "C"}


def test_a_bad_verdict_or_a_conflicting_repeat_is_listed_and_nothing_is_written(tmp_path: Path) -> None:
    examples = [json.loads(line) for line in (SITE / "results_flat.jsonl").read_text().splitlines()]
    examples[1]["model_outputs"]["gpt-5.4-pro"]["verdict"] = "maybe"
    repeat = json.loads(json.dumps(examples[2]))
    repeat["model_outputs"]["gpt-5.4-pro"]["verdict"] = (
        "wrong" if examples[2]["model_outputs"]["gpt-5.4-pro"]["verdict"] == "correct" else "correct"
    )
    source = tmp_path / "bad.jsonl"
    source.write_text("".join(json.dumps(e) + "\n" for e in [*examples, examples[0], repeat]), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        import_site_results(source, tmp_path / "run")
    lines = str(caught.value).splitlines()
    assert lines[0] == "2 bad row(s); nothing written:"
    assert (
        lines[1]
        == f"{source}:2: gpt-5.4-pro: verdict: 'maybe' is not a site verdict; expected correct, wrong or unknown"
    )
    assert lines[2].startswith(f"{source}:14: gpt-5.4-pro: {examples[2]['example_id']} template ")
    assert lines[2].endswith("differs from line 3")  # the exact repeat of line 1 (line 13) is one answer
    assert not (tmp_path / "run").exists()


def test_cli_import_from_cobe_site_prints_the_sites_accuracy(tmp_path: Path) -> None:
    done = run_cobe("import", str(SITE / "category-examples.json"), "--from", "cobe-site", "--out", str(tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    figures = _site_accuracy(_examples(SITE / "category-examples.json"))
    for model, figure in figures.items():
        assert f"{model}: " in done.stdout and f"accuracy correct / (correct + wrong) = {figure:.2f}%" in done.stdout
    assert "Imported 36 rows" in done.stdout
    bad = run_cobe("import", str(SITE / "category-examples.json"), "--from", "cobe-site", "--out", str(tmp_path / "r"))
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "not empty" in bad.stderr
    with_data = run_cobe(
        "import", str(SITE / "results_flat.jsonl"), "--from", "cobe-site", "--out", str(tmp_path / "d"), "--data", "x"
    )
    assert with_data.returncode == 2 and "drop --data" in with_data.stderr


def test_an_imported_site_run_is_a_run_listed_re_judged_and_keeping_the_published_verdicts(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "site"
    assert (
        run_cobe("import", str(SITE / "category-examples.json"), "--from", "cobe-site", "--out", str(run)).returncode
        == 0
    )
    assert (run / "cobe.sqlite").is_file()
    listed = json.loads(run_cobe("runs", str(tmp_path / "runs"), "--json").stdout)["runs"]
    assert [Path(e["run_dir"]).name for e in listed] == ["site"] and listed[0]["judge"] == "cobe-site (published)"
    judged = run_cobe("judge", str(run), "--judge", "mock/judge-pass")
    assert judged.returncode == 0, judged.stderr
    rows = _rows(run)
    assert {r["judge"] for r in rows} == {"mock/judge-pass"} and all(r["status"] == "passed" for r in rows)
    names = {v.ref.spec: v.responses for v in list_verdict_sets(run)}
    assert names == {"mock/judge-pass": 36, "cobe-site (published)": 36}
    shown = run_cobe("judge", str(run), "--show", "cobe-site (published)")
    assert shown.returncode == 0, shown.stderr
    assert sum(r["status"] == "unscored" for r in _rows(run)) == 3  # the site's unknown verdicts again, no call
    # published verdicts record no judge settings: the Settings block makes none up for them
    assert "judges" not in json.loads((run / "summary.json").read_text())["settings"]


def test_the_report_of_a_site_import_names_the_published_verdicts_not_a_judge(tmp_path: Path) -> None:
    run = import_site_results(SITE / "category-examples.json", tmp_path / "run").out
    report = (run / "report.md").read_text()
    assert "Judge: `cobe-site (published)`" not in report and "(prompts: published)" not in report
    assert "Verdicts: published verdicts of the CoBe site" in report and "no cobe judge gave them" in report
    summary = json.loads((run / "summary.json").read_text())
    assert summary["verdicts_from"].startswith("published verdicts of the CoBe site")


def test_the_accuracy_line_of_a_site_import_says_the_sites_verdict_decides(tmp_path: Path) -> None:
    run = import_site_results(SITE / "category-examples.json", tmp_path / "run").out
    written = build_report([run], out=tmp_path / "report", formats="md", resamples=5).out / "report.md"
    for report in ((run / "report.md").read_text(), written.read_text()):
        line = next(text for text in report.splitlines() if text.startswith("Accuracy ="))
        assert "as soon as one check is F" not in line and "as its source's one verdict says" in line
