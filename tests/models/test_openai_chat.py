"""openai/ and openai-api/ against a real local HTTP server speaking the OpenAI protocol."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from cobe.core.errors import InputError
from cobe.models import GenerateConfig, Message, get_provider, openai_chat
from cobe.models.capabilities import capabilities
from cobe.models.fitting import fit
from cobe.models.openai_chat import chat_body

# every behaviour here holds on both HTTP transports (support.http_transport)
pytestmark = pytest.mark.usefixtures("http_transport")


USER = [Message(role="user", content="Rewrite the story had the rain stopped early.")]
JUDGE = [Message(role="user", content="Story: x\nAnswer with exactly one letter: T or F.")]


@pytest.fixture
def provider(openai_server, monkeypatch):
    monkeypatch.setenv("LOCALFAKE_BASE_URL", openai_server.base_url)
    monkeypatch.delenv("LOCALFAKE_API_KEY", raising=False)
    return get_provider("openai-api/localfake/fake-model")


def completion_kwargs(messages, config):
    return chat_body(messages, fit(capabilities("openai-api/server/model"), config))


def test_config_mapping_leaves_unset_fields_out():
    kwargs = completion_kwargs(USER, GenerateConfig())
    assert kwargs == {"messages": [{"role": "user", "content": USER[0].content}]}
    kwargs = completion_kwargs(
        USER, GenerateConfig(temperature=0, max_tokens=9, top_p=0.5, seed=3, stop=("\n",), logprobs=True)
    )
    assert kwargs["temperature"] == 0 and kwargs["max_tokens"] == 9 and kwargs["top_p"] == 0.5
    assert kwargs["seed"] == 3 and kwargs["stop"] == ["\n"]
    assert kwargs["logprobs"] is True and kwargs["top_logprobs"] == 5


async def test_success_fills_output(provider, openai_server, monkeypatch):
    reads = iter([10.0, 10.25])  # the round trip's two clock reads, as the provider takes them
    monkeypatch.setattr(openai_chat, "time", SimpleNamespace(perf_counter=lambda: next(reads)))
    out = await provider.generate(USER, GenerateConfig(temperature=0))
    assert out.text.startswith("Instead, Rewrite the story")
    assert out.finish_reason == "stop"
    assert out.input_tokens == 8 and out.output_tokens == len(out.text.split())
    assert out.latency_s == 0.25 and out.first_token_logprobs is None
    assert openai_server.stats()["models"] == {"fake-model": 1}
    await provider.aclose()


async def test_judge_prompt_and_logprobs(provider, openai_server):
    out = await provider.generate(JUDGE, GenerateConfig(logprobs=True))
    assert out.text == "T"
    assert out.first_token_logprobs is not None and len(out.first_token_logprobs) == 5
    assert max(out.first_token_logprobs, key=out.first_token_logprobs.get) == "T"
    openai_server.control(verdict="maybe")
    assert (await provider.generate(JUDGE, GenerateConfig())).text == "maybe"


async def test_max_tokens_truncates(provider):
    out = await provider.generate(USER, GenerateConfig(max_tokens=2))
    assert out.finish_reason == "length" and out.output_tokens == 2


async def test_429_is_retryable_with_retry_after(provider, openai_server):
    openai_server.control(rate_limit=1, retry_after=7)
    with pytest.raises(Exception) as info:
        await provider.generate(USER, GenerateConfig())
    assert provider.should_retry(info.value)
    assert provider.retry_after(info.value) == 7.0
    # the SDK's own retries are off: exactly one request reached the server
    assert openai_server.stats()["rate_limited"] == 1 and openai_server.stats()["requests"] == 1
    assert (await provider.generate(USER, GenerateConfig())).text


async def test_429_retry_after_http_date(provider, openai_server):
    openai_server.control(rate_limit=1, retry_after="Wed, 21 Oct 2015 07:28:00 GMT")
    with pytest.raises(Exception) as info:
        await provider.generate(USER, GenerateConfig())
    assert provider.retry_after(info.value) == 0.0  # a date in the past means 'now'


async def test_500_and_malformed_are_retryable(provider, openai_server):
    openai_server.control(server_error=1, malformed=1)
    for _ in range(2):
        with pytest.raises(Exception) as info:
            await provider.generate(USER, GenerateConfig())
        assert provider.should_retry(info.value)
        assert provider.retry_after(info.value) is None
    assert openai_server.stats()["server_errors"] == 1 and openai_server.stats()["malformed"] == 1


async def test_client_errors_are_not_retryable(provider, monkeypatch, openai_server):
    import openai

    monkeypatch.setenv("LOCALFAKE_BASE_URL", openai_server.root_url + "/nowhere")
    missing = get_provider("openai-api/localfake/fake-model")
    with pytest.raises(openai.NotFoundError) as info:
        await missing.generate(USER, GenerateConfig())
    assert not missing.should_retry(info.value)
    assert not provider.should_retry(ValueError("bad prompt"))


async def test_connection_refused_is_retryable(monkeypatch):
    monkeypatch.setenv("DEAD_BASE_URL", "http://127.0.0.1:9/v1")
    provider = get_provider("openai-api/dead/m")
    with pytest.raises(Exception) as info:
        await provider.generate(USER, GenerateConfig())
    assert provider.should_retry(info.value)


def test_models_endpoint(openai_server):
    assert openai_server._call("GET", "/v1/models")["data"][0]["id"] == "fake-model"


def test_missing_base_url_names_the_variable(monkeypatch):
    monkeypatch.delenv("MY_SERVER_BASE_URL", raising=False)
    with pytest.raises(InputError, match="MY_SERVER_BASE_URL"):
        get_provider("openai-api/my-server/m")
    with pytest.raises(InputError, match="openai-api/<service>/<model>"):
        get_provider("openai-api/only-service")


def test_openai_needs_key_and_hides_it(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(InputError, match="OPENAI_API_KEY"):
        get_provider("openai/gpt-x")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123")
    provider = get_provider("openai/gpt-x")
    assert "sk-secret" not in repr(provider) and "sk-secret" not in str(provider)
    assert "sk-secret" not in repr(vars(provider))


def test_api_key_from_service_env(monkeypatch):
    monkeypatch.setenv("MY_SERVER_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("MY_SERVER_API_KEY", "key-1")
    provider = get_provider("openai-api/my-server/org/model-name")
    assert provider.model == "org/model-name" and provider._clients[0].api_key == "key-1"
    monkeypatch.delenv("MY_SERVER_API_KEY")
    assert get_provider("openai-api/my-server/m")._clients[0].api_key == "EMPTY"


def test_importing_module_does_not_import_sdk():
    import subprocess

    code = "import cobe.models.openai_chat, sys; print('openai' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


async def test_several_servers_of_one_model_share_the_calls(openai_server, monkeypatch):
    import asyncio

    from support.openai_server import ThreadedServer

    second = ThreadedServer()
    try:
        second.control(hold_after=0)  # a server that answers nothing until released: always the busier one
        monkeypatch.setenv("FLEET_BASE_URL", f"{openai_server.base_url}, {second.base_url}")
        provider = get_provider("openai-api/fleet/fake-model")
        assert provider.max_connections() == 64
        messages = [Message(role="user", content="Rewrite this.")]
        lanes = 8
        lane = asyncio.Semaphore(lanes)  # as the scheduler's concurrency limit would

        async def one():
            async with lane:
                return await provider.generate(messages, GenerateConfig(max_tokens=8))

        calls = asyncio.gather(*(one() for _ in range(40)))
        # the held server takes a call only while it has fewer in flight than the other, so at most
        # half the lanes: the other server answers the remaining 36 or more
        await asyncio.to_thread(openai_server.wait_for, lambda s: s.ok >= 40 - lanes // 2)
        await asyncio.to_thread(second.control, hold_after=None)
        outs = await calls
        assert all(o.text for o in outs)
        fast, slow = openai_server.stats()["requests"], second.stats()["requests"]
        assert fast + slow == 40 and 1 <= slow <= lanes // 2
        assert provider.served == [fast, slow]
        await provider.aclose()
    finally:
        second.close()
