"""Statistics (Tables 2–4) and reproducible sampling."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from dataset_helpers import FIXTURES

from cobe.core.errors import InputError
from cobe.dataset import dataset_stats, read_file, sample_scenarios, stats
from cobe.dataset.schema import UNKNOWN_DOMAIN
from cobe.dataset.stats import APPROX_NAME, approx_clauses
from support.cli import run_cobe

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Maya ran.", (1, 1)),
        ("Maya ran because it rained, and she got wet.", (1, 3)),
        ("He bought bread and butter. They left.", (2, 2)),  # a noun pair is not a clause
        ("It rained; the match stopped and they went home.", (1, 3)),
    ],
)
def test_approximate_clause_count(text: str, expected: tuple[int, int]) -> None:
    assert approx_clauses(text) == expected


def test_dataset_stats_tables() -> None:
    stats = dataset_stats(read_file(FIXTURES / "native.jsonl").scenarios, method="approx")
    assert stats["scenarios"] == 4 and stats["core_examples"] == 3 and stats["domains"] == 3
    assert stats["avg_sentences"] == 2.0 and stats["avg_words"] == 19.5
    assert stats["clause_method"] == APPROX_NAME
    assert stats["domain_shares"] == {"Daily life": 50.0, "Leisure": 25.0, "Work": 25.0}
    assert stats["graph_type_shares"] == {"unlabelled": 75.0, "collider": 25.0}


def test_clauses_per_sentence_is_the_mean_of_per_scenario_ratios() -> None:
    """Table 2's definition: the two ways differ whenever stories differ in length."""
    base = read_file(FIXTURES / "native.jsonl").scenarios[0]
    one = base.model_copy(update={"id": "1v1", "story": "Maya ran because it rained, and she got wet."})  # 1 s, 3 c
    four = base.model_copy(update={"id": "2v1", "story": "Ada sang. Ben ate. Cai slept. Dot read."})  # 4 s, 4 c
    assert [approx_clauses(s.story) for s in (one, four)] == [(1, 3), (4, 4)]
    table = dataset_stats([one, four], method="approx")
    assert (table["avg_sentences"], table["avg_clauses"]) == (2.5, 3.5)
    # mean of ratios (3/1 + 4/4) / 2 = 2.0; the ratio of means 3.5 / 2.5 = 1.4 would be wrong
    assert table["clauses_per_sentence"] == 2.0


def test_spacy_method_fails_clearly_without_spacy_and_auto_falls_back(monkeypatch) -> None:
    monkeypatch.setattr(stats, "_spacy_counter", lambda: None)
    with pytest.raises(InputError, match="--method spacy needs spaCy"):
        dataset_stats([], method="spacy")
    assert dataset_stats([], method="auto")["clause_method"] == APPROX_NAME


def _many() -> list:
    base = read_file(FIXTURES / "native.jsonl").scenarios[0]
    return [
        base.model_copy(update={"id": f"{c}v{v}", "core_id": c, "variation": v}) for c in range(1, 21) for v in range(3)
    ]


def test_sample_is_seeded_and_ignores_input_order() -> None:
    items = _many()
    shuffled = items[:]
    random.Random(5).shuffle(shuffled)
    first = [s.id for s in sample_scenarios(items, 10, seed=0)]
    assert first == [s.id for s in sample_scenarios(shuffled, 10, seed=0)]
    assert len(first) == 10 and first != [s.id for s in sample_scenarios(items, 10, seed=1)]


def test_sample_by_core_keeps_variations_together() -> None:
    chosen = sample_scenarios(_many(), 10, seed=3, by_core=True)
    cores = {s.core_id for s in chosen}
    assert len(chosen) == 12 and len(cores) == 4  # 4 whole cores of 3 reach the 10 asked for
    assert sorted(s.id for s in chosen) == sorted(f"{c}v{v}" for c in cores for v in range(3))


def test_sample_larger_than_the_data_returns_everything_and_rejects_zero() -> None:
    assert len(sample_scenarios(_many(), 500, seed=0)) == 60
    with pytest.raises(InputError):
        sample_scenarios(_many(), 0, seed=0)


def test_dependency_parse_rule_counts_clause_heads_only():
    from types import SimpleNamespace as Tok

    from cobe.dataset.stats import clauses_in_parse

    # "Sam stayed home because it rained, and he read a book that he liked."
    tokens = [
        Tok(dep_="nsubj", pos_="PROPN"),
        Tok(dep_="ROOT", pos_="VERB"),
        Tok(dep_="advmod", pos_="ADV"),
        Tok(dep_="mark", pos_="SCONJ"),
        Tok(dep_="nsubj", pos_="PRON"),
        Tok(dep_="advcl", pos_="VERB"),
        Tok(dep_="cc", pos_="CCONJ"),
        Tok(dep_="nsubj", pos_="PRON"),
        Tok(dep_="conj", pos_="VERB"),
        Tok(dep_="det", pos_="DET"),
        Tok(dep_="dobj", pos_="NOUN"),
        Tok(dep_="relcl", pos_="VERB"),
        Tok(dep_="conj", pos_="NOUN"),
    ]  # a coordinated noun is not a clause

    class Doc(list):
        sents = [object()]

    assert clauses_in_parse(Doc(tokens)) == (1, 4)


def test_a_sample_is_the_one_earlier_versions_drew() -> None:
    """Pinned draws: a run sampled with --sample/--seed keeps drawing the same scenarios across releases."""
    shuffled = _many()
    random.Random(5).shuffle(shuffled)
    assert [s.id for s in sample_scenarios(shuffled, 10, seed=0)] == (
        ["1v2", "6v1", "9v0", "9v1", "9v2", "11v1", "11v2", "17v0", "19v0", "19v2"]
    )
    assert [s.id for s in sample_scenarios(shuffled, 10, seed=3, by_core=True)] == (
        ["4v0", "4v1", "4v2", "6v0", "6v1", "6v2", "7v0", "7v1", "7v2", "9v0", "9v1", "9v2"]
    )
    assert [s.id for s in sample_scenarios(shuffled, 7, seed=42)] == ["1v1", "3v1", "5v2", "6v0", "6v2", "14v1", "16v2"]


def test_scenarios_without_a_domain_are_unlabelled_not_one_more_domain() -> None:
    """The site's rows mostly name no domain: they are counted on their own line, never as domain 'unknown'."""
    labelled = read_file(FIXTURES / "native.jsonl").scenarios
    bare = [
        labelled[0].model_copy(update={"id": f"9{i}v1", "core_id": 90 + i, "domain": UNKNOWN_DOMAIN}) for i in range(4)
    ]
    stats = dataset_stats(labelled + bare, method="approx")
    assert stats["domains"] == 3 and UNKNOWN_DOMAIN not in stats["domain_shares"]
    assert stats["unlabelled_domain"] == 4 and stats["unlabelled_domain_share"] == 50.0
    assert sum(stats["domain_shares"].values()) + stats["unlabelled_domain_share"] == 100.0


def test_data_stats_prints_unlabelled_as_its_own_line() -> None:
    done = run_cobe("data", "stats", str(SITE / "results_flat.jsonl"))
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if "│" in line]
    assert any("unlabelled: 12 scenarios" in line and "100.0" in line for line in rows)
    assert not any(line.split("│")[1].strip() == "unknown" for line in rows)
    assert json.loads(run_cobe("data", "stats", str(SITE / "results_flat.jsonl"), "--json").stdout)["domains"] == 0
