"""The project site's files as it publishes them: no domain, one query per scenario, query_idx 2/5/7,
reworded queries, examples grouped by domain and by graph type (fixtures: our own stories in those shapes)."""

from __future__ import annotations

import json
from pathlib import Path

from dataset_helpers import native_record, paper_record, write_json

from cobe.dataset import load_dataset, read_file, write_dataset
from cobe.dataset.schema import UNKNOWN_DOMAIN

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
#: what each fixture query says: its phrasing (by its words, or by query_idx where the words are silent)
LABELS = {
    **dict.fromkeys(["101v1", "103v2", "106v11", "109v3"], "A"),
    **dict.fromkeys(["101v2", "102v4", "102v17", "105v1", "107v1", "108v7", "109v8", "110v5"], "B"),
    **dict.fromkeys(["101v3", "102v9", "103v1", "104v5", "106v2", "108v2", "110v1", "111v9"], "C"),
    # reworded so that the words name no phrasing: query_idx 2, 5, 7 decide
    "107v4": "A",  # "Produce the version of the text in which …", query_idx 2
    "111v2": "A",  # "… that follows from a different choice.", query_idx 2
    "104v3": "B",  # "Revise the story as if …", query_idx 5
    "105v6": "C",  # "Rewrite the passage with one change: …", query_idx 7
}
BY_IDX = {"107v4", "111v2", "104v3", "105v6"}


def test_the_sites_rows_load_without_errors_and_one_warning_says_no_domain() -> None:
    result = read_file(SITE / "site_examples.json")
    assert result.shape == "site-json" and not result.errors and len(result.scenarios) == 24
    domain = [p for p in result.problems if p.field == "domain"]
    assert [(p.severity, p.line, p.message) for p in domain] == [
        ("warning", 2, f"24 scenarios name no domain; they are grouped as {UNKNOWN_DOMAIN!r}")
    ]
    assert {s.domain for s in result.scenarios} == {UNKNOWN_DOMAIN}
    assert all(len(s.queries) == 1 for s in result.scenarios)
    by_numbering = {p.id for p in result.problems if "labelled" in p.message and "by its query_idx" in p.message}
    assert by_numbering == BY_IDX and len(result.problems) == 1 + len(BY_IDX)


def test_each_query_is_labelled_by_what_it_says_then_by_query_idx() -> None:
    scenarios = load_dataset(SITE / "site_examples.json").scenarios
    assert {s.id: s.phrasings[0] for s in scenarios} == LABELS
    # only the labels the words cannot give are stored, so every other scenario's JSON is as before
    assert {s.id for s in scenarios if s.query_phrasings} == BY_IDX
    plain = next(s for s in scenarios if s.id == "101v2")
    assert "query_phrasings" not in json.loads(plain.model_dump_json())


def test_labels_survive_conversion_to_native_and_back_to_site_rows(tmp_path) -> None:
    scenarios = load_dataset(SITE / "site_examples.json").scenarios
    native = read_file(write_dataset(scenarios, tmp_path / "n.jsonl", to="native"))
    assert not native.errors and native.scenarios == scenarios
    site = write_dataset(scenarios, tmp_path / "s.json", to="site")
    rows = json.loads(site.read_text(encoding="utf-8"))
    assert {r["example_id"]: r["query_idx"] for r in rows}["104v3"] == 5  # B, numbered as the site numbers it
    assert read_file(site).scenarios == scenarios


def test_category_examples_read_each_example_once_with_its_domain_and_graph_type() -> None:
    result = read_file(SITE / "category-examples.json")
    assert result.shape == "site-categories" and not result.errors
    found = {s.id: (s.domain, s.graph_type.value if s.graph_type else None) for s in result.scenarios}
    assert len(found) == 12
    assert found["101v1"] == ("Food and cooking", "chain")  # listed under both groupings: read once
    assert found["104v3"] == ("Work", "chain")
    assert found["102v4"] == (UNKNOWN_DOMAIN, "fork")  # under by_graph only
    # under by_domain only: its core set's graph type (102v4 is under Fork), a domain of its own
    assert found["102v9"] == ("Travel", "fork")
    assert [p.message for p in result.problems if p.field == "domain"] == [
        f"3 scenarios name no domain; they are grouped as {UNKNOWN_DOMAIN!r}"
    ]


def test_domain_is_optional_in_every_shape(tmp_path) -> None:
    paper = [paper_record(1, 0), paper_record(2, 0)]
    for record in paper:
        del record["Domain"]
    native = native_record()
    del native["domain"]
    for path in (write_json(tmp_path / "p.json", paper), write_json(tmp_path / "n.json", [native])):
        result = read_file(path)
        assert not result.errors and {s.domain for s in result.scenarios} == {UNKNOWN_DOMAIN}
        assert len([p for p in result.problems if p.field == "domain" and p.severity == "warning"]) == 1


def test_a_query_neither_its_words_nor_its_numbering_name_is_labelled_other(tmp_path) -> None:
    row = {
        "example_id": "9v1",
        "coreset_id": 9,
        "variation_id": 1,
        "original": "Bo fed the cat at seven because he left for work at eight.",
        "query": "Revise the story as if Bo had worked from home that day.",
        "gold_answer": "",
        "should_not_change": ["Bo had a cat."],
        "should_change": ["Bo left for work at eight."],
    }
    result = read_file(write_json(tmp_path / "s.json", [row]))  # no query_idx: nothing numbers the query
    (scenario,) = result.scenarios
    assert scenario.phrasings == ["other"] and scenario.query_in("other") == row["query"]
    assert any("evaluated as other" in p.message for p in result.problems)
