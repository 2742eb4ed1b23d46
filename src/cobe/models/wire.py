"""A call and its answer as rows of a Ray Dataset: what the driver sends a worker and what comes back.

Rows hold plain columns only (ints, floats, strings), so every Ray Data block format carries them
and nothing cobe-specific has to be pickled: messages and settings travel as JSON, a missing value
as an empty string or -1.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cobe.models.base import GenerateConfig, Message, ModelOutput
from cobe.models.refusals import Refusal

#: the row id column: the call's place in the driver's wave
ID = "cobe_id"
#: the one column of a worker's packet: the answers that finished together, as JSON
PACKET = "cobe_answers"


def request_row(call_id: int, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
    """One call as a row: its id in the wave, its messages and its settings."""
    return {
        ID: call_id,
        "messages": json.dumps([m.model_dump() for m in messages]),
        "settings": config.model_dump_json(),
    }


def read_request(row: Mapping[str, Any]) -> tuple[int, list[Message], GenerateConfig]:
    """(id, messages, settings) of a request row."""
    messages = [Message(**m) for m in json.loads(str(row["messages"]))]
    return int(row[ID]), messages, GenerateConfig.model_validate_json(str(row["settings"]))


def answer_row(
    call_id: int,
    output: ModelOutput | None,
    error: str | None,
    attempts: int = 1,
    refused: bool = False,
    rejected: Refusal | None = None,
) -> dict[str, Any]:
    """A call's answer as a row: the output's fields (prompt-cache and thinking tokens, the settings as sent,
    included), or the error line once the worker's retries are spent, with the settings refusal it was."""
    return {
        ID: call_id,
        "text": output.text if output is not None else "",
        "finish_reason": (output.finish_reason or "") if output is not None else "",
        "input_tokens": output.input_tokens if output is not None else 0,
        "output_tokens": output.output_tokens if output is not None else 0,
        "cached_input_tokens": output.cached_input_tokens if output is not None else 0,
        "cache_write_tokens": output.cache_write_tokens if output is not None else 0,
        "reasoning_tokens": output.reasoning_tokens if output is not None else 0,
        "sent": json.dumps(output.sent) if output is not None and output.sent is not None else "",
        "latency_s": float(output.latency_s) if output is not None else 0.0,
        "logprobs": json.dumps(output.first_token_logprobs) if output and output.first_token_logprobs else "",
        "error": error or "",
        "attempts": int(attempts),
        "refused": int(refused),
        "rejected": json.dumps([rejected.status, rejected.parameter, rejected.message]) if rejected else "",
    }


def read_answer(row: Mapping[str, Any]) -> tuple[int, ModelOutput | None, str | None, int, bool, Refusal | None]:
    """(id, output or None, error, attempts, refused, the settings refusal) of an answer row."""
    error = str(row["error"]) or None
    output = None
    if error is None:
        logprobs, sent = str(row["logprobs"]), str(row["sent"])
        output = ModelOutput(
            text=str(row["text"]),
            finish_reason=str(row["finish_reason"]) or None,
            input_tokens=int(row["input_tokens"]),
            output_tokens=int(row["output_tokens"]),
            cached_input_tokens=int(row["cached_input_tokens"]),
            cache_write_tokens=int(row["cache_write_tokens"]),
            reasoning_tokens=int(row["reasoning_tokens"]),
            sent=json.loads(sent) if sent else None,
            latency_s=float(row["latency_s"]),
            first_token_logprobs=json.loads(logprobs) if logprobs else None,
        )
    rejected = str(row["rejected"])
    refusal = Refusal(*json.loads(rejected)) if rejected else None
    return int(row[ID]), output, error, int(row["attempts"]), bool(int(row["refused"])), refusal


def packet(records: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Answer rows as a batch of one row (their JSON): Ray Data, told to make small blocks so that answers stream
    back, cuts a batch into blocks row by row, 40 ms each here; one row is one block whatever it holds."""
    return {PACKET: [json.dumps(records)]}


def answer_rows(batch: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The answer rows of a batch that came back: a worker's packets unpacked, an engine stage's rows as they are."""
    found = rows(batch)
    if found and PACKET in found[0]:
        return [record for row in found for record in json.loads(str(row[PACKET]))]
    return found


def rows(batch: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of a column batch (`{column: array}`, as Ray Data's numpy format hands it)."""
    columns = list(batch)
    if not columns:
        return []
    return [{name: batch[name][i] for name in columns} for i in range(len(batch[columns[0]]))]


def columns(records: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Rows as one column batch (`{column: list}`), the shape a map_batches function returns."""
    if not records:
        return {}
    return {name: [r[name] for r in records] for name in records[0]}
