"""A call's answer as a Ray Dataset row keeps everything the driver records: prompt-cache and thinking tokens,
the settings as sent, and a settings refusal (so a refused setting stops a Ray run as it stops a local one)."""

from __future__ import annotations

import pytest

from cobe.models.base import GenerateConfig, Message, ModelOutput
from cobe.models.refusals import Refusal
from cobe.models.wire import (
    PACKET,
    answer_row,
    answer_rows,
    columns,
    packet,
    read_answer,
    read_request,
    request_row,
    rows,
)


def test_an_answer_row_keeps_cache_and_thinking_tokens_and_the_settings_sent():
    output = ModelOutput(
        text="Instead, the shop closed.",
        finish_reason="stop",
        input_tokens=1200,
        output_tokens=40,
        cached_input_tokens=1024,
        cache_write_tokens=0,
        reasoning_tokens=30,
        sent={"api": "chat", "max_completion_tokens": 512},
        latency_s=0.25,
        first_token_logprobs={"T": -0.1},
    )
    (row,) = rows(columns([answer_row(3, output, None, attempts=2)]))
    call_id, back, error, attempts, refused, rejected = read_answer(row)
    assert (call_id, error, attempts, refused, rejected) == (3, None, 2, False, None)
    assert back == output


@pytest.mark.parametrize(
    "refusal",
    # a refusal naming no setting (what a preflight probe on a Ray executor stops at) travels the same way
    [Refusal(400, "temperature", "Unsupported parameter: 'temperature'"), Refusal(400, "", "<html>")],
)
def test_a_settings_refusal_travels_back_with_its_error(refusal):
    (row,) = rows(columns([answer_row(0, None, "BadRequestError: 400", rejected=refusal)]))
    _, output, error, _, refused, rejected = read_answer(row)
    assert output is None and error == "BadRequestError: 400" and not refused and rejected == refusal
    assert rejected.named is bool(refusal.parameter)


def test_a_request_row_round_trips():
    messages = [Message(role="user", content="Rewrite it.")]
    config = GenerateConfig(temperature=0.0, max_tokens=5, reasoning_effort="low")
    assert read_request(request_row(7, messages, config)) == (7, messages, config)


def test_a_packet_carries_answers_whole_and_plain_rows_pass_as_they_are():
    """A worker's answers leave as one row (Ray Data cuts small-block batches row by row, one block each); an
    engine stage's rows come back unpacked."""
    answers = [answer_row(i, None, f"error {i}") for i in range(3)]
    packed = packet(answers)
    assert list(packed) == [PACKET] and len(packed[PACKET]) == 1
    # as Ray Data's numpy batch format hands two packets back in one batch
    batch = {PACKET: [packed[PACKET][0], packet(answers[:1])[PACKET][0]]}
    assert [read_answer(row)[0] for row in answer_rows(batch)] == [0, 1, 2, 0]
    assert [read_answer(row)[2] for row in answer_rows(columns(answers))] == ["error 0", "error 1", "error 2"]
