"""`cobe report RUN… --against paper`: the run's models beside the paper's nine in Table 5 and Figs. 6-9 (and
Table 7 where the run holds tiers), under a block that says what is comparable; a run that is not comparable is
said to be in one line, marked on its bars, and never ranked among the paper's models (issue 44, item 2)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from support.cli import run_cobe
from support.results import make_rows, write_run

PAPER_RELEASE = "paper (2,000 scenarios × 3 phrasings)"


def _run(path: Path, model: str, judge: str, prompts: str, data: str, n: int, pass_rate: float, **kw) -> Path:
    rows = [
        row | {"judge": judge, "judge_prompts": prompts}
        for row in make_rows(model, n, pass_rate, run_id=path.name, **kw)
    ]
    write_run(path, rows)
    (path / "summary.json").write_text(json.dumps({"run_id": path.name, "data": data}))
    return path


def test_two_runs_beside_the_paper_one_comparable_one_not(tmp_path: Path) -> None:
    # judged as the paper judged, on 200 scenarios with the release's ids: the public 10 %
    _run(tmp_path / "ours", "acme/model-1", "anthropic/claude-opus-4-7", "paper", "release-10pc.json", 200, 0.45)
    # a mock judge on the starter set: another judge and another dataset
    _run(tmp_path / "smoke", "mock/scripted", "mock/judge-pass", "paper", "builtin:starter", 30, 0.9)
    r = run_cobe("report", "ours", "smoke", "--across-judges", "--across-data", "--against", "paper", "--out", "rep",
                 "--resamples", "20", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    rep = tmp_path / "rep"
    board = pd.read_csv(rep / "tables" / "paper_leaderboard.csv")
    paper = board[board["release"] == PAPER_RELEASE]
    assert len(paper) == 9 and paper["comparable"].all()
    assert paper.set_index("label").loc["GPT-5.4-Pro (paper)", "accuracy"] == 61.34
    ours = board.set_index("label").loc["acme/model-1"]
    smoke = board.set_index("label").loc["mock/scripted"]
    own = pd.read_csv(rep / "tables" / "leaderboard.csv").set_index("label")
    assert ours["accuracy"] == own.loc["acme/model-1", "accuracy"]  # the report's own figure, from cobe.score
    assert ours["comparable"] and pd.notna(ours["rank"])
    assert not smoke["comparable"] and pd.isna(smoke["rank"])  # never a silent rank
    assert "judged by mock/judge-pass" in smoke["why"] and "another dataset (builtin:starter" in smoke["why"]
    assert board["rank"].dropna().astype(int).tolist() == list(range(1, 11))

    markdown = (rep / "report.md").read_text()
    block = markdown[markdown.index("## Beside the paper") :]
    assert "the public 10 % of the release (200 of 2,000 scenarios)" in block
    assert "7,125 items a model" in block and "never set beside" in block
    for figure in ("Fig. 6", "Fig. 7", "Fig. 8", "Fig. 9"):
        assert f"({figure}), beside the paper's" in block

    svg = (rep / "figures" / "paper_graph_type.svg").read_text()
    # the smoke run's six graph-type bars each say it; the comparable run's and the paper's never
    assert svg.count("not comparable") == 6
    assert f"striped: {PAPER_RELEASE}" in " ".join(re.sub(r"<[^>]+>", " ", svg).split())
    html = (rep / "report.html").read_text()
    assert 'id="paper"' in html and 'data-figure="paper_graph_type"' in html
    assert html.count('data-figure="paper_') == 4


def test_table_7_beside_the_paper_where_the_run_holds_tiers(tmp_path: Path) -> None:
    run = tmp_path / "tiers"
    rows = []
    for tier, templates in ((1, ("A", "B", "C")), (3, ("H1",))):
        rows += [
            row | {"judge": "anthropic/claude-opus-4-7", "judge_prompts": "paper"}
            for row in make_rows("acme/model-1", 30, 0.5, run_id="tiers", templates=templates, tier=tier)
        ]
    write_run(run, rows)
    r = run_cobe("report", "tiers", "--against", "paper", "--out", "rep", "--format", "csv,md", "--resamples", "0",
                 cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    tiers = pd.read_csv(tmp_path / "rep" / "tables" / "paper_tiers.csv")
    assert set(tiers.loc[tiers["label"] == "acme/model-1", "tier"]) == {1, 3}
    assert tiers.set_index(["label", "tier"]).loc[("GPT-5.4-Pro (paper)", 4), "accuracy"] == 81.3
    assert "### Prompt tiers (Table 7), beside the paper's" in (tmp_path / "rep" / "report.md").read_text()


def test_a_file_that_is_not_the_papers_figures_is_one_line(tmp_path: Path) -> None:
    write_run(tmp_path / "run", make_rows("m", 6, 0.5))
    (tmp_path / "bad.json").write_text(json.dumps({"format": "cobe paper figures 1"}))
    r = run_cobe("report", "run", "--against", "bad.json", "--out", "rep", cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "bad.json" in r.stderr and not (tmp_path / "rep").exists()
