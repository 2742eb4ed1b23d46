"""--reasoning-effort: each SDK's own parameter, the token limit that leaves room to answer, cache keys,
and the finish reason of a reply cut off by the limit, over real SDK calls to the local fake server."""

from __future__ import annotations

import pytest

from cobe.calls.keys import settings_dict
from cobe.core.errors import InputError
from cobe.models import GenerateConfig, Message, get_provider
from cobe.models.anthropic_chat import message_kwargs
from cobe.models.base import finish_reason, is_truncated
from cobe.models.google_chat import contents_and_config
from cobe.models.openai_chat import completion_kwargs
from cobe.models.reasoning import REASONING_MAX_TOKENS, THINKING_BUDGET, thinking_budget
from cobe.run.config import EvalConfig

USER = [Message(role="user", content="Rewrite the story had the rain stopped early.")]


def test_openai_sends_the_level_and_the_limit_reasoning_models_take():
    kwargs = completion_kwargs(USER, GenerateConfig(temperature=0, max_tokens=900, reasoning_effort="medium"))
    assert kwargs["reasoning_effort"] == "medium" and kwargs["max_completion_tokens"] == 900
    assert "max_tokens" not in kwargs
    plain = completion_kwargs(USER, GenerateConfig(max_tokens=900))
    assert plain["max_tokens"] == 900 and "reasoning_effort" not in plain and "max_completion_tokens" not in plain


def test_hosted_openai_drops_sampling_settings_with_an_effort_and_says_so(monkeypatch, openai_server):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("LOCALFAKE_BASE_URL", openai_server.base_url)
    hosted, served = get_provider("openai/gpt-test"), get_provider("openai-api/localfake/fake-model")
    config = GenerateConfig(temperature=0.0, top_p=0.9, reasoning_effort="low")
    sent = hosted.request_kwargs(USER, config)
    assert "temperature" not in sent and "top_p" not in sent and sent["reasoning_effort"] == "low"
    assert hosted.ignored_settings == {"temperature (with --reasoning-effort)", "top_p (with --reasoning-effort)"}
    kept = served.request_kwargs(USER, config)  # vLLM / SGLang take both
    assert kept["temperature"] == 0.0 and kept["reasoning_effort"] == "low" and not served.ignored_settings


async def test_openai_compatible_round_trip_and_a_cut_off_reply(monkeypatch, openai_server):
    monkeypatch.setenv("LOCALFAKE_BASE_URL", openai_server.base_url)
    provider = get_provider("openai-api/localfake/fake-model")
    out = await provider.generate(USER, GenerateConfig(max_tokens=3, reasoning_effort="high"))
    assert out.finish_reason == "length" and out.output_tokens == 3  # limited through max_completion_tokens
    await provider.aclose()


@pytest.mark.parametrize(("effort", "budget"), list(THINKING_BUDGET.items()))
def test_anthropic_extended_thinking_budget_per_level(effort, budget):
    kwargs = message_kwargs(USER, GenerateConfig(max_tokens=REASONING_MAX_TOKENS, reasoning_effort=effort))
    assert kwargs["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert kwargs["max_tokens"] == REASONING_MAX_TOKENS > budget


def test_a_budget_is_cut_to_leave_room_to_answer_and_refused_when_none_is_left():
    assert thinking_budget("high", 4096) == 3072
    with pytest.raises(InputError, match=r"--max-tokens 1500 leaves no room for thinking .* give --max-tokens 2048"):
        thinking_budget("low", 1500)


def test_anthropic_thinking_sends_no_sampling_settings(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    provider = get_provider("anthropic/claude-x")
    kwargs = provider.request_kwargs(USER, GenerateConfig(temperature=0.0, max_tokens=9000, reasoning_effort="low"))
    assert kwargs["thinking"]["budget_tokens"] == 2048 and "temperature" not in kwargs
    assert any(name.startswith("temperature") for name in provider.ignored_settings)
    with pytest.raises(InputError, match="leaves no room for thinking"):
        provider.check_config(GenerateConfig(max_tokens=1200, reasoning_effort="minimal"))
    provider.check_config(GenerateConfig(max_tokens=1200))  # no effort: nothing to check


def test_google_thinking_budget_per_level():
    _, fields = contents_and_config(USER, GenerateConfig(max_tokens=REASONING_MAX_TOKENS, reasoning_effort="medium"))
    assert fields["thinking_config"] == {"thinking_budget": THINKING_BUDGET["medium"]}
    _, plain = contents_and_config(USER, GenerateConfig(max_tokens=64))
    assert "thinking_config" not in plain


@pytest.fixture
def sdk_provider(request, openai_server, monkeypatch):
    if request.param == "anthropic":
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", openai_server.root_url)
        return get_provider("anthropic/claude-test")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", openai_server.root_url)
    return get_provider("google/gemini-test")


@pytest.mark.parametrize("sdk_provider", ["anthropic", "google"], indirect=True)
async def test_sdk_takes_the_thinking_setting_and_reports_a_cut_off_reply_as_length(sdk_provider, openai_server):
    out = await sdk_provider.generate(USER, GenerateConfig(max_tokens=2100, reasoning_effort="minimal"))
    assert out.text and out.finish_reason in ("end_turn", "STOP")
    cut = await sdk_provider.generate(USER, GenerateConfig(max_tokens=2))
    assert cut.finish_reason == "length"  # Anthropic's max_tokens, Gemini's MAX_TOKENS
    await sdk_provider.aclose()


@pytest.mark.parametrize(
    ("raw", "recorded"), [("length", "length"), ("max_tokens", "length"), ("MAX_TOKENS", "length"), ("stop", "stop")]
)
def test_finish_reasons_spell_truncation_one_way(raw, recorded):
    assert finish_reason(raw) == recorded and is_truncated(raw) is (recorded == "length")
    assert finish_reason(None) is None and not is_truncated(None)


def test_an_unset_effort_leaves_every_stored_call_key_as_it_was():
    # keys of calls stored before the field existed hashed exactly these settings
    before = {"temperature": 0.0, "max_tokens": 512, "top_p": None, "seed": None, "stop": None}
    before |= {"logprobs": False, "choices": None}
    assert settings_dict(GenerateConfig(temperature=0.0, max_tokens=512)) == before
    assert settings_dict(GenerateConfig(reasoning_effort="medium"))["reasoning_effort"] == "medium"


def test_the_respondent_token_limit_leaves_room_when_an_effort_is_set():
    assert EvalConfig().max_tokens == 512
    assert EvalConfig(reasoning_effort="medium").max_tokens == REASONING_MAX_TOKENS
    assert EvalConfig(reasoning_effort="medium", max_tokens=3000).max_tokens == 3000
    default = EvalConfig(reasoning_effort="default")
    assert default.reasoning_effort is None and default.max_tokens == 512
