"""The paper's published figures ship with cobe, in cobe's shape, and equal the published numbers (issue 44,
item 1); an updated release is read from a file, and a file in neither shape is one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.report.paper import ENV, PAPER, bundled_path, load_paper
from support.cli import run_cobe

# a copy of the published numbers as first transcribed (the team's shared paper/published-figures.json)
PUBLISHED = Path(__file__).resolve().parents[1] / "fixtures" / "paper" / "published-figures.json"
ROMAN = {"i": "unchanged_reason", "ii": "background_rationalised", "iii": "stale_consequence",
         "iv": "physical_quantitative", "v": "spatial", "vi": "unsupported_connector", "vii": "history_rewritten"}  # fmt: skip


def test_the_bundled_figures_are_the_published_numbers() -> None:
    ours = load_paper(PAPER)
    theirs = json.loads(PUBLISHED.read_text())
    assert ours.source.arxiv == "2610.13057" and "vector figures" in ours.source.how  # its source named
    assert ours.models == theirs["models"] and len(ours.models) == 9
    for model, cell in theirs["table5_accuracy"]["values"].items():
        assert (ours.leaderboard[model].accuracy, ours.leaderboard[model].std) == (cell["accuracy"], cell["std"])
    assert ours.figures["error_types"]["E5"] == theirs["fig6_failure_rate_by_criterion"]["values"]["E5 latent"]
    assert ours.figures["graph_type"] == theirs["fig7_accuracy_by_graph_type"]["values"]
    assert ours.figures["phrasing"] == theirs["fig8_accuracy_by_phrasing"]["values"]
    for roman, tag in ROMAN.items():
        assert ours.figures["failure_mode"][tag] == theirs["fig9_accuracy_by_failure_mode"]["values"][roman]
    for model, tiers in theirs["table7_prompt_tiers"]["values"].items():
        assert {f"tier{k}": v for k, v in ours.tiers[model].items()} == tiers
    assert ours.agreement["cohen_kappa"] == 0.812 and ours.dataset["scenarios"] == 2000
    assert ours.domains_percent == theirs["table3_domains_percent"]
    assert ours.graph_types_percent == theirs["table4_graph_types_percent"]
    assert ours.frontier_mean == 58.05 and ours.release.judge == "Claude-Opus-4.7"
    # and read from the transcription itself, the same numbers in the same shape
    assert load_paper(PUBLISHED).model_dump(exclude={"source"}) == ours.model_dump(exclude={"source"})


def test_an_updated_release_is_read_from_a_file_or_the_variable(tmp_path: Path, monkeypatch) -> None:
    data = json.loads(bundled_path().read_text())
    data["leaderboard"]["Phi-4"]["accuracy"] = 45.5
    updated = tmp_path / "figures.json"
    updated.write_text(json.dumps(data))
    assert load_paper(updated).leaderboard["Phi-4"].accuracy == 45.5
    monkeypatch.setenv(ENV, str(updated))
    assert load_paper(PAPER).leaderboard["Phi-4"].accuracy == 45.5


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["figures"]["graph_type"].update({"spiral": {}}), "spiral not known"),
        (lambda d: d["leaderboard"].update({"Nobody-1B": {"accuracy": 1.0, "std": 0.0}}), "Nobody-1B not in models"),
        (lambda d: d.pop("release"), "release"),
    ],
)
def test_a_file_in_neither_shape_is_one_line(tmp_path: Path, change, field: str) -> None:
    data = json.loads(bundled_path().read_text())
    change(data)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(InputError, match=field):
        load_paper(bad)


def test_importing_the_figures_as_site_results_says_where_they_go(tmp_path: Path) -> None:
    r = run_cobe("import", str(PUBLISHED), "--from", "cobe-site", "--out", "x", cwd=tmp_path)
    assert r.returncode == 2
    assert "the paper's published figures" in r.stderr and "--against" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
