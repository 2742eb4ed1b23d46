"""A site-shaped file (no domain, one query per scenario, reworded queries) through every tier: tier 1 labels
each row by what its query says, tiers 2-4 phrase the change from whichever query there is, and the one
scenario no template can phrase is skipped, named and counted, never stopping the run."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from cobe.dataset import load_dataset
from cobe.report import build_report
from cobe.run import EvalConfig, evaluate

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "site_examples.json"
TEMPLATES = ["A", "B", "C", "other", "D", "E", "F", "G", "H1", "H2"]
UNPHRASABLE = "111v2"  # "Produce the version of the text that follows from a different choice."


def test_every_tier_runs_on_nine_in_ten_site_scenarios_and_counts_the_rest(tmp_path: Path) -> None:
    config = EvalConfig(
        data=str(SITE), models=["mock/echo"], judge="mock/judge-pass", templates=TEMPLATES, run_dir=tmp_path / "run"
    )
    summary = evaluate(config)
    rows = [json.loads(line) for line in (summary.run_dir / "results.jsonl").read_text().splitlines()]
    scenarios = {s.id: s for s in load_dataset(SITE)}
    # tier 1: each scenario's one query, under the phrasing it follows
    tier1 = [r for r in rows if r["tier"] == 1]
    assert sorted(r["scenario_id"] for r in tier1) == sorted(scenarios)
    assert all(r["template"] == scenarios[r["scenario_id"]].phrasings[0] for r in tier1)
    assert Counter(r["template"] for r in tier1) == {"A": 6, "B": 9, "C": 9}
    assert all(r["query"] == scenarios[r["scenario_id"]].queries[0] for r in tier1)
    # tiers 2-4: every template on at least 90% of the scenarios, the rest skipped with their ids
    for template in TEMPLATES[4:]:
        answered = {r["scenario_id"] for r in rows if r["template"] == template}
        assert len(answered) / len(scenarios) >= 0.9 and set(scenarios) - answered == {UNPHRASABLE}
    written = json.loads((summary.run_dir / "summary.json").read_text())
    assert written["skipped"] == {"A": 18, "B": 15, "C": 15, **dict.fromkeys(TEMPLATES[4:], 1)}
    assert written["unphrased"] == {t: [UNPHRASABLE] for t in TEMPLATES[4:]}
    named = [n for n in summary.notices if n.endswith(f": {UNPHRASABLE}")]
    assert len(named) == 6 and all("skipped 1 of 24 scenarios" in n for n in named)
    report = (summary.run_dir / "report.md").read_text()
    assert all(n in report for n in named)
    assert summary.summary["state"] == "complete"


def test_the_by_phrasing_table_counts_each_query_under_what_it_says(tmp_path: Path) -> None:
    run = evaluate(
        EvalConfig(data=str(SITE), models=["mock/echo"], judge="mock/judge-pass", run_dir=tmp_path / "run")
    ).run_dir
    phrasing = build_report([run], formats="md", resamples=0).tables["phrasing"]
    assert dict(zip(phrasing["template"], phrasing["n"])) == {"A": 6, "B": 9, "C": 9}
