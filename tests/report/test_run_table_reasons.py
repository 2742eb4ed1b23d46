"""The end of a run names the commonest reasons rows went unscored, showing what came back (issue 39, item 9)."""

from __future__ import annotations

import pandas as pd

from cobe.cli.run_end import footer_lines
from cobe.judge.parse import parse_verdict
from cobe.report.run_table import RunTable, top_reasons


def _unscored(reply: str) -> dict[str, object]:
    _, reason = parse_verdict(reply)
    return {"status": "unscored", "unscored": {"connectors": reason, "preserve": None, "change": None}}


def test_a_reason_shows_the_reply_that_came_back_not_an_ellipsis() -> None:
    rows = [_unscored("\n\n<answer>\n")] * 3 + [_unscored("\n\n<rewrite>\n\n\n\n")]
    (reason,) = top_reasons(pd.DataFrame(rows))
    # one kind of cause, counted once, shown by the reply most rows gave: escaped, on one line
    assert reason == {
        "status": "unscored",
        "reason": "no T/F verdict in: '\\n\\n<answer>\\n'",
        "count": 4,
        "others": 1,
    }


def test_the_footer_says_how_many_rows_said_something_else() -> None:
    rows = [_unscored("\n\n<answer>\n")] * 2 + [_unscored("maybe")]
    table = RunTable(
        run_dir="r",
        state="complete",
        judge=None,
        judge_prompts=None,
        models=[],
        reasons=top_reasons(pd.DataFrame(rows)),
        calls={},
        retries=0,
        rate_limited=0,
        retry_wait_s=0.0,
        cost_usd=0.0,
        wall_s=1.0,
        items=3,
        unfinished=0,
    )
    lines = footer_lines(table)
    shown = lines[lines.index("Top reasons for unscored and errored rows:") + 1]
    assert (
        " ".join(shown.split()) == "3 unscored no T/F verdict in: '\\n\\n<answer>\\n' (1 of them said something else)"
    )


def test_errors_are_shown_by_their_commonest_wording_too() -> None:
    rows = [
        {"status": "error", "response_error": "APITimeoutError: Request timed out."},
        {"status": "error", "response_error": "APITimeoutError: Request timed out."},
        {"status": "passed"},
    ]
    assert top_reasons(pd.DataFrame(rows)) == [
        {"status": "error", "reason": "APITimeoutError: Request timed out.", "count": 2, "others": 0}
    ]
