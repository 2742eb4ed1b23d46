"""Verdict parsing and P(T): clear answers are read, everything else is unscored with a reason."""

from __future__ import annotations

import math

import pytest

from cobe.judge import CHECKS, checks, p_true, parse_verdict

ACCEPTED = [
    ("T", "T"),
    ("F", "F"),
    ("  T  ", "T"),
    ("\nF\n", "F"),
    ("t", "T"),
    ("f.", "F"),
    ("T.", "T"),
    ("'T'", "T"),
    ('"F"', "F"),
    ("**T**", "T"),
    ("*F*", "F"),
    ("`T`", "T"),
    ("__F__", "F"),
    ("True", "T"),
    ("false.", "F"),
    ("TRUE", "T"),
    ("(F)", "F"),
    ("[T]", "T"),
    ("Answer: T", "T"),
    ("Verdict: F", "F"),
    ("answer: **f**", "F"),
    ("**Answer:** T", "T"),
    ("Final answer: F", "F"),
    ("The answer is T.", "T"),
    ("Verdict - F", "F"),
    ("T\n\nThe rewrite keeps every listed fact.", "T"),
    ("F\nBecause the bus", "F"),
    ("T\nT", "T"),
    # a model that reasons aloud ends with its letter: the last line is read where the first is no verdict
    ("The preserved fact is restated in other words.\n\nT", "T"),
    ("Checking each connector in turn.\nThe second one reverses the cause.\n**Answer: F**", "F"),
]

EMPTY = [None, ""]

UNCLEAR = [
    "maybe",
    "T or F",
    "T/F",
    "T F",
    "TF",
    "Yes",
    "No",
    "N/A",
    "The rewrite is fine overall, but the Timing of events changed.",
    "It is hard to say. T might apply.",
    "Answer:",
    "Tuesday",
    "Fals",
    "1",
    "<start_of_turn>model",
    "T (mostly)",
    "\u2588\u2588\u2588",
    "The rewrite is fine.\nIt keeps the facts.",  # neither first nor last line is a verdict
]


@pytest.mark.parametrize(("raw", "expected"), ACCEPTED)
def test_clear_verdicts_are_read(raw: str, expected: str) -> None:
    assert parse_verdict(raw) == (expected, None)


@pytest.mark.parametrize("raw", EMPTY)
def test_empty_output_is_unscored(raw: str | None) -> None:
    assert parse_verdict(raw) == (None, "empty output")


@pytest.mark.parametrize(("raw", "shown"), [("   ", "'   '"), ("\n\n", "'\\n\\n'")])
def test_a_reply_of_whitespace_is_empty_and_shows_which(raw: str, shown: str) -> None:
    assert parse_verdict(raw) == (None, f"empty output (only whitespace: {shown})")


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        # what a base model behind a chat server answered (issue 39): collapsed, both read as '<answer>'
        ("\n\n<answer>\n", "'\\n\\n<answer>\\n'"),
        ("\n\n<rewrite>\n\n\n\n", "'\\n\\n<rewrite>\\n\\n\\n\\n'"),
        ("tab\there", "'tab\\there'"),
    ],
)
def test_the_reason_shows_the_reply_escaped_on_one_line(raw: str, shown: str) -> None:
    _, reason = parse_verdict(raw)
    assert reason == f"no T/F verdict in: {shown}" and "\n" not in reason


@pytest.mark.parametrize("raw", UNCLEAR)
def test_unclear_output_is_unscored_with_the_text(raw: str) -> None:
    verdict, reason = parse_verdict(raw)
    assert verdict is None
    assert reason is not None and reason.startswith("no T/F verdict in: ")


def test_reason_quotes_the_raw_text() -> None:
    assert parse_verdict("maybe") == (None, "no T/F verdict in: 'maybe'")


@pytest.mark.parametrize("raw", ["T\nF", "F\n\nAnswer: T", "**T**\nFalse", "Reasoning first.\nF\nT"])
def test_both_letters_as_answers_conflict(raw: str) -> None:
    verdict, reason = parse_verdict(raw)
    assert verdict is None and reason is not None and reason.startswith("conflicting T/F verdicts in: ")


def test_long_text_is_truncated_in_the_reason() -> None:
    raw = "The rewrite " + "keeps the facts and " * 20 + "so T."
    _, reason = parse_verdict(raw)
    assert reason is not None
    quoted = reason.removeprefix("no T/F verdict in: ")
    assert len(quoted) <= 60 and quoted.endswith("...'") and quoted.startswith("'The rewrite keeps")


def test_a_long_reply_is_cut_between_escapes_never_inside_one() -> None:
    raw = "x" * 54 + "\n\n\n" + "y" * 40
    _, reason = parse_verdict(raw)
    quoted = (reason or "").removeprefix("no T/F verdict in: ")
    assert len(quoted) <= 60 and quoted.endswith("...'")
    assert quoted[:-4].endswith(("\\n", "x")), quoted  # never a lone backslash before the cut


def test_the_check_list_has_one_home() -> None:
    assert CHECKS is checks.CHECKS == ("connectors", "preserve", "change")


@pytest.mark.parametrize(
    ("logprobs", "expected"),
    [
        ({"T": math.log(0.6), "F": math.log(0.2), "The": math.log(0.2)}, 0.75),
        ({"T": math.log(0.3), " T": math.log(0.3), "▁F": math.log(0.2), "ĠFalse": math.log(0.2)}, 0.6),
        ({"true": math.log(0.5), "x": math.log(0.5)}, 1.0),
        ({"f": -0.1}, 0.0),
        ({"True": 0.0, "False": 0.0}, 0.5),
    ],
)
def test_p_true_normalises_over_t_and_f(logprobs: dict[str, float], expected: float) -> None:
    assert p_true(logprobs) == pytest.approx(expected)


@pytest.mark.parametrize("logprobs", [None, {}, {"The": -0.1, "Yes": -2.0}, {"T": float("-inf"), "F": float("-inf")}])
def test_p_true_is_none_without_t_or_f(logprobs: dict[str, float] | None) -> None:
    assert p_true(logprobs) is None
