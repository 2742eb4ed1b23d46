"""The site's `category-examples.json` says `examples_per_category: 10`: a showcase, not the benchmark. Its import
and every table made from it say so, so its figures are never taken for the site's published totals."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import run_cobe

GRAPHS = ["Chain-like", "Fork-like", "Hydrid"]
DOMAINS = ["Engineering", "Health and Medicine"]


def _example(core: int, variation: int, gpt: str) -> dict[str, object]:
    return {
        "example_id": f"{core}v{variation}",
        "coreset_id": core,
        "variation_id": variation,
        "query_idx": 2,
        "original": f"Miller {core} ground the wheat at dawn because the river ran high. The flour sold out by {variation}.",
        "query": "Rewrite the original text, based on what would have happened instead had the river run low.",
        "gold_answer": "The river ran low, so the mill stood still and there was no flour to sell.",
        "should_not_change": [f"Miller {core} owned a mill."],
        "should_change": ["The flour sold out."],
        "model_outputs": {
            "gpt": {"response": "The river ran low; the mill stood still.", "verdict": gpt},
            "qwen": {"response": "The miller ground the wheat anyway.", "verdict": "wrong"},
        },
    }


def showcase(path: Path, per_category: int | None = 10) -> Path:
    """Three core sets, one per graph key, two variations each (one per domain): the site's nesting."""
    by_graph = {key: [_example(500 + i, 1, "correct" if (i + 1) % 2 else "wrong")] for i, key in enumerate(GRAPHS)}
    by_domain = {
        domain: [_example(500 + i, v, "correct" if (i + v) % 2 else "wrong") for i in range(len(GRAPHS))]
        for v, domain in enumerate(DOMAINS, start=1)
    }
    document: dict[str, object] = {"by_domain": by_domain, "by_graph": by_graph}
    if per_category is not None:
        document = {"examples_per_category": per_category, **document}
    path.write_text(json.dumps(document, indent=1))
    return path


def test_a_showcase_import_and_every_table_from_it_say_it_is_a_sample(tmp_path: Path) -> None:
    path = showcase(tmp_path / "category-examples.json")
    r = run_cobe("import", str(path), "--from", "cobe-site", "--out", "site", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "note: category-examples.json is the site's per-category sample (10 examples per domain" in r.stderr
    (gpt,) = [line for line in r.stdout.splitlines() if line.startswith("gpt:")]
    assert gpt.endswith("% on the per-category sample")
    summary = json.loads((tmp_path / "site" / "summary.json").read_text())
    assert summary["sample"]["examples_per_category"] == 10
    r = run_cobe("report", "site", "--out", "rep", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Sample: category-examples.json is the site's per-category sample" in " ".join(r.stdout.split())
    markdown = (tmp_path / "rep" / "report.md").read_text()
    # every section of figures from the sample; a run's settings block says how it was asked, not what it scored
    sections = markdown.count("\n## ") - markdown.count("\n## Settings")
    assert markdown.count("> **Sample:** category-examples.json is the site's per-category sample") == sections
    html = (tmp_path / "rep" / "report.html").read_text()
    assert html.count('class="sample-note warn"') >= 2


def test_a_file_that_says_no_sample_size_carries_no_sample_note(tmp_path: Path) -> None:
    path = showcase(tmp_path / "rows.json", per_category=None)
    r = run_cobe("import", str(path), "--from", "cobe-site", "--out", "site", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "per-category" not in r.stderr + r.stdout
    assert "sample" not in json.loads((tmp_path / "site" / "summary.json").read_text())


def statistics(path: Path) -> Path:
    """eval-statistics.json as the site lays it out: overall, by_domain and by_graph, model → counts."""

    def counts(correct: int, wrong: int, unknown: int = 0) -> dict[str, object]:
        total = correct + wrong + unknown
        return {"correct": correct, "wrong": wrong, "unknown": unknown, "total": total,
                "accuracy": round(correct / (correct + wrong), 4)}  # fmt: skip

    document = {
        "overall": {"gpt": counts(3780, 3006, 339), "qwen": counts(2500, 4300, 325)},
        "by_domain": {domain: {"gpt": counts(540, 430, 48), "qwen": counts(300, 700, 20)} for domain in DOMAINS},
        "by_graph": {key: {"gpt": counts(600 + 10 * i, 500), "qwen": counts(400, 700)} for i, key in enumerate(GRAPHS)},
        "notes": {"accuracy": "correct / (correct + wrong)", "query_indices": [2, 5, 7]},
    }
    path.write_text(json.dumps(document, indent=1))
    return path


def test_the_published_totals_import_and_sit_beside_a_runs_accuracy(tmp_path: Path) -> None:
    run = run_cobe("import", str(showcase(tmp_path / "category-examples.json")), "--from", "cobe-site", "--out",
                   "site", cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    r = run_cobe("import", str(statistics(tmp_path / "eval-statistics.json")), "--from", "cobe-site", "--out",
                 "published", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "published totals (2 models; overall, 4 domain and 6 graph-type figures)" in r.stdout
    r = run_cobe("report", "site", "--out", "rep", "--published", "published", "--format", "md,csv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    import pandas as pd

    overall = pd.read_csv(tmp_path / "rep" / "tables" / "published_overall.csv").set_index("model")
    assert round(overall.loc["gpt", "published_accuracy"], 2) == 55.70 and overall.loc["gpt", "published_total"] == 7125
    # gpt on the sample: 500v1, 501v2, 502v1 correct; 500v2, 501v1 (in both groupings, counted once), 502v2 wrong
    assert overall.loc["gpt", "run_accuracy"] == 50.0 and overall.loc["gpt", "run_scored"] == 6
    graphs = pd.read_csv(tmp_path / "rep" / "tables" / "published_graph_type.csv")
    gpt = graphs[graphs["model"] == "gpt"].set_index("group")
    assert set(gpt.index) == {"chain", "fork", "hybrid"}  # the site's Chain-like … Hydrid, read as the types
    assert gpt.loc["fork", "run_accuracy"] == 50.0 and round(gpt.loc["fork", "published_accuracy"], 2) == 54.95
    domains = pd.read_csv(tmp_path / "rep" / "tables" / "published_domain.csv")
    assert set(domains["group"]) == set(DOMAINS) and domains["run_accuracy"].notna().all()
    markdown = (tmp_path / "rep" / "report.md").read_text()
    assert "## Beside the published totals, by causal graph type (Fig. 7)" in markdown
    # the raw file works as well as the folder the import kept it in
    r = run_cobe("report", "site", "--out", "rep2", "--published", "eval-statistics.json", "--format", "csv",
                 cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    again = pd.read_csv(tmp_path / "rep2" / "tables" / "published_overall.csv").set_index("model")
    assert again.loc["gpt", "published_accuracy"] == overall.loc["gpt", "published_accuracy"]


def test_the_published_totals_show_in_report_html_and_name_their_model_in_report_md(tmp_path: Path) -> None:
    run = run_cobe("import", str(showcase(tmp_path / "category-examples.json")), "--from", "cobe-site", "--out",
                   "site", cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    statistics(tmp_path / "eval-statistics.json")
    r = run_cobe("report", "site", "--out", "rep", "--published", "eval-statistics.json", "--format", "md,html",
                 cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    markdown = (tmp_path / "rep" / "report.md").read_text()
    overall = markdown[markdown.index("## Beside the site's published totals") :].split("\n## ")[0]
    rows = [line for line in overall.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[0].startswith("| model | group |")  # each row names its model
    assert sorted(row.split(" | ")[0].strip("| ") for row in rows[1:]) == ["gpt", "qwen"]
    assert "the site's release" in overall and "not the paper's" in overall
    html = (tmp_path / "rep" / "report.html").read_text()
    section = html[html.index('<section id="published">') :].split("</section>")[0]
    assert "7,125 items a model" in section and "not the paper&#39;s" in section
    assert section.count("<td>gpt</td>") == 1 + len(DOMAINS) + len(GRAPHS)
