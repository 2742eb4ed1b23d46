"""`cobe export RUN… --to cobe-site OUT/`: the site's own files, written by cobe. Round trip: the site-shaped
files imported, exported, and every count and accuracy equals the original's; the export imported again is the
same run (issue 44, item 4)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from support.cli import run_cobe

GRAPHS = ["Chain-like", "Collider-like", "Correlated", "Diamond-like", "Fork-like", "Hydrid"]
DOMAINS = ["Health and Medicine", "Engineering", "Economics and Finance"]
MODELS = ("gpt", "claude", "qwen")
QUERIES = {
    2: "Rewrite the original text, based on what would have happened instead had the {x}.",
    5: "Based on the preceding text, rewrite the scenario to reflect what would have happened if the {x}.",
    7: "Rewrite the above passage to illustrate what would have occurred had the {x}.",
}
WORDS = ("correct", "wrong", "unknown")


def _example(core: int, variation: int, index: int) -> dict[str, object]:
    idx = (2, 5, 7)[index % 3]
    return {
        "example_id": f"{core}v{variation}",
        "coreset_id": core,
        "variation_id": variation,
        "query_idx": idx,
        "original": f"The ferry {core} left at {variation} because the tide was high. The market opened late.",
        "query": QUERIES[idx].format(x=f"tide been low on day {variation}"),
        "gold_answer": "The tide was low, so the ferry waited; the market opened on time.",
        "should_not_change": [f"Ferry {core} sailed that week."],
        "should_change": ["The ferry left early.", "The market opened late."],
        "model_outputs": {
            m: {"response": f"{m} rewrote {core}v{variation}.", "verdict": WORDS[(core + variation + n) % 3]}
            for n, m in enumerate(MODELS)
        },
    }


def site_file(path: Path) -> Path:
    """Six core sets, one per graph key, three variations each, each variation under one of the site's domains:
    every example under its core set's graph key and its own domain, as the site nests them."""
    by_graph: dict[str, list] = {key: [] for key in GRAPHS}
    by_domain: dict[str, list] = {domain: [] for domain in DOMAINS}
    for i, key in enumerate(GRAPHS):
        for variation in (1, 2, 3):
            example = _example(600 + i, variation, i + variation)
            by_graph[key].append(example)
            by_domain[DOMAINS[variation - 1]].append(example)
    document = {"examples_per_category": 10, "by_domain": by_domain, "by_graph": by_graph}
    path.write_text(json.dumps(document, indent=1))
    return path


def _totals(document: dict) -> dict[str, dict[str, Counter]]:
    """scope → group → Counter of (model, verdict), each example counted once per group, computed by hand."""
    totals: dict[str, dict[str, Counter]] = {"overall": {"all": Counter()}, "by_domain": {}, "by_graph": {}}
    seen = set()
    for scope in ("by_domain", "by_graph"):
        for group, examples in document[scope].items():
            for example in examples:
                for model, output in example["model_outputs"].items():
                    totals[scope].setdefault(group, Counter())[(model, output["verdict"])] += 1
                    if (example["example_id"], model) not in seen:
                        seen.add((example["example_id"], model))
                        totals["overall"]["all"][(model, output["verdict"])] += 1
    return totals


def test_site_files_round_trip_through_a_run(tmp_path: Path) -> None:
    original = site_file(tmp_path / "category-examples.json")
    assert run_cobe("import", str(original), "--from", "cobe-site", "--out", "site", cwd=tmp_path).returncode == 0
    r = run_cobe("export", "site", "out", "--to", "cobe-site", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Wrote eval-statistics.json, category-examples.json" in r.stdout

    before = json.loads(original.read_text())
    after = json.loads((tmp_path / "out" / "category-examples.json").read_text())
    assert after["examples_per_category"] == 10
    for scope in ("by_domain", "by_graph"):
        assert set(after[scope]) == set(before[scope]), scope  # the site's keys, Hydrid included
        for group, examples in before[scope].items():
            mine = {e["example_id"]: e for e in after[scope][group]}
            assert set(mine) == {e["example_id"] for e in examples}
            for example in examples:
                assert mine[example["example_id"]] == example  # every field and every answer and verdict

    statistics = json.loads((tmp_path / "out" / "eval-statistics.json").read_text())
    assert statistics["notes"]["accuracy"] == "correct / (correct + wrong)"
    assert statistics["notes"]["query_indices"] == [2, 5, 7]
    expected = _totals(before)
    for scope, groups in expected.items():
        written = {"all": statistics["overall"]} if scope == "overall" else statistics[scope]
        assert set(written) == set(groups), scope
        for group, counter in groups.items():
            for model in MODELS:
                c, w, u = (counter[(model, word)] for word in WORDS)
                assert written[group][model] == {"correct": c, "wrong": w, "unknown": u, "total": c + w + u,
                                                 "accuracy": round(c / (c + w), 4) if c + w else None}, (scope, group)  # fmt: skip

    # the export imported again is the same run: the same rows, statuses and verdicts
    r = run_cobe("import", "out/category-examples.json", "--from", "cobe-site", "--out", "again", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert _rows(tmp_path / "again") == _rows(tmp_path / "site")
    # and its totals read as the site's published ones
    r = run_cobe("report", "site", "--out", "rep", "--published", "out/eval-statistics.json", "--format", "csv",
                 cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr


def _rows(run: Path) -> list[dict]:
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    return sorted(({k: v for k, v in row.items() if k != "run_id"} for row in rows), key=json.dumps)


def test_an_export_never_replaces_a_site_file(tmp_path: Path) -> None:
    original = site_file(tmp_path / "category-examples.json")
    assert run_cobe("import", str(original), "--from", "cobe-site", "--out", "site", cwd=tmp_path).returncode == 0
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "eval-statistics.json").write_text("{}")
    r = run_cobe("export", "site", "out", "--to", "cobe-site", cwd=tmp_path)
    assert r.returncode == 2 and "already exists" in r.stderr
    assert (tmp_path / "out" / "eval-statistics.json").read_text() == "{}"
