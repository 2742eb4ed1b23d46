"""A Responses API reply that holds no answer (issue 30, item 8): status `failed` with its `error`, or `completed`
with `output: []`, is an errored row with the reason (never an empty answer that a judge scores), and a failure
the service's own (`server_error`) is asked again.

Against the contract fake: an `openai/` -pro model (served only by the Responses API) judged by a pass-all judge,
which would pass an empty answer if one reached it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cobe.core.errors import RunIncomplete
from cobe.models.openai_responses import FailedReply, read_response
from support.cli import assert_one_line_error, run_cobe
from support.openai_server import ThreadedServer, contract_env
from support.run_data import write_dataset

MODEL = "openai/gpt-5.4-pro"


def test_a_failed_or_empty_reply_is_an_errored_row_and_a_server_error_is_asked_again(
    strict_server: ThreadedServer, tmp_path: Path
) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 1)  # templates A, B, C: three respondent calls
    run_dir = tmp_path / "run"
    # the three first Responses requests: one failed for its prompt, one empty, one failed by the service
    strict_server.control(failed_responses=["failed", "empty", "server_error"])
    args = (
        *("eval", "--model", MODEL, "--judge", "mock/judge-pass", "--data", str(data), "--run-dir", str(run_dir)),
        *("--max-retries", "1", "--no-report", "--no-preflight"),
    )
    result = run_cobe(*args, env=contract_env(strict_server))

    assert result.returncode == RunIncomplete.exit_code, result.stderr
    assert_one_line_error(result, "2 of 3 items unfinished")
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    by_status = sorted(row["status"] for row in rows)
    assert by_status == ["error", "error", "passed"], rows
    errors = sorted(row["response_error"] for row in rows if row["status"] == "error")
    assert errors == [
        "FailedReply: the response failed (invalid_prompt: Invalid prompt: the prompt was flagged.)",
        "FailedReply: the response holds no message (status completed, 0 output items)",
    ]
    for row in rows:
        if row["status"] == "error":  # no judge saw it: no verdict, no pass
            assert row["passed"] is None and not any(row["verdicts"].values()) and not row["response"]
    stats = strict_server.stats()
    # three first requests and the server_error's one retry; a non-transient failure is not asked again
    assert stats["endpoints"] == {"responses": 4} and stats["refused"] == 0

    # the same command asks the two errored items again, and a reply with an answer finishes the run
    again = run_cobe(*args, env=contract_env(strict_server))
    assert again.returncode == 0, again.stderr
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert [row["status"] for row in rows] == ["passed"] * 3
    assert strict_server.stats()["endpoints"] == {"responses": 6}


@pytest.mark.parametrize(
    ("body", "transient"),
    [
        ({"status": "failed", "error": {"code": "invalid_prompt", "message": "flagged"}, "output": []}, False),
        ({"status": "failed", "error": {"code": "server_error", "message": "try again"}, "output": []}, True),
        ({"status": "failed", "error": None}, False),
        ({"status": "completed", "output": []}, False),
        ({"status": "completed", "output": [{"type": "reasoning", "summary": []}]}, False),
        ({"output": []}, False),
    ],
)
def test_a_reply_without_a_message_raises_failed_reply(body: dict, transient: bool) -> None:
    with pytest.raises(FailedReply) as raised:
        read_response(body)
    assert raised.value.transient is transient


def test_an_incomplete_reply_without_text_is_still_cut_off_not_failed() -> None:
    cut = read_response({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": []})
    assert cut["text"] == "" and cut["finish_reason"] == "length"
