"""--reasoning-effort: each SDK's own parameter, the token limit that leaves room to answer, cache keys,
and the finish reason of a reply cut off by the limit, over real SDK calls to the local fake server."""

from __future__ import annotations

import pytest

from cobe.calls.keys import settings_dict
from cobe.core.errors import InputError
from cobe.models import GenerateConfig, Message, get_provider
from cobe.models.anthropic_chat import message_kwargs
from cobe.models.base import finish_reason, is_truncated
from cobe.models.capabilities import capabilities
from cobe.models.fitting import fit
from cobe.models.google_chat import contents_and_config
from cobe.models.openai_chat import chat_body
from cobe.models.reasoning import REASONING_MAX_TOKENS, THINKING_BUDGET, thinking_budget
from cobe.run.config import EvalConfig

USER = [Message(role="user", content="Rewrite the story had the rain stopped early.")]


def body(spec: str, config: GenerateConfig) -> dict:
    caps = capabilities(spec)
    wire = {"chat": chat_body, "messages": message_kwargs, "generate_content": contents_and_config}[caps.api]
    return wire(USER, fit(caps, config))


def test_openai_sends_the_level_and_the_limit_reasoning_models_take():
    kwargs = body("openai/gpt-5.4", GenerateConfig(temperature=0, max_tokens=900, reasoning_effort="medium"))
    assert kwargs["reasoning_effort"] == "medium" and kwargs["max_completion_tokens"] == 900
    assert "max_tokens" not in kwargs and "temperature" not in kwargs  # refused while it thinks
    plain = body("openai/gpt-4.1", GenerateConfig(max_tokens=900))
    assert plain["max_tokens"] == 900 and "reasoning_effort" not in plain and "max_completion_tokens" not in plain
    off = body("openai/gpt-5.4", GenerateConfig(temperature=0, max_tokens=9, reasoning_effort="none"))
    assert off["reasoning_effort"] == "none" and off["temperature"] == 0  # thinking off: sampling is taken


def test_hosted_openai_drops_sampling_settings_while_it_thinks_and_says_so(monkeypatch, openai_server):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("LOCALFAKE_BASE_URL", openai_server.base_url)
    hosted, served = get_provider("openai/gpt-5"), get_provider("openai-api/localfake/fake-model")
    config = GenerateConfig(temperature=0.0, top_p=0.9, reasoning_effort="low")
    sent = hosted.request_kwargs(USER, config)
    assert "temperature" not in sent and "top_p" not in sent and sent["reasoning_effort"] == "low"
    assert hosted.refused_settings == {"temperature 0.0 while it thinks", "top_p 0.9 while it thinks"}
    kept = served.request_kwargs(USER, config)  # vLLM / SGLang take both
    assert kept["temperature"] == 0.0 and kept["reasoning_effort"] == "low" and not served.refused_settings


def test_a_level_the_model_lacks_is_sent_as_the_nearest_it_takes_and_named():
    fitted = fit(capabilities("openai/gpt-5.4"), GenerateConfig(reasoning_effort="minimal"))
    assert fitted.thinking is not None and fitted.thinking.effort == "low"
    assert fitted.dropped == ("reasoning_effort minimal (sent low, the nearest level it takes)",)
    assert fit(capabilities("openai/gpt-5"), GenerateConfig(reasoning_effort="max")).thinking.effort == "high"


def test_thinking_off_is_refused_in_one_line_where_the_model_cannot_turn_it_off():
    for spec in ("openai/gpt-5", "openai/gpt-5.4-pro", "google/gemini-3.1-pro-preview", "google/gemini-2.5-pro"):
        with pytest.raises(InputError, match=f"--reasoning-effort none: {spec} cannot turn thinking off") as info:
            fit(capabilities(spec), GenerateConfig(reasoning_effort="none"))
        assert "\n" not in str(info.value)
    assert fit(capabilities("google/gemini-2.5-flash"), GenerateConfig(reasoning_effort="none")).thinking.budget == 0
    assert fit(capabilities("anthropic/claude-sonnet-4-5"), GenerateConfig(reasoning_effort="none")).thinking is None


def test_a_thinking_budget_outside_the_models_bounds_is_one_line():
    with pytest.raises(
        InputError, match=r"thinking_budget 500 for anthropic/claude-sonnet-4-5: expected 1024 to 64000"
    ):
        fit(capabilities("anthropic/claude-sonnet-4-5"), GenerateConfig(max_tokens=4000, thinking_budget=500))
    given = fit(capabilities("google/gemini-2.5-pro"), GenerateConfig(max_tokens=4000, thinking_budget=200))
    assert given.thinking is not None and given.thinking.budget == 200


async def test_openai_compatible_round_trip_and_a_cut_off_reply(monkeypatch, openai_server):
    monkeypatch.setenv("LOCALFAKE_BASE_URL", openai_server.base_url)
    provider = get_provider("openai-api/localfake/fake-model")
    out = await provider.generate(USER, GenerateConfig(max_tokens=3, reasoning_effort="high"))
    assert out.finish_reason == "length" and out.output_tokens == 3  # limited through max_completion_tokens
    await provider.aclose()


@pytest.mark.parametrize("effort", ["minimal", "low", "medium", "high"])
def test_anthropic_extended_thinking_budget_per_level(effort):
    kwargs = body(
        "anthropic/claude-sonnet-4-5", GenerateConfig(max_tokens=REASONING_MAX_TOKENS, reasoning_effort=effort)
    )
    assert kwargs["thinking"] == {"type": "enabled", "budget_tokens": THINKING_BUDGET[effort]}
    assert kwargs["max_tokens"] == REASONING_MAX_TOKENS > THINKING_BUDGET[effort]


def test_claude_opus_4_7_thinks_adaptively_at_a_level_and_takes_no_sampling_settings():
    kwargs = body(
        "anthropic/claude-opus-4-7", GenerateConfig(temperature=0.0, max_tokens=9000, reasoning_effort="high")
    )
    assert kwargs["thinking"] == {"type": "adaptive"} and kwargs["output_config"] == {"effort": "high"}
    assert "temperature" not in kwargs and "budget_tokens" not in str(kwargs)


def test_a_budget_is_cut_to_leave_room_to_answer_and_refused_when_none_is_left():
    assert thinking_budget("high", 4096) == 3072
    with pytest.raises(InputError, match=r"--max-tokens 1500 leaves no room for thinking .* give --max-tokens 2048"):
        thinking_budget("low", 1500)


def test_anthropic_thinking_sends_no_sampling_settings(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    provider = get_provider("anthropic/claude-sonnet-4-5")
    kwargs = provider.request_kwargs(USER, GenerateConfig(temperature=0.0, max_tokens=9000, reasoning_effort="low"))
    assert kwargs["thinking"]["budget_tokens"] == 2048 and "temperature" not in kwargs
    assert provider.refused_settings == {"temperature 0.0 while it thinks"}
    with pytest.raises(InputError, match="leaves no room for thinking"):
        provider.check_config(GenerateConfig(max_tokens=1200, reasoning_effort="minimal"))
    provider.check_config(GenerateConfig(max_tokens=1200))  # no effort: nothing to check
    plain = provider.request_kwargs(USER, GenerateConfig(temperature=0.0, max_tokens=64))
    assert plain["temperature"] == 0.0 and "thinking" not in plain  # not thinking: temperature is taken


def test_google_thinking_budget_per_level_and_a_level_for_gemini_3():
    _, fields = body(
        "google/gemini-2.5-flash", GenerateConfig(max_tokens=REASONING_MAX_TOKENS, reasoning_effort="medium")
    )
    assert fields["thinking_config"] == {"thinking_budget": THINKING_BUDGET["medium"]}
    _, plain = body("google/gemini-2.5-flash", GenerateConfig(max_tokens=64))
    assert "thinking_config" not in plain
    _, level = body("google/gemini-3.1-pro-preview", GenerateConfig(max_tokens=9000, reasoning_effort="medium"))
    assert level["thinking_config"] == {"thinking_level": "MEDIUM"}


@pytest.fixture
def sdk_provider(request, openai_server, monkeypatch):
    if request.param == "anthropic":
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", openai_server.root_url)
        return get_provider("anthropic/claude-sonnet-4-5")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", openai_server.root_url)
    return get_provider("google/gemini-2.5-flash")


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
    # keys of calls stored before the fields existed hashed exactly these settings
    before = {"temperature": 0.0, "max_tokens": 512, "top_p": None, "seed": None, "stop": None}
    before |= {"logprobs": False, "choices": None}
    assert settings_dict(GenerateConfig(temperature=0.0, max_tokens=512)) == before
    assert settings_dict(GenerateConfig(reasoning_effort="medium"))["reasoning_effort"] == "medium"
    assert settings_dict(GenerateConfig(thinking_budget=2048))["thinking_budget"] == 2048


@pytest.mark.parametrize(
    ("spec", "effort", "max_tokens"),
    [
        ("mock/echo", None, 512),  # no thinking mode: as before
        ("openai/gpt-4.1", None, 512),
        ("openai/gpt-5.4", "medium", REASONING_MAX_TOKENS),  # thinks only when asked: App. D.1 asks medium
        ("openai/gpt-5", None, REASONING_MAX_TOKENS),  # thinks at its default (medium): nothing sent, room given
        ("anthropic/claude-opus-4-7", "high", REASONING_MAX_TOKENS),  # adaptive at its own default level
        ("anthropic/claude-sonnet-4-5", "medium", REASONING_MAX_TOKENS),  # a budget must be given: medium
        ("google/gemini-3.1-pro-preview", None, REASONING_MAX_TOKENS),  # thinks at high unless told
    ],
)
def test_respondent_defaults_are_app_d1(spec, effort, max_tokens):
    from cobe.run.respondents import respondent_settings

    settings = respondent_settings(EvalConfig(), capabilities(spec))
    temperature = None if spec.startswith("google/gemini-3") else 0.0  # Gemini 3 keeps its provider's default
    assert (settings.reasoning_effort, settings.max_tokens, settings.temperature) == (effort, max_tokens, temperature)
    off = respondent_settings(EvalConfig(reasoning_effort="none"), capabilities(spec))
    assert off.max_tokens == 512 and off.reasoning_effort == "none"
    given = respondent_settings(EvalConfig(reasoning_effort="low", max_tokens=3000), capabilities(spec))
    assert (given.reasoning_effort, given.max_tokens) == ("low", 3000)


def test_default_means_app_d1():
    default = EvalConfig(reasoning_effort="default")
    assert default.reasoning_effort is None and default.max_tokens is None
