"""anthropic/ and google/: request mapping, and real SDK calls against the local fake server."""

from __future__ import annotations

import pytest

from cobe.core.errors import InputError
from cobe.models import GenerateConfig, Message, get_provider
from cobe.models.anthropic_chat import DEFAULT_MAX_TOKENS
from cobe.models.anthropic_chat import message_kwargs as anthropic_body
from cobe.models.capabilities import capabilities
from cobe.models.fitting import fit
from cobe.models.google_chat import contents_and_config as google_body

# every behaviour here holds on both HTTP transports (support.http_transport)
pytestmark = pytest.mark.usefixtures("http_transport")


CHAT = [
    Message(role="system", content="Be brief."),
    Message(role="user", content="Story: a b c. Answer with exactly one letter."),
    Message(role="assistant", content="T"),
    Message(role="user", content="Again."),
]


def message_kwargs(messages, config):
    return anthropic_body(messages, fit(capabilities("anthropic/claude-3-5-haiku-latest"), config))


def contents_and_config(messages, config):
    return google_body(messages, fit(capabilities("google/gemini-2.0-flash"), config))


def test_anthropic_mapping():
    kwargs = message_kwargs(CHAT, GenerateConfig(seed=1, stop=("X",), temperature=0.2))
    assert kwargs["system"] == "Be brief."
    assert [m["role"] for m in kwargs["messages"]] == ["user", "assistant", "user"]
    assert kwargs["max_tokens"] == DEFAULT_MAX_TOKENS == 1024
    assert kwargs["stop_sequences"] == ["X"] and kwargs["temperature"] == 0.2
    assert "seed" not in kwargs
    assert message_kwargs(CHAT[1:2], GenerateConfig(max_tokens=5)) == {
        "messages": [{"role": "user", "content": CHAT[1].content}],
        "max_tokens": 5,
    }


def test_google_mapping():
    contents, fields = contents_and_config(CHAT, GenerateConfig(max_tokens=7, seed=2, logprobs=True))
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[0]["parts"] == [{"text": CHAT[1].content}]
    assert fields == {
        "system_instruction": "Be brief.",
        "max_output_tokens": 7,
        "seed": 2,
        "response_logprobs": True,
        "logprobs": 5,
    }


@pytest.fixture
def anthropic_provider(openai_server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-abc")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", openai_server.root_url)
    return get_provider("anthropic/claude-test")


@pytest.fixture
def google_provider(openai_server, monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key-abc")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", openai_server.root_url)
    return get_provider("google/gemini-test")


@pytest.mark.parametrize("name", ["anthropic_provider", "google_provider"])
async def test_sdk_round_trip_and_faults(name, request, openai_server):
    provider = request.getfixturevalue(name)
    assert "test-key" not in repr(provider)
    out = await provider.generate(CHAT, GenerateConfig(max_tokens=4))
    assert out.text == "T" and out.input_tokens > 0 and out.output_tokens == 1
    assert out.finish_reason in ("end_turn", "STOP")
    openai_server.control(rate_limit=1, retry_after=4, server_error=1, malformed=1)
    outcomes = []
    for _ in range(3):
        with pytest.raises(Exception) as info:
            await provider.generate(CHAT, GenerateConfig())
        outcomes.append((provider.should_retry(info.value), provider.retry_after(info.value)))
    assert outcomes == [(True, 4.0), (True, None), (True, None)]
    assert openai_server.stats()["requests"] == 4  # no hidden SDK retries
    await provider.aclose()


async def test_anthropic_client_error_not_retryable(monkeypatch, openai_server):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", openai_server.root_url + "/nowhere")
    provider = get_provider("anthropic/claude-test")
    with pytest.raises(Exception) as info:
        await provider.generate(CHAT, GenerateConfig())
    assert not provider.should_retry(info.value)


def test_google_error_classification(monkeypatch):
    from google.genai import errors

    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    provider = get_provider("google/gemini-test")
    assert provider.should_retry(errors.ServerError(503, {"error": {"message": "busy"}}))
    assert provider.should_retry(errors.ClientError(429, {"error": {"message": "quota"}}))
    assert not provider.should_retry(errors.ClientError(400, {"error": {"message": "bad"}}))


@pytest.mark.parametrize(
    ("spec", "variable"),
    [("anthropic/claude-x", "ANTHROPIC_API_KEY"), ("google/gemini-x", "GOOGLE_API_KEY")],
)
def test_missing_key_is_one_line(spec, variable, monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(InputError, match=variable) as info:
        get_provider(spec)
    assert "\n" not in str(info.value)


async def test_anthropic_sends_what_the_models_row_takes_whatever_the_sdk_names(monkeypatch, openai_server):
    from cobe.models import get_provider

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", openai_server.root_url)
    newest = get_provider("anthropic/claude-opus-4-7")
    kwargs = newest.request_kwargs(CHAT, GenerateConfig(temperature=0.2, stop=("X",)))
    assert kwargs["stop_sequences"] == ["X"] and "temperature" not in kwargs  # its row refuses it
    assert newest.refused_settings == {"temperature 0.2"}
    # an older model takes temperature, which this SDK's create() no longer names: it goes in the body
    older = get_provider("anthropic/claude-3-5-haiku-latest")
    out = await older.generate(CHAT, GenerateConfig(temperature=0.2, max_tokens=4))
    assert out.sent == {"api": "messages", "max_tokens": 4, "temperature": 0.2} and not older.refused_settings
    await older.aclose()
    await newest.aclose()
