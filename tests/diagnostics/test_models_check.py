"""`check`: each model's preflight with the settings a run would send, as respondent and as judge."""

from __future__ import annotations

import pytest

from cobe.core.errors import InputError
from cobe.diagnostics.models_check import check


def test_an_in_process_model_is_checked_in_each_role_with_nothing_to_send(tmp_path):
    results = check(["mock/echo"], run_dir=tmp_path)
    assert [(r.probe.role, r.ok, r.skipped) for r in results] == [("respondent", True, True), ("judge", True, True)]


def test_one_role_checks_that_role_alone(tmp_path):
    results = check(["mock/echo"], ["judge"], run_dir=tmp_path)
    assert [r.probe.role for r in results] == ["judge"]


@pytest.mark.parametrize(
    ("specs", "roles", "said"),
    [([], ("respondent",), "no model given"), (["mock/echo"], ("grader",), "--as grader: expected respondent")],
)
def test_bad_input_is_one_line(tmp_path, specs, roles, said):
    with pytest.raises(InputError, match=said):
        check(specs, roles, run_dir=tmp_path)
