"""Judging through a provider's batch API (OpenAI Batch): submit unanswered judge calls, wait, record them as calls."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from cobe.errors import InputError, ProviderUnavailable
from cobe.models.base import GenerateConfig, Message, Provider
from cobe.models.openai_chat import completion_kwargs
from cobe.run.caller import Caller
from cobe.run.cost import estimate_tokens
from cobe.run.store import now

BATCH_PROVIDERS = ("openai", "openai-api")
ENDPOINT = "/v1/chat/completions"
WINDOW = "24h"
# the provider's final states; any other state means the batch may still answer
TERMINAL = ("completed", "failed", "expired", "cancelled")
# a submission recorded between uploading its file and creating its batch
SUBMITTING = "submitting"
PENDING = "pending:"


def check_batch_spec(spec: str) -> None:
    """--judge-batch needs a judge whose provider has a batch API cobe speaks."""
    if spec.partition("/")[0] not in BATCH_PROVIDERS:
        raise InputError(f"--judge-batch: judge {spec} has no batch API in cobe; use an openai/... or "
                         "openai-api/... judge, or drop --judge-batch")


@dataclass(frozen=True, slots=True)
class BatchRequest:
    """One judge call for the batch: its cache key, its request as stored, its chat.completions body."""

    key: str
    request: str
    body: dict[str, Any]


def batch_request(provider: Provider, messages: list[Message], settings: GenerateConfig) -> BatchRequest:
    """The first ask of a judge call (attempt 0), keyed exactly as `Caller.call` keys it."""
    request, key = Caller.request(provider, messages, settings)
    return BatchRequest(key, request, {"model": provider.model, **completion_kwargs(messages, settings)})


def _logprobs(choice: dict[str, Any]) -> dict[str, float] | None:
    """token → logprob of the first token's alternatives, as the normal path records them."""
    content = (choice.get("logprobs") or {}).get("content")
    if not content:
        return None
    return {alt["token"]: alt["logprob"] for alt in content[0].get("top_logprobs") or ()}


class BatchJudge:
    """Resumes the judge spec's open batches, submits one new batch for what is left, records every answer."""

    def __init__(self, caller: Caller, provider: Provider, settings: GenerateConfig, poll_s: float, progress: Any,
                 notices: list[str]) -> None:
        self.caller, self.provider, self.settings, self.poll_s = caller, provider, settings, poll_s
        self.client = provider.batch_client()  # type: ignore[attr-defined]  (check_batch_spec ran first)
        self.store, self.progress, self.notices = caller.store, progress, notices
        self.price = caller.prices.price(provider.spec)
        self.stats = caller.stats["judge-batch"]  # kept apart: the judging pass then finds these calls stored

    async def run(self, requests: list[BatchRequest]) -> None:
        """Answer `requests` through batches; what a batch leaves unanswered goes through the normal path later."""
        try:
            await self._run(requests)
        except self.provider._openai.APIError as exc:  # type: ignore[attr-defined]
            # what is recorded stays recorded: the same command resumes the open batch
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ProviderUnavailable(f"judge batch on {self.provider.spec} failed ({first}); "
                                      "run the same command again to resume") from None

    async def _run(self, requests: list[BatchRequest]) -> None:
        covered: set[str] = set()
        for row in self.store.open_batches(self.provider.spec, TERMINAL):
            batch_id = row["id"]
            if row["state"] == SUBMITTING and (batch_id := await self._recover(row)) is None:
                continue
            covered |= await self._finish(batch_id, 0.0)
        todo = list({r.key: r for r in requests if r.key not in covered and self.store.get_call(r.key) is None}.values())
        if not todo:
            return
        reserve = self._estimate(todo)
        self.caller.budget.reserve(reserve)  # raises BudgetExceeded before anything is submitted
        batch_id = await self._submit(todo)
        await self._finish(batch_id, reserve)

    def _estimate(self, todo: list[BatchRequest]) -> float:
        if self.price is None:
            return 0.0
        est_in = sum(estimate_tokens(m["content"]) for r in todo for m in r.body["messages"])
        return self.price.batch_cost(est_in, len(todo) * (self.settings.max_tokens or 1024))

    async def _submit(self, todo: list[BatchRequest]) -> str:
        lines = "".join(json.dumps({"custom_id": r.key, "method": "POST", "url": ENDPOINT, "body": r.body}) + "\n"
                        for r in todo)
        upload = await self.client.files.create(file=("cobe-judge.jsonl", lines.encode("utf-8"), "application/jsonl"),
                                                purpose="batch")
        # recorded before the batch exists: a run killed between creating the batch and noting its
        # id finds the batch again by its input file instead of paying for a second one
        pending = PENDING + upload.id
        self.store.put_batch({"id": pending, "spec": self.provider.spec, "state": SUBMITTING,
                              "created": now(), "request_count": len(todo), "input_file_id": upload.id},
                             [(r.key, r.request) for r in todo])
        batch = await self.client.batches.create(input_file_id=upload.id, endpoint=ENDPOINT, completion_window=WINDOW)
        self.store.adopt_batch(pending, batch.id, batch.status or "validating")
        return batch.id

    async def _recover(self, row: Any) -> str | None:
        """The provider's batch made from a pending submission's file, or None (then it is forgotten)."""
        async for batch in self.client.batches.list(limit=100):
            if batch.input_file_id == row["input_file_id"]:
                self.store.adopt_batch(row["id"], batch.id, batch.status or "validating")
                return batch.id
        self.store.drop_batch(row["id"])
        return None

    async def _finish(self, batch_id: str, reserve: float) -> set[str]:
        """Poll a batch until it ends, record its answers; returns the keys it covered."""
        while True:
            try:
                batch = await self.client.batches.retrieve(batch_id)
            except Exception as exc:
                if not self.provider.should_retry(exc):  # a lost connection or 5xx must not end a long wait
                    raise
                await asyncio.sleep(self.poll_s)
                continue
            counts = batch.request_counts
            done, total = (counts.completed + counts.failed, counts.total) if counts else (0, 0)
            self._show(batch_id, batch.status, done, total)
            if batch.status in TERMINAL:
                break
            self.store.set_batch(batch_id, batch.status)
            await asyncio.sleep(self.poll_s)
        requests = self.store.batch_requests(batch_id)
        spent = 0.0
        if batch.output_file_id:
            spent = await self._record(batch.output_file_id, requests)
        failed = len(requests) - sum(1 for key in requests if self.store.get_call(key) is not None)
        self.caller.budget.settle(reserve, spent)
        self.store.set_batch(batch_id, batch.status, batch.output_file_id, batch.error_file_id)
        if batch.status != "completed":
            self.notices.append(f"judge batch {batch_id} ended {batch.status}; its {failed} unanswered judge calls "
                                "went through the normal (full-price) path")
        elif failed:
            self.stats.errors += failed
            self.notices.append(f"judge batch {batch_id}: {failed} requests failed and went through the normal path")
        return set(requests)

    async def _record(self, file_id: str, requests: dict[str, str]) -> float:
        """Store every successful answer of an output file as a finished judge call; returns their cost."""
        content = await self.client.files.content(file_id)
        spent, stamp = 0.0, now()
        for line in content.text.splitlines():
            if not line.strip():
                continue
            entry = json.loads(line)
            key, response = entry.get("custom_id"), entry.get("response") or {}
            body = response.get("body") or {}
            if key not in requests or response.get("status_code") != 200 or not body.get("choices"):
                continue  # unknown or failed: the normal path asks it again
            choice, usage = body["choices"][0], body.get("usage") or {}
            n_in, n_out = usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)
            cost = self.price.batch_cost(n_in, n_out) if self.price else None
            logprobs = _logprobs(choice) if self.settings.logprobs else None
            self.store.put_call({
                "key": key, "role": "judge", "spec": self.provider.spec, "request": requests[key],
                "response": (choice.get("message") or {}).get("content") or "", "finish_reason": choice.get("finish_reason"),
                "input_tokens": n_in, "output_tokens": n_out, "latency_s": 0.0, "error": None, "attempts": 1,
                "first_token_logprobs": json.dumps(logprobs) if logprobs else None, "cost_usd": cost, "created": stamp,
            })
            spent += cost or 0.0
            self.stats.calls_made += 1
            self.stats.input_tokens += n_in
            self.stats.output_tokens += n_out
            self.stats.cost_usd += cost or 0.0
        return spent

    def _show(self, batch_id: str, status: str, done: int, total: int) -> None:
        show = getattr(self.progress, "batch", None)  # optional: API callers' progress objects may lack it
        if show is not None:
            show(batch_id, status, done, total)
