"""The SDK providers talk through the SDKs' aiohttp transport where it is installed, httpx where it is not or where
COBE_HTTP_TRANSPORT=httpx asks; either way with cobe's pool size, its timeout, and a pool closed with the provider
(issue 42, item 1)."""

from __future__ import annotations

import pytest

from cobe.core.errors import InputError
from cobe.models import GenerateConfig, Message, get_provider
from cobe.models.sdk import POOL_SIZE, http_transport, pooled_http_client

ASK = [Message(role="user", content="Rewrite the story.")]


@pytest.fixture
def fake_env(openai_server, monkeypatch):
    monkeypatch.setenv("LOCALFAKE_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-1234567890")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", openai_server.base_url.removesuffix("/v1"))


def http_client(provider):
    """The httpx-shaped client under a provider's SDK client."""
    client = provider._clients[0] if hasattr(provider, "_clients") else provider._client
    return client._client


def transport_of(provider) -> str:
    return "aiohttp" if type(http_client(provider)._transport).__name__ == "AiohttpTransport" else "httpx"


@pytest.mark.parametrize("spec", ["openai-api/localfake/fake-model", "anthropic/claude-test"])
async def test_each_transport_answers_with_the_pool_size_and_closes_with_the_provider(fake_env, http_transport, spec):
    provider = get_provider(spec)
    assert transport_of(provider) == http_transport
    out = await provider.generate(ASK, GenerateConfig(max_tokens=8))
    assert out.text
    transport = http_client(provider)._transport
    if http_transport == "aiohttp":
        session = transport.client  # made on the first request, in the running loop
        assert session.connector.limit == POOL_SIZE and not session.closed
    else:
        assert transport._pool._max_connections == POOL_SIZE == transport._pool._max_keepalive_connections
    await provider.aclose()
    assert http_client(provider).is_closed
    if http_transport == "aiohttp":
        assert session.closed


def test_aiohttp_is_the_default(monkeypatch):
    monkeypatch.delenv("COBE_HTTP_TRANSPORT", raising=False)
    assert http_transport() == "aiohttp"


def test_an_unknown_transport_is_one_clear_line(monkeypatch):
    monkeypatch.setenv("COBE_HTTP_TRANSPORT", "curl")
    with pytest.raises(InputError, match=r"COBE_HTTP_TRANSPORT='curl': expected one of aiohttp, httpx"):
        http_transport()


def test_httpx_where_the_sdk_lacks_aiohttp(monkeypatch):
    import openai

    class Missing:  # what the SDK puts in DefaultAioHttpClient's place when aiohttp is not installed
        def __init__(self, **_kwargs):
            raise RuntimeError("To use the aiohttp client you must have installed the package with the `aiohttp` extra")

    monkeypatch.delenv("COBE_HTTP_TRANSPORT", raising=False)
    monkeypatch.setattr(openai, "DefaultAioHttpClient", Missing)
    assert type(pooled_http_client(openai)._transport).__name__ != "AiohttpTransport"
    monkeypatch.delattr(openai, "DefaultAioHttpClient")  # an SDK older than the transport
    assert type(pooled_http_client(openai)._transport).__name__ != "AiohttpTransport"


async def test_each_transport_keeps_its_connections_alive_for_the_next_calls(fake_env, openai_server, http_transport):
    import asyncio

    openai_server.control(delay_s=0.02)  # long enough that the four lanes overlap
    provider = get_provider("openai-api/localfake/fake-model")
    lane = asyncio.Semaphore(4)  # as the scheduler's window would

    async def one():
        async with lane:
            return await provider.generate(ASK, GenerateConfig(max_tokens=8))

    outs = await asyncio.gather(*(one() for _ in range(20)))
    await provider.aclose()
    stats = openai_server.stats()
    assert all(o.text for o in outs) and stats["requests"] == 20
    # a connection opened only while every open one was busy: as many as the calls ever in flight, reused after
    assert 2 <= stats["peak_connections"] <= 4
