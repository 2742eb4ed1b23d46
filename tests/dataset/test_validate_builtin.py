"""Bundled datasets are validated by name, like any file."""

from __future__ import annotations

from cobe.dataset import validate_paths


def test_builtin_starter_is_valid_under_strict():
    assert [str(p) for p in validate_paths(["builtin:starter"], strict=True)] == []


def test_unknown_builtin_is_one_problem_not_an_exception():
    problems = validate_paths(["builtin:nope"])
    assert len(problems) == 1 and "unknown bundled dataset 'builtin:nope'" in problems[0].message
