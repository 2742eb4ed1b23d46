"""Anthropic Message Batches for the fake server: create, retrieve, list, and JSONL results.

Requests are answered with the server's /v1/messages reply logic when the batch is created (one the strict
contract refuses errors); the
faults `batch_polls` (in_progress answers before it ends), `batch_status` (completed; failed →
every entry errored; expired; cancelled → canceled) and `batch_errored` (the first k entries of
each batch error) shape what a batch reports.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# batch_status fault → the result type every entry of an ended batch gets
ENTRY_STATUS = {"failed": "errored", "expired": "expired", "cancelled": "canceled"}
PREFIX = "/v1/messages/batches"


def _error(status: int, message: str) -> tuple[int, bytes, dict[str, str]]:
    kind = "not_found_error" if status == 404 else "invalid_request_error"
    return status, json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode(), {}


class AnthropicBatches:
    """Mixed into FakeLLMServer: uses its reply(), faults, stats and id counter."""

    faults: Any
    stats: Any
    _ids: Any
    message_batches: dict[str, dict[str, Any]]
    respond: Any  # (kind, path, request) → (status, body, model, judged), as /v1/messages answers

    def message_batch_route(self, method: str, path: str, body: bytes) -> tuple[int, bytes, dict[str, str]]:
        """POST/GET /v1/messages/batches, GET /v1/messages/batches/{id}[/results]."""
        rest = path[len(PREFIX) :].strip("/").split("/") if path != PREFIX else []
        if method == "POST" and not rest:
            return self._create_message_batch(json.loads(body))
        if method == "GET" and not rest:  # the list, newest first, in one page; listing is not a poll
            data = [self._message_batch_object(b) for b in reversed(self.message_batches.values())]
            page = {
                "data": data,
                "has_more": False,
                "first_id": data[0]["id"] if data else None,
                "last_id": data[-1]["id"] if data else None,
            }
            return 200, json.dumps(page).encode(), {}
        batch = self.message_batches.get(rest[0]) if rest else None
        if method != "GET" or batch is None or len(rest) > 2 or rest[1:] not in ([], ["results"]):
            return _error(404, f"no route {method} {path}")
        if not rest[1:]:
            batch["polls"] += 1
            self.stats.batch_polls += 1
            return 200, json.dumps(self._message_batch_object(batch)).encode(), {}
        if not self._ended(batch):
            return _error(400, f"batch {batch['id']} is still in progress")
        lines = "".join(
            json.dumps({"custom_id": cid, "result": self._entry(batch, result)}) + "\n"
            for cid, result in batch["results"]
        )
        return 200, lines.encode(), {}

    def _create_message_batch(self, request: dict) -> tuple[int, bytes, dict[str, str]]:
        requests = request.get("requests") or []
        ids = [r.get("custom_id", "") for r in requests]
        if not requests or len(set(ids)) != len(ids) or not all(CUSTOM_ID.match(i) for i in ids):
            return _error(400, "requests need unique custom_ids matching ^[a-zA-Z0-9_-]{1,64}$")
        results = []
        for i, entry in enumerate(requests):
            if i < self.faults.batch_errored:
                results.append((entry["custom_id"], None))
                continue
            status, payload, _, _ = self.respond("anthropic", "/v1/messages", entry["params"])
            self.stats.batch_lines += 1
            results.append((entry["custom_id"], json.loads(payload) if status == 200 else None))
        batch_id = f"msgbatch_{next(self._ids)}"
        self.message_batches[batch_id] = {
            "id": batch_id,
            "results": results,
            "polls": 0,
            "created_at": datetime.now(UTC),
            "params": [r["params"] for r in requests],
        }  # for tests to inspect
        self.stats.batches += 1
        return 200, json.dumps(self._message_batch_object(self.message_batches[batch_id])).encode(), {}

    def _ended(self, batch: dict[str, Any]) -> bool:
        return batch["polls"] > self.faults.batch_polls

    def _entry(self, batch: dict[str, Any], message: dict | None) -> dict[str, Any]:
        kind = ENTRY_STATUS.get(self.faults.batch_status, "succeeded" if message else "errored")
        if kind == "succeeded":
            return {"type": "succeeded", "message": message}
        if kind == "errored":
            return {"type": "errored", "error": {"type": "error", "error": {"type": "api_error", "message": "failed"}}}
        return {"type": kind}

    def _message_batch_object(self, batch: dict[str, Any]) -> dict[str, Any]:
        ended, created = self._ended(batch), batch["created_at"]
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        for _, message in batch["results"]:
            counts[self._entry(batch, message)["type"] if ended else "processing"] += 1
        stamp = datetime.now(UTC).isoformat() if ended else None
        return {
            "id": batch["id"],
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts,
            "created_at": created.isoformat(),
            "ended_at": stamp,
            "expires_at": (created + timedelta(days=1)).isoformat(),
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{PREFIX}/{batch['id']}/results" if ended else None,
        }
