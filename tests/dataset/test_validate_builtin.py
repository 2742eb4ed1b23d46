"""Bundled datasets are validated by name, like any file."""

from __future__ import annotations

from cobe.dataset import validate_paths


def test_builtin_starter_is_valid_under_strict():
    assert [str(p) for p in validate_paths(["builtin:starter"], strict=True)] == []


def test_unknown_builtin_is_one_problem_not_an_exception():
    problems = validate_paths(["builtin:nope"])
    assert len(problems) == 1 and "unknown bundled dataset 'builtin:nope'" in problems[0].message


def test_one_record_is_checked_like_a_line_of_a_file():
    from cobe.dataset import load_dataset, validate_record

    good = load_dataset("builtin:starter").scenarios[0].model_dump(mode="json")
    scenario, problems = validate_record(good)
    assert scenario is not None and problems == []
    bad = dict(good, queries=good["queries"][:2], id="12x")
    scenario, problems = validate_record(bad, label="form")
    assert scenario is None
    assert {p.field for p in problems} >= {"id", "queries"} and all(str(p).startswith("form: ") for p in problems)
