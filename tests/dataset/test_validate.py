"""Validation reports every problem of a file at once, with the right severity."""

from __future__ import annotations

from dataset_helpers import FIXTURES, native_record, paper_record, write_json, write_jsonl

from cobe.dataset import validate, validate_paths
from cobe.dataset.queries import tier1_queries


def lines(problems) -> list[str]:
    return [f"{p.severity}: {p}" for p in problems]


def test_native_record_reports_every_bad_field_at_once(tmp_path) -> None:
    rec = native_record()
    rec.update(core_id="1", queries="one string", graph_type="spiral", failure_modes=["typo"], colour="red")
    path = write_jsonl(tmp_path / "n.jsonl", [rec])
    assert lines(validate_paths([path])) == [
        f"warning: {path}:1: 1v0: colour: unknown field, ignored",
        f"error: {path}:1: 1v0: core_id: expected a non-negative integer, got '1'",
        f"error: {path}:1: 1v0: queries: expected a list of strings",
        f"warning: {path}:1: 1v0: failure_modes: unknown failure mode 'typo'; ignored",
        f"warning: {path}:1: 1v0: graph_type: unknown graph type 'spiral' on 1 scenario (expected one of chain, "
        "collider, fork, diamond, correlated, hybrid, in any case, with or without -like); left unlabelled",
    ]


def test_id_must_have_the_official_form_and_agree(tmp_path) -> None:
    bad_form, disagree = native_record(), native_record(2, 0)
    bad_form["id"] = "abc"
    disagree["id"] = "2v5"
    path = write_jsonl(tmp_path / "n.jsonl", [bad_form, disagree])
    assert [p.message for p in validate_paths([path])] == [
        "id 'abc' is not of the form <core>v<variation>, e.g. 317v3",
        "id '2v5' disagrees with core_id=2 and variation=0",
    ]


def test_query_template_warnings(tmp_path, record) -> None:
    record["Query"] = [record["Query"][1], "Tell me another story.", record["Query"][2]]
    path = write_json(tmp_path / "p.json", [record])
    assert [(p.severity, p.field, p.message) for p in validate_paths([path])] == [
        ("warning", "Query[0]", "query follows phrasing B, expected A at position 1"),
        ("warning", "Query[1]", "query follows none of the phrasings A, B, C; evaluated as other"),
    ]


def test_sentence_in_both_criteria_is_a_warning_and_strict_makes_it_an_error(tmp_path, record) -> None:
    record["Evaluation criteria"] = ["Omar planned to take the ferry.", "Omar planned to take the ferry."]
    path = write_json(tmp_path / "p.json", [record])
    assert [p.severity for p in validate_paths([path])] == ["warning"]
    report = validate([path], strict=True)
    assert report.errors == 1 and report.summary() == "1 error, 0 warnings in 1 file / 1 scenario"


def test_criteria_must_be_a_pair(tmp_path, record) -> None:
    record["Evaluation criteria"] = ["only one"]
    path = write_json(tmp_path / "p.json", [record])
    assert lines(validate_paths([path])) == [
        f"error: {path}:2: 1v0: Evaluation criteria: expected a pair of strings [preserve, change]"
    ]


def test_site_scenario_with_two_queries_is_no_problem(tmp_path) -> None:
    rows = [
        {
            "example_id": "4v0",
            "coreset_id": 4,
            "variation_id": 0,
            "query_idx": i,
            "domain": "Work",
            "original": "Ana typed the report. She sent it at noon.",
            "query": paper_record()["Query"][i],
            "gold_answer": "",
            "should_not_change": ["Ana typed the report."],
            "should_change": ["She sent it at noon."],
        }
        for i in (0, 1)
    ]
    path = write_json(tmp_path / "s.json", rows)
    problems = validate_paths([path])
    assert lines(problems) == []  # the site publishes scenarios with fewer than three queries


def test_site_rows_that_disagree_are_an_error(tmp_path) -> None:
    rows = [
        {
            "coreset_id": 4,
            "variation_id": 0,
            "query_idx": i,
            "domain": "Work",
            "original": story,
            "query": paper_record()["Query"][i],
            "gold_answer": "",
            "should_not_change": ["a."],
            "should_change": ["b."],
        }
        for i, story in enumerate(["One story.", "Another story.", "One story."])
    ]
    path = write_json(tmp_path / "s.json", rows)
    assert [p.message for p in validate_paths([path])] == ["rows of this scenario disagree (line 2 vs line 17)"]


def test_graph_errors_in_a_native_file(tmp_path) -> None:
    rec = native_record()
    rec["graph_type"] = "fork"
    rec["graph"] = {
        "variables": ["alarm", "ferry", "plan"],
        "intervened": "alarm",
        "edges": [{"source": "alarm", "target": "ferry"}, {"source": "plan", "target": "ferry"}],
        "preserve_facts": [{"text": "Omar planned to take the ferry.", "variable": "ferry"}],
        "change_facts": [{"text": "Omar missed the ferry.", "variable": "ferry"}],
    }
    path = write_jsonl(tmp_path / "g.jsonl", [rec])
    assert [(p.severity, p.field) for p in validate_paths([path])] == [
        ("error", "graph.preserve_facts[0]"),
        ("warning", "change[1]"),
        ("warning", "graph_type"),
    ]


def test_ids_repeated_across_files(tmp_path) -> None:
    other = write_jsonl(tmp_path / "other.jsonl", [native_record(3, 0)])
    problems = validate_paths([FIXTURES / "paper.json", other])
    assert lines(problems) == [f"error: {other}:1: 3v0: id: duplicate id (already in {FIXTURES / 'paper.json'})"]


def umbrella_record(**flags: bool) -> dict:
    """A story whose preserved umbrella follows from the forecast yet is taken anyway, for the repair."""
    rec = native_record(4, 1)
    rec.update(
        story="The radio forecast heavy rain, so Lena took her umbrella to town. She also meant to have "
        "its bent spoke mended at the stall by the station.",
        preserve=["Lena took her umbrella to town.", "Lena's umbrella had a bent spoke."],
        change=["Lena expected heavy rain."],
        queries=tier1_queries("the radio had forecast sunshine"),
        intervention="the radio had forecast sunshine",
        graph_type="collider",
        graph={
            "variables": ["forecast", "expects_rain", "took_umbrella", "bent_spoke"],
            "intervened": "forecast",
            "edges": [
                {"source": "forecast", "target": "expects_rain"},
                {"source": "expects_rain", "target": "took_umbrella"},
                {"source": "bent_spoke", "target": "took_umbrella"},
            ],
            "preserve_facts": [
                {"text": "Lena took her umbrella to town.", "variable": "took_umbrella", **flags},
                {"text": "Lena's umbrella had a bent spoke.", "variable": "bent_spoke"},
            ],
            "change_facts": [{"text": "Lena expected heavy rain.", "variable": "expects_rain"}],
        },
    )
    return rec


def test_holds_despite_passes_strict_validation(tmp_path) -> None:
    from support.cli import run_cobe

    flagged = write_jsonl(tmp_path / "flagged.jsonl", [umbrella_record(holds_despite=True)])
    assert validate_paths([flagged], strict=True) == []
    done = run_cobe("data", "validate", "--strict", str(flagged))
    assert done.returncode == 0, done.stdout + done.stderr
    plain = write_jsonl(tmp_path / "plain.jsonl", [umbrella_record()])
    assert [(p.severity, p.field) for p in validate_paths([plain], strict=True)] == [
        ("error", "graph.preserve_facts[0]")
    ]
    assert run_cobe("data", "validate", "--strict", str(plain)).returncode == 1
