"""Judging through a provider's batch API (OpenAI Batch, Anthropic Message Batches): submit, wait, record as calls.

The provider-neutral part: which calls go into a batch, the pending record written before the
batch is created, resuming open batches, polling, and recording answers as ordinary judge calls
at the batch price. The adapters registered with each provider (`cobe.models.openai_batch`,
`cobe.models.anthropic_batch`) speak the APIs.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from cobe.calls.caller import Caller, key_refused
from cobe.calls.cost import estimate_tokens
from cobe.calls.scheduler import describe
from cobe.core.errors import InputError, ProviderUnavailable, RunIncomplete
from cobe.models.base import GenerateConfig, Message, Provider
from cobe.models.batch_api import Answer, BatchAPI, BatchRequest
from cobe.models.registry import batch_api, batch_prefixes
from cobe.store.store import now

__all__ = ["BatchJudge", "BatchRequest", "adapter", "batch_request"]

# a submission recorded before its batch exists (after the upload, where there is one)
SUBMITTING = "submitting"
PENDING = "pending:"


def adapter(spec: str) -> type[BatchAPI]:
    """The batch API adapter of a judge's provider; --judge-batch needs one (a one-line error otherwise)."""
    found = batch_api(spec)
    if found is None:
        named = [f"{prefix}/..." for prefix in batch_prefixes()]
        choices = ", ".join(named[:-1]) + f" or {named[-1]}" if len(named) > 1 else "".join(named)
        raise InputError(
            f"--judge-batch: judge {spec} has no batch API in cobe; use an {choices} judge, or drop --judge-batch"
        )
    return found


def batch_request(
    provider: Provider, messages: list[Message], settings: GenerateConfig, sample: int = 0
) -> BatchRequest:
    """The first ask (attempt 0) of a judge call or of one of its samples, keyed exactly as `Caller.call` keys it."""
    request, key = Caller.request(provider, messages, settings, sample=sample)
    return BatchRequest(key, request, adapter(provider.spec).body(provider, messages, settings))


class BatchJudge:
    """Resumes the judge spec's open batches, submits one new batch for what is left, records every answer."""

    def __init__(self, caller: Caller, provider: Provider, settings: GenerateConfig, poll_s: float) -> None:
        self.caller, self.provider, self.settings, self.poll_s = caller, provider, settings, poll_s
        caller.note_endpoint(provider)  # before its calls are looked up: a store's older calls keep answering
        self.api = adapter(provider.spec)(provider, settings)
        self.store = caller.store
        self.progress: Any = None  # what the current `run` reports to
        self.notices: list[str] = []
        self.price = caller.prices.price(provider.spec)
        self.stats = caller.stats["judge-batch"]  # kept apart: the judging pass then finds these calls stored

    async def run(self, requests: list[BatchRequest], progress: Any = None, notices: list[str] | None = None) -> None:
        """Answer `requests` through batches; what a batch leaves unanswered goes through the normal path later.

        `progress` may show each batch's state (its optional `batch` method); what ended badly is said in `notices`.
        """
        self.progress, self.notices = progress, notices if notices is not None else []
        try:
            await self._run(requests)
        except self.api.error as exc:
            # what is recorded stays recorded: the same command resumes the open batch
            if self.provider.refused(exc):
                raise key_refused(self.provider, "for its batch API", describe(exc)) from None
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if self.provider.should_retry(exc):
                # a lost connection, a timeout or a 5xx: nothing is missing on this machine (exit 3 said so);
                # the run stops incomplete (exit 5) and the same command resumes what was recorded
                raise RunIncomplete(
                    f"judge batch on {self.provider.spec} could not reach the provider ({first}); what was "
                    "submitted is recorded: run the same command again to resume"
                ) from None
            raise ProviderUnavailable(
                f"judge batch on {self.provider.spec} failed ({first}); run the same command again to resume"
            ) from None

    async def _run(self, requests: list[BatchRequest]) -> None:
        covered: set[str] = set()
        for row in self.store.open_batches(self.provider.spec, self.api.terminal):
            batch_id = row.id
            if row.state == SUBMITTING:
                found = await self.api.recover(row)
                if found is None:  # the provider never received it: forget it, its calls are submitted anew
                    self.store.drop_batch(batch_id)
                    continue
                self.store.adopt_batch(batch_id, *found)
                batch_id = found[0]
            covered |= await self._finish(batch_id, row.input_file_id, 0.0)
        todo = list(
            {r.key: r for r in requests if r.key not in covered and self.store.get_call(r.key) is None}.values()
        )
        if not todo:
            return
        reserve = self._estimate(todo)
        self.caller.budget.reserve(reserve)  # raises BudgetExceeded before anything is submitted
        ref = await self.api.prepare(todo)
        # recorded before the batch exists: a run killed between creating the batch and noting its
        # id finds the batch again by this ref instead of paying for a second one
        pending = PENDING + ref
        self.store.put_batch(
            {
                "id": pending,
                "spec": self.provider.spec,
                "state": SUBMITTING,
                "created": now(),
                "request_count": len(todo),
                "input_file_id": ref,
            },
            [(r.key, r.request) for r in todo],
        )
        batch_id, status = await self.api.create(todo, ref)
        self.store.adopt_batch(pending, batch_id, status)
        await self._finish(batch_id, ref, reserve)

    def _estimate(self, todo: list[BatchRequest]) -> float:
        if self.price is None:
            return 0.0
        est_in = sum(estimate_tokens(_text(m["content"])) for r in todo for m in r.body["messages"])
        est_in += sum(estimate_tokens(r.body.get("system") or "") for r in todo)  # Anthropic sends it apart
        return self.price.batch_cost(est_in, len(todo) * (self.settings.max_tokens or 1024))

    async def _finish(self, batch_id: str, ref: str, reserve: float) -> set[str]:
        """Poll a batch until it ends, record its answers; returns the keys it covered."""
        while True:
            try:
                poll = await self.api.poll(batch_id)
            except Exception as exc:
                if not self.provider.should_retry(exc):  # a lost connection or 5xx must not end a long wait
                    raise
                await asyncio.sleep(self.poll_s)
                continue
            self._show(batch_id, poll.status, poll.done, poll.total)
            if poll.ended:
                break
            self.store.set_batch(batch_id, poll.status)
            await asyncio.sleep(self.poll_s)
        requests = self.store.batch_requests(batch_id)
        spent, stamp = 0.0, now()
        async for key, answer in self.api.answers(batch_id, poll, ref, set(requests)):
            spent += self._record(key, requests[key], answer, stamp)
        failed = len(requests) - sum(1 for key in requests if self.store.get_call(key) is not None)
        self.caller.budget.settle(reserve, spent)
        self.store.set_batch(batch_id, poll.status, poll.output, poll.errors)
        if poll.failure:
            self.notices.append(
                f"judge batch {batch_id} ended {poll.failure}; its {failed} unanswered judge calls "
                "went through the normal (full-price) path"
            )
        elif failed:
            self.stats.errors += failed
            self.notices.append(f"judge batch {batch_id}: {failed} requests failed and went through the normal path")
        return set(requests)

    def _record(self, key: str, request: str, answer: Answer, stamp: str) -> float:
        """Store one batch answer as a finished judge call; returns its cost."""
        n_in, n_out = answer.input_tokens, answer.output_tokens
        cached, written = answer.cached_input_tokens, answer.cache_write_tokens
        cost = self.price.batch_cost(n_in, n_out, cached, written) if self.price else None
        self.store.put_call(
            {
                "key": key,
                "role": "judge",
                "spec": self.provider.spec,
                "request": request,
                "response": answer.text,
                "finish_reason": answer.finish_reason,
                "input_tokens": n_in,
                "output_tokens": n_out,
                "cached_input_tokens": cached,
                "cache_write_tokens": written,
                "latency_s": 0.0,
                "error": None,
                "attempts": 1,
                "first_token_logprobs": json.dumps(answer.logprobs) if answer.logprobs else None,
                "cost_usd": cost,
                "created": stamp,
            }
        )
        self.stats.calls_made += 1
        self.stats.input_tokens += n_in
        self.stats.output_tokens += n_out
        self.stats.cached_input_tokens += cached
        self.stats.cache_write_tokens += written
        self.stats.cost_usd += cost or 0.0
        return cost or 0.0

    def _show(self, batch_id: str, status: str, done: int, total: int) -> None:
        show = getattr(self.progress, "batch", None)  # optional: API callers' progress objects may lack it
        if show is not None:
            show(batch_id, status, done, total)


def _text(content: Any) -> str:
    """A request message's text: plain, or the text blocks of one whose head is marked for the prompt cache."""
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if isinstance(block, dict))
