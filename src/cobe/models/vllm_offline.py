"""Offline batch inference on local GPUs through vLLM, for `vllm/<path-or-hub-id>`."""

from __future__ import annotations

import asyncio
import importlib.util
import threading
import time
from typing import TYPE_CHECKING, Any

from cobe.core.errors import ProviderUnavailable
from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider
from cobe.models.registry import register
from cobe.models.vllm_ray import llm_stage, remote_vllm
from cobe.models.vllm_ray import sampling_params as sampling_kwargs

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

INSTALL = "pip install 'cobe[vllm]'"
# how long the first request of a batch waits for concurrent ones to join it
BATCH_WINDOW_S = 0.02


def sampling_params(vllm: Any, config: GenerateConfig) -> Any:
    """GenerateConfig → vllm.SamplingParams; unset fields keep vLLM's defaults (the Ray stage sends the same)."""
    return vllm.SamplingParams(**sampling_kwargs(config))


def to_output(result: Any, latency: float, want_logprobs: bool) -> ModelOutput:
    """One vllm.RequestOutput → ModelOutput (latency is the batch's, shared by its items)."""
    completion = result.outputs[0]
    first = None
    if want_logprobs and completion.logprobs:
        first = {lp.decoded_token: lp.logprob for lp in completion.logprobs[0].values()}
    return ModelOutput(
        text=completion.text,
        finish_reason=completion.finish_reason,
        input_tokens=len(result.prompt_token_ids or ()),
        output_tokens=len(completion.token_ids),
        latency_s=latency,
        first_token_logprobs=first,
    )


class VLLMOffline(Provider):
    """Loads the model once on first use; batches run one at a time in a worker thread."""

    def __init__(self, spec: str, model: str, vllm: Any) -> None:
        super().__init__(spec, "vllm", model)
        self._vllm = vllm
        self._llm: Any = None
        self._lock = threading.Lock()  # one batch on the GPU at a time
        # concurrent generate() calls queue here and leave as one batch: while a batch runs on
        # the GPU the next one fills up, so per-call scheduling still gets batch throughput
        self._pending: list[tuple[list[Message], GenerateConfig, asyncio.Future[ModelOutput]]] = []
        self._drainer: asyncio.Task[None] | None = None
        self.batches: list[int] = []  # sizes of the batches sent, for tests and logs

    def _run(self, requests: list[tuple[list[Message], GenerateConfig]]) -> list[ModelOutput | BaseException]:
        with self._lock:
            if self._llm is None:
                self._llm = self._vllm.LLM(model=self.model)
            conversations = [[{"role": m.role, "content": m.content} for m in msgs] for msgs, _ in requests]
            params = [sampling_params(self._vllm, config) for _, config in requests]
            start = time.perf_counter()
            try:
                results = self._llm.chat(conversations, sampling_params=params, use_tqdm=False)
            except Exception as exc:  # a failed batch fails each of its items, reported per item
                return [exc] * len(requests)
            latency = time.perf_counter() - start
            return [to_output(r, latency, config.logprobs) for r, (_, config) in zip(results, requests)]

    async def generate_many(
        self, requests: list[tuple[list[Message], GenerateConfig]]
    ) -> list[ModelOutput | BaseException] | None:
        """The whole list as one vLLM batch (the chat template comes from the model's tokenizer)."""
        if not requests:
            return []
        return await asyncio.to_thread(self._run, requests)

    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, scenario: Scenario | None = None
    ) -> ModelOutput:
        """Join the next batch and wait for this request's output."""
        future: asyncio.Future[ModelOutput] = asyncio.get_running_loop().create_future()
        self._pending.append((messages, config, future))
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        while self._pending:
            await asyncio.sleep(BATCH_WINDOW_S)
            batch, self._pending = self._pending, []
            self.batches.append(len(batch))
            try:
                results = await asyncio.to_thread(self._run, [(m, c) for m, c, _ in batch])
            except BaseException as exc:  # e.g. the model failed to load: every waiter hears it
                results = [exc] * len(batch)
            for (_, _, future), result in zip(batch, results):
                if future.done():  # the caller timed out or was cancelled
                    continue
                if isinstance(result, BaseException):
                    future.set_exception(result)
                else:
                    future.set_result(result)

    def max_connections(self) -> int:
        """vLLM batches internally; hand it large batches."""
        return 256

    async def aclose(self) -> None:
        """Drop the engine so its GPU memory can be reclaimed."""
        self._llm = None


@register("vllm", remote=remote_vllm, ray_stage=llm_stage)
def _vllm_factory(spec: str, model: str) -> Provider:
    if importlib.util.find_spec("vllm") is None:
        raise ProviderUnavailable(f"{spec}: vLLM is not installed; run {INSTALL} on a machine with a CUDA GPU")
    try:
        import torch

        has_gpu = torch.cuda.is_available()
    except ImportError:
        has_gpu = False
    if not has_gpu:
        raise ProviderUnavailable(
            f"{spec}: no CUDA GPU is visible; vLLM offline inference needs one (use llamacpp/ or openai-api/ instead)"
        )
    try:
        import vllm
    except Exception as exc:  # a broken CUDA/driver stack fails at import with assorted errors
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise ProviderUnavailable(f"{spec}: vLLM failed to import ({reason}); reinstall with {INSTALL}") from None
    return VLLMOffline(spec, model, vllm)
