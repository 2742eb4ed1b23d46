"""The pass rule exactly as the paper states it: one F fails a response whatever else is missing."""

from __future__ import annotations

import pytest

from cobe.judge.checks import row_status


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ({"connectors": "T", "preserve": "T", "change": "T"}, ("passed", True)),
        ({"connectors": "T", "preserve": "F", "change": "T"}, ("failed", False)),
        ({"connectors": None, "preserve": "T", "change": "F"}, ("failed", False)),  # F + unscored: failed
        ({"connectors": "F", "preserve": None, "change": None}, ("failed", False)),
        ({"preserve": "F"}, ("failed", False)),  # a check not even asked yet cannot rescue an F
        ({"connectors": None, "preserve": "T", "change": "T"}, ("unscored", None)),
        ({"connectors": "T", "preserve": "T"}, ("unscored", None)),
        ({}, ("unscored", None)),
    ],
)
def test_one_f_fails_and_unscored_needs_no_f_and_a_gap(verdicts, expected):
    assert row_status(verdicts, None) == expected


def test_a_respondent_error_is_neither_pass_nor_fail():
    assert row_status({"connectors": "F"}, "timeout") == ("error", None)
