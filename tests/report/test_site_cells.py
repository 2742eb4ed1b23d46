"""On files shaped like the CoBe site's (one query per scenario, `unknown` verdicts, examples grouped by key), every
point estimate cobe gives is the site's correct / (correct + wrong): the headline and every cell of every breakdown,
the run's summary.json, `cobe.leaderboard()`, the exports' scoreboard, inspect's metric and `cobe compare`. The
expected figures are counted here from the file itself, never through cobe (issue 39, items 1 and 3)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from matplotlib.container import BarContainer

import cobe
from cobe.integrations.site_results import import_site_results
from cobe.integrations.source import load_run, scoreboard
from cobe.report.figures import FIGURES, grouped_bars
from cobe.report.load import load_runs
from cobe.report.tables import build_tables
from cobe.score.compare import paired_comparison
from support.cli import run_cobe
from support.site_shaped import site_shaped

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
PHRASING_OF_IDX = {2: "A", 5: "B", 7: "C"}
#: report table → the column that holds its group
TABLES = {"graph_type": "graph_type", "domain": "domain", "phrasing": "template"}


def _examples(nested: dict[str, Any]) -> dict[str, tuple[dict[str, Any], str | None, str | None]]:
    """Each example once, with its graph type (that of its core set, as the site groups them) and its domain."""
    graph_of_core: dict[int, str] = {}
    domain_of: dict[str, str] = {}
    found: dict[str, dict[str, Any]] = {}
    for key, examples in nested.get("by_graph", {}).items():
        for example in examples:
            graph_of_core[example["coreset_id"]] = key.removesuffix("-like").lower().replace("hydrid", "hybrid")
            found[example["example_id"]] = example
    for key, examples in nested.get("by_domain", {}).items():
        for example in examples:
            domain_of[example["example_id"]] = key
            found[example["example_id"]] = example
    return {
        eid: (e, graph_of_core.get(e["coreset_id"]), domain_of.get(eid, "unknown" if graph_of_core else None))
        for eid, e in found.items()
    }


def expected_cells(path: Path) -> dict[tuple[str, str, str | None], float]:
    """(table, model, group) → 100 · correct / (correct + wrong), counted from the file."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        nested = {"rows": {"": [json.loads(line) for line in text.splitlines()]}}
    else:
        nested = json.loads(text)
    examples = (
        _examples(nested) if "rows" not in nested else {e["example_id"]: (e, None, None) for e in nested["rows"][""]}
    )
    counts: dict[tuple[str, str, str | None], Counter[str]] = {}
    for example, graph, domain in examples.values():
        cells = {"leaderboard": None, "phrasing": PHRASING_OF_IDX[example["query_idx"]], "graph_type": graph}
        cells["domain"] = domain
        for model, output in example["model_outputs"].items():
            for table, group in cells.items():
                if table == "leaderboard" or group is not None:
                    counts.setdefault((table, model, group), Counter())[output["verdict"]] += 1
    return {
        cell: 100.0 * c["correct"] / (c["correct"] + c["wrong"])
        for cell, c in counts.items()
        if c["correct"] + c["wrong"]
    }


@pytest.fixture(scope="module")
def site_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("site")
    return {
        "site-shaped": site_shaped(folder / "site-shaped.json"),
        "category-examples": SITE / "category-examples.json",
        "results-flat": SITE / "results_flat.jsonl",
    }


@pytest.mark.parametrize("name", ["site-shaped", "category-examples", "results-flat"])
def test_every_cell_of_every_table_is_correct_over_correct_plus_wrong(
    site_files: dict[str, Path], tmp_path: Path, name: str
) -> None:
    source = site_files[name]
    run = import_site_results(source, tmp_path / "run").out
    tables = build_tables(load_runs([run]).frame, resamples=100)
    expected = expected_cells(source)
    seen = Counter(table for table, _, _ in expected)
    assert seen["leaderboard"] == 3 and (name == "results-flat" or seen["graph_type"] >= 12)
    for (table, model, group), rate in expected.items():
        frame = tables[table]
        if table == "leaderboard":
            row = frame.set_index("label").loc[model]
        else:
            row = frame.set_index(["label", TABLES[table]]).loc[(model, group)]
        assert row["accuracy"] == pytest.approx(rate, abs=1e-9), (table, model, group)
        assert row["ci_low"] <= row["accuracy"] + 1e-9 and row["accuracy"] <= row["ci_high"] + 1e-9
    for table in ("leaderboard", "graph_type", "domain"):
        if not tables[table].empty:  # every table says its rule, and gives no ± across phrasings as the paper's
            assert set(tables[table]["rule"]) == {"pooled"} and tables[table]["std"].isna().all()
    # the run's own summary.json and `cobe.leaderboard()` say the same
    summary = json.loads((run / "summary.json").read_text())
    board = cobe.leaderboard(run, resamples=20).set_index("label")
    for (table, model, _), rate in expected.items():
        if table == "leaderboard":
            assert summary["accuracy"][model]["accuracy"] == pytest.approx(rate)
            assert summary["accuracy"][model]["rule"] == "pooled" and summary["accuracy"][model]["std"] is None
            assert board.loc[model, "accuracy"] == pytest.approx(rate)


def test_the_figures_draw_the_sites_figure(site_files: dict[str, Path], tmp_path: Path) -> None:
    source = site_files["site-shaped"]
    tables = build_tables(load_runs([import_site_results(source, tmp_path / "run").out]).frame, resamples=50)
    expected = expected_cells(source)
    for spec in (s for s in FIGURES if s.name in ("graph_type", "domain")):
        table = tables[spec.table]
        axes = grouped_bars(table, spec, sorted(table["label"].unique())).axes[0]
        categories = [" ".join(tick.get_text().split()) for tick in axes.get_xticklabels()]  # names wrap to fit
        bars = [c for c in axes.containers if isinstance(c, BarContainer)]
        assert len(bars) == 3
        for model_bars in bars:
            for category, bar in zip(categories, model_bars):
                rate = expected[(spec.table, model_bars.get_label(), category)]
                assert bar.get_height() == pytest.approx(rate), (model_bars.get_label(), category)


def test_every_export_gives_the_sites_figure(site_files: dict[str, Path], tmp_path: Path) -> None:
    from inspect_ai.scorer import SampleScore, Score

    from cobe.integrations.inspect_task import per_phrasing_summary

    source = site_files["site-shaped"]
    run = import_site_results(source, tmp_path / "run").out
    expected = {model: rate for (table, model, _), rate in expected_cells(source).items() if table == "leaderboard"}
    exported = scoreboard(load_run(run), resamples=20)  # what EEE, HF and the run's summary exports carry
    models = json.loads((run / "summary.json").read_text())["models"]
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    for model, rate in expected.items():
        assert exported[model]["accuracy"] == pytest.approx(rate) and exported[model]["rule"] == "pooled"
        assert exported[model]["std"] is None
        assert models[model]["accuracy"] == pytest.approx(rate) and models[model]["rule"] == "pooled"
        scores = [
            SampleScore(
                score=Score(value=1.0 if r["status"] == "passed" else 0.0),
                sample_metadata={"template": r["template"], "tier": r["tier"], "scenario_id": r["scenario_id"]},
            )
            for r in rows
            if r["model"] == model and r["status"] in ("passed", "failed")
        ]
        accuracy, std = per_phrasing_summary(scores)
        assert accuracy == pytest.approx(rate) and math.isnan(std)


def _verdicts(path: Path) -> dict[str, dict[str, str]]:
    """model → example → its site verdict, read from the file."""
    out: dict[str, dict[str, str]] = {}
    for example, _, _ in _examples(json.loads(path.read_text(encoding="utf-8"))).values():
        for model, output in example["model_outputs"].items():
            out.setdefault(model, {})[example["example_id"]] = output["verdict"]
    return out


def test_compare_gives_the_paired_difference_it_names(site_files: dict[str, Path], tmp_path: Path) -> None:
    source = site_files["site-shaped"]
    run = import_site_results(source, tmp_path / "run").out
    frame = load_runs([run]).frame
    verdicts = _verdicts(source)
    a, b = verdicts["model-a"], verdicts["model-b"]
    shared = [e for e in a if a[e] != "unknown" and b[e] != "unknown"]
    a_only = sum(a[e] == "correct" and b[e] == "wrong" for e in shared)
    b_only = sum(a[e] == "wrong" and b[e] == "correct" for e in shared)
    result = paired_comparison(frame[frame["model"] == "model-a"], frame[frame["model"] == "model-b"], resamples=50)
    assert (result.items, result.a_only, result.b_only, result.rule) == (len(shared), a_only, b_only, "pooled")
    assert result.difference == pytest.approx(100.0 * (a_only - b_only) / len(shared), abs=1e-9)
    assert result.accuracy_a == pytest.approx(100.0 * sum(a[e] == "correct" for e in shared) / len(shared))
    done = run_cobe("compare", str(run), "--json", "--resamples", "20")
    assert done.returncode == 0, done.stderr
    pair = next(p for p in json.loads(done.stdout)["pairs"] if {p["label_a"], p["label_b"]} == {"model-a", "model-b"})
    sign = 1 if pair["label_a"] == "model-a" else -1
    assert pair["difference"] == pytest.approx(sign * 100.0 * (a_only - b_only) / len(shared), abs=1e-9)
