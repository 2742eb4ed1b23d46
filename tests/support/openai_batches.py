"""OpenAI Files + Batches for the fake server: upload, create, list, poll, and the output file.

A batch's lines are answered when it is created, each as its endpoint (`/v1/chat/completions` or
`/v1/responses`) would answer it, without counting as a chat request; in strict mode a line the API would
refuse gets its error as the line's response (status and body), counted as refused. The faults `batch_polls`
(in_progress answers before it ends) and `batch_status` (how it ends) shape what a batch reports.
"""

from __future__ import annotations

import json
import time
from typing import Any

from support.llm_replies import file_object

ENDPOINTS = {"/v1/chat/completions": "openai", "/v1/responses": "responses"}


def _error(status: int, message: str) -> tuple[int, bytes, dict[str, str]]:
    body = {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}
    return status, json.dumps(body).encode(), {}


class OpenAIBatches:
    """Mixed into FakeLLMServer: uses its respond(), faults, stats and id counter."""

    faults: Any
    stats: Any
    _ids: Any
    files: dict[str, bytes]
    batches: dict[str, dict[str, Any]]
    respond: Any  # (kind, path, request) → (status, body, model, judged), strict checks included

    def batch_route(self, method: str, path: str, body: bytes) -> tuple[int, bytes, dict[str, str]]:
        """POST /v1/files, GET /v1/files/{id}/content, POST /v1/batches, GET /v1/batches[/{id}]."""
        parts = path.split("?", 1)[0].strip("/").split("/")
        if method == "POST" and parts == ["v1", "files"]:
            return self._upload(body)
        if method == "GET" and len(parts) == 4 and parts[1] == "files" and parts[3] == "content":
            if parts[2] not in self.files:
                return _error(404, f"no file {parts[2]}")
            return 200, self.files[parts[2]], {}
        if method == "POST" and parts == ["v1", "batches"]:
            return self._create_batch(json.loads(body))
        if method == "GET" and parts == ["v1", "batches"]:  # the list, newest first, in one page
            data = [self._batch_object(b, "in_progress") for b in reversed(self.batches.values())]
            return 200, json.dumps({"object": "list", "data": data, "has_more": False}).encode(), {}
        if method == "GET" and len(parts) == 3 and parts[1] == "batches":
            batch = self.batches.get(parts[2])
            if batch is None:
                return _error(404, f"no batch {parts[2]}")
            return 200, json.dumps(self._poll(batch)).encode(), {}
        return _error(404, f"no route {method} {path}")

    def _upload(self, body: bytes) -> tuple[int, bytes, dict[str, str]]:
        # multipart/form-data: the first line is the boundary, so the header is not needed
        boundary = body.split(b"\r\n", 1)[0]
        content = None
        for part in body.split(boundary):
            head, _, data = part.partition(b"\r\n\r\n")
            if b'name="file"' in head:
                content = data[:-2] if data.endswith(b"\r\n") else data
        if content is None:
            return _error(400, "multipart upload without a 'file' part")
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = content
        self.stats.files += 1
        return 200, json.dumps(file_object(file_id, len(content), "batch")).encode(), {}

    def _line(self, kind: str, entry: dict[str, Any]) -> str:
        status, payload, _, _ = self.respond(kind, entry["url"], entry["body"])
        self.stats.batch_lines += 1
        response = {"status_code": status, "request_id": "req", "body": json.loads(payload)}
        line = {"id": f"batch_req_{next(self._ids)}", "custom_id": entry["custom_id"], "error": None}
        return json.dumps(line | {"response": response})

    def _create_batch(self, request: dict) -> tuple[int, bytes, dict[str, str]]:
        source = self.files.get(request.get("input_file_id", ""))
        endpoint = request.get("endpoint")
        if source is None or endpoint not in ENDPOINTS:
            return _error(400, f"expected input_file_id of an uploaded file and endpoint one of {sorted(ENDPOINTS)}")
        entries = [json.loads(line) for line in source.decode("utf-8").splitlines() if line.strip()]
        if any(entry.get("url") != endpoint for entry in entries):
            return _error(400, f"every line's url must be the batch's endpoint {endpoint}")
        out = [self._line(ENDPOINTS[endpoint], entry) for entry in entries]
        output_id = f"file-{next(self._ids)}"
        self.files[output_id] = "".join(line + "\n" for line in out).encode()
        batch_id = f"batch_{next(self._ids)}"
        self.batches[batch_id] = {
            "id": batch_id,
            "input_file_id": request["input_file_id"],
            "endpoint": endpoint,
            "output": output_id,
            "total": len(out),
            "polls": 0,
            "created_at": int(time.time()),
        }
        self.stats.batches += 1
        return 200, json.dumps(self._batch_object(self.batches[batch_id], "validating")).encode(), {}

    def _poll(self, batch: dict[str, Any]) -> dict[str, Any]:
        batch["polls"] += 1
        self.stats.batch_polls += 1
        status = "in_progress" if batch["polls"] <= self.faults.batch_polls else self.faults.batch_status
        return self._batch_object(batch, status)

    @staticmethod
    def _batch_object(batch: dict[str, Any], status: str) -> dict[str, Any]:
        ended = status in ("completed", "expired", "cancelled")
        done = batch["total"] if ended else 0
        return {
            "id": batch["id"],
            "object": "batch",
            "endpoint": batch["endpoint"],
            "errors": None,
            "input_file_id": batch["input_file_id"],
            "completion_window": "24h",
            "status": status,
            "output_file_id": batch["output"] if ended else None,
            "error_file_id": None,
            "created_at": batch["created_at"],
            "request_counts": {"total": batch["total"], "completed": done, "failed": 0},
        }
