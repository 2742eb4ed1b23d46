"""What the phrasings were asked of decides the rule: on the site's files each scenario is asked in one phrasing, so
A, B and C are different scenarios, the accuracy is pooled and no ± across phrasings is shown as the paper's."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pandas as pd

from cobe.score.accuracy import rows_frame
from cobe.score.rule import POOLED_NOTE, POOLED_WHAT, phrasing_overlap
from support.cli import run_cobe

TEMPLATES = {
    "A": "Rewrite the original text, based on what would have happened instead had the {x}.",
    "B": "Based on the preceding text, rewrite the scenario to reflect what would have happened if the {x}.",
    "C": "Rewrite the above passage to illustrate what would have occurred had the {x}.",
}
IDX = {"A": 2, "B": 5, "C": 7}


def _row(core: int, phrasing: str) -> dict[str, object]:
    return {
        "example_id": f"{core}v1",
        "coreset_id": core,
        "variation_id": 1,
        "query_idx": IDX[phrasing],
        "original": f"Porter {core} carried the crates because the lift was broken. The delivery ran late.",
        "query": TEMPLATES[phrasing].format(x="lift worked"),
        "gold_answer": "The lift worked, so the porter did not carry the crates and the delivery ran on time.",
        "should_not_change": [f"Porter {core} worked at the depot."],
        "should_change": ["The delivery ran late."],
    }


def site_file(path: Path, every_phrasing: bool = False) -> Path:
    """Six scenarios as the site publishes them: one query each, two per phrasing; or each in all three."""
    rows = [_row(400 + i, phrasing) for i in range(6) for phrasing in (TEMPLATES if every_phrasing else ["ABCABC"[i]])]
    path.write_text(json.dumps(rows, indent=1))
    return path


def test_phrasings_on_different_scenarios_are_told_apart() -> None:
    rows = [
        {"model": "m", "template": t, "scenario_id": s, "status": "passed"}
        for t, s in [("A", "1v1"), ("B", "2v1"), ("C", "3v1"), ("A", "4v1")]
    ]
    rows += [{"model": "n", "template": t, "scenario_id": s, "status": "failed"} for t in "ABC" for s in ("1v1", "2v1")]
    overlap = phrasing_overlap(rows_frame(rows)).set_index("model")
    assert overlap.loc["m", "std_over"] == "scenarios" and overlap.loc["m", "same_scenarios"] == 0.0
    assert overlap.loc["n", "std_over"] == "phrasings" and overlap.loc["n", "same_scenarios"] == 1.0
    one = phrasing_overlap(pd.DataFrame([{"model": "m", "template": "A", "scenario_id": "1v1"}]))
    assert one["std_over"].tolist() == ["phrasings"] and one["same_scenarios"].isna().all()


def test_every_table_of_a_site_run_says_it_pooled_and_shows_no_spread(tmp_path: Path) -> None:
    data = site_file(tmp_path / "site.json")
    args = ["eval", "-m", "mock/echo", "-j", "mock/judge-pass", "--data", str(data), "--run-dir", "run"]
    r = run_cobe(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (row,) = [line for line in r.stdout.splitlines() if line.strip().startswith("mock/echo")]
    assert "100.0 (pooled)" in row and "±" not in row and POOLED_NOTE + "." in r.stdout
    model = json.loads((tmp_path / "run" / "summary.json").read_text())["models"]["mock/echo"]
    assert model["std_over"] == "scenarios" and model["same_scenarios"] == 0.0
    assert model["rule"] == "pooled" and model["std"] is None and model["accuracy"] == 100.0
    run_md = (tmp_path / "run" / "report.md").read_text()
    assert "| 100.0 | (pooled) |" in run_md and POOLED_WHAT in run_md
    assert POOLED_WHAT in html.unescape((tmp_path / "run" / "report.html").read_text())
    r = run_cobe("report", "run", "--out", "rep", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "100.00 (pooled)" in r.stdout and "asked of different scenarios" in " ".join(r.stdout.split())
    board = (tmp_path / "rep" / "report.md").read_text()
    assert "100.00 (pooled)" in board and POOLED_WHAT in board


def test_phrasings_of_the_same_scenarios_keep_the_mean_and_its_spread(tmp_path: Path) -> None:
    data = site_file(tmp_path / "site.json", every_phrasing=True)
    r = run_cobe("eval", "-m", "mock/echo", "-j", "mock/judge-pass", "--data", str(data), "--run-dir", "run",
                 "--no-report", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    (row,) = [line for line in r.stdout.splitlines() if line.strip().startswith("mock/echo")]
    assert "100.0 ± 0.0" in row and "pooled" not in r.stdout
    model = json.loads((tmp_path / "run" / "summary.json").read_text())["models"]["mock/echo"]
    assert model["std_over"] == "phrasings" and model["same_scenarios"] == 1.0
    assert model["rule"] == "mean over phrasings" and model["std"] == 0.0
