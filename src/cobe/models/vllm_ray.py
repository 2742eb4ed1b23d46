"""`vllm/` models on a Ray cluster: vLLM engines driven by Ray Data's LLM processor (`ray.data.llm`).

The driver holds only a `VLLMOnCluster` (it needs neither vLLM nor a GPU); each engine replica runs
on the cluster's GPUs, `replicas` of them with `gpus` each (the model's tensor-parallel size). Rows
come in as `cobe.models.wire` requests and leave as its answers, so the executor treats this stage
like any other worker pool. `ray.data.llm` keeps no finish reason, so a reply that used its whole
token limit is recorded as cut off (`length`), which is what vLLM reports for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cobe.core.errors import ProviderUnavailable
from cobe.core.secrets import scrub_cut
from cobe.models.base import TRUNCATED, GenerateConfig, Message, ModelOutput, Provider, sampling_fields
from cobe.models.wire import ID, answer_row, read_request

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

#: vLLM's own default (16) cuts every rewrite short; the same default as the offline provider
DEFAULT_MAX_TOKENS = 256  # vLLM's own default (16) cuts every rewrite short
TOP_LOGPROBS = 5


@dataclass(frozen=True)
class EnginePool:
    """How a model's engines are laid out: replicas, GPUs per replica (tensor parallel) and rows per batch."""

    replicas: int = 1
    gpus: int = 1
    batch_size: int = 64


class VLLMOnCluster(Provider):
    """A `vllm/` model as the driver of a Ray run holds it: its name and settings, never an engine."""

    def __init__(self, spec: str, model: str) -> None:
        super().__init__(spec, "vllm", model)

    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, scenario: Scenario | None = None
    ) -> ModelOutput:
        """Never called: the executor sends these calls to the cluster's engines."""
        raise ProviderUnavailable(f"{self.spec}: a vLLM engine runs on the Ray cluster only (--executor ray)")

    def max_connections(self) -> int:
        """vLLM batches internally."""
        return 256


def sampling_params(config: GenerateConfig) -> dict[str, Any]:
    """GenerateConfig → the keyword arguments of vllm.SamplingParams, as a row's `sampling_params`."""
    params: dict[str, Any] = {
        "max_tokens": config.max_tokens if config.max_tokens is not None else DEFAULT_MAX_TOKENS,
        **sampling_fields(config),
    }
    if config.stop:
        params["stop"] = list(config.stop)
    if config.logprobs:
        params["logprobs"] = TOP_LOGPROBS
    return params


def preprocess(row: Mapping[str, Any]) -> dict[str, Any]:
    """A request row → the processor's input: OpenAI-style messages and per-row sampling parameters."""
    call_id, messages, config = read_request(row)
    return {
        ID: call_id,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "sampling_params": sampling_params(config),
        "max_tokens": sampling_params(config)["max_tokens"],
    }


def _first_logprobs(row: Mapping[str, Any]) -> dict[str, float] | None:
    steps = row.get("logprobs")
    if steps is None or len(steps) == 0:
        return None
    first = steps[0]
    return {str(info["decoded_token"]): float(info["logprob"]) for info in first.values()}


def postprocess(row: Mapping[str, Any]) -> dict[str, Any]:
    """The processor's output row → an answer row (`cobe.models.wire`)."""
    error = str(row.get("__inference_error__") or "")
    if error:
        return answer_row(int(row[ID]), None, f"vLLM engine: {scrub_cut(error, 300)}")  # whole, then cut
    generated = int(row.get("num_generated_tokens") or 0)
    finish = TRUNCATED if generated >= int(row["max_tokens"]) else "stop"
    output = ModelOutput(
        text=str(row.get("generated_text") or ""),
        finish_reason=finish,
        input_tokens=int(row.get("num_input_tokens") or 0),
        output_tokens=generated,
        latency_s=max(0.0, float(row.get("time_taken_llm") or 0.0)),
        first_token_logprobs=_first_logprobs(row),
    )
    return answer_row(int(row[ID]), output, None)


def processor_config(model: str, pool: EnginePool) -> Any:
    """The `ray.data.llm.vLLMEngineProcessorConfig` of a model on `pool`."""
    from ray.data.llm import vLLMEngineProcessorConfig

    return vLLMEngineProcessorConfig(
        model_source=model,
        engine_kwargs={"tensor_parallel_size": pool.gpus, "enable_prefix_caching": True},
        concurrency=pool.replicas,
        batch_size=pool.batch_size,
        # a row the engine fails is that call's error, recorded like any other; the batch goes on
        should_continue_on_error=True,
    )


def llm_stage(spec: str, model: str, pool: EnginePool) -> Callable[[Any], Any]:
    """The Ray Data stage answering `spec`'s request rows with vLLM engines: dataset in, answer rows out."""
    import ray.data.llm as llm

    # build_processor is the name since Ray 2.5x; build_llm_processor before
    build: Any = getattr(llm, "build_processor", None) or getattr(llm, "build_llm_processor")  # noqa: B009
    return build(processor_config(model, pool), preprocess=preprocess, postprocess=postprocess)


def remote_vllm(spec: str, model: str) -> Provider:
    """The driver's form of a `vllm/` model under the Ray executor."""
    return VLLMOnCluster(spec, model)


__all__ = ["EnginePool", "VLLMOnCluster", "llm_stage", "postprocess", "preprocess", "processor_config"]
