"""Judges on reasoning models, decided in one place (`plan_judges`): room to think and answer, no refused setting,
logprobs only where a model returns them, and a model's own arguments honoured."""

from __future__ import annotations

import pytest

from cobe.judge.judge_plan import plan_judges
from cobe.models.model_args import ModelArgs
from cobe.models.reasoning import REASONING_MAX_TOKENS


def member(spec: str, *args: str):
    plan, _ = plan_judges(spec, "paper", models=ModelArgs.parse(list(args)))
    return plan.members[0]


@pytest.mark.parametrize(
    ("spec", "max_tokens", "logprobs"),
    [
        ("mock/judge-pass", 5, True),  # the prompt set's settings, as before
        ("openai/gpt-4.1", 5, True),
        ("openai/gpt-5.4", 5, True),  # does not think unless asked: answers its letter in 5 tokens, with logprobs
        ("openai/gpt-5", REASONING_MAX_TOKENS, False),  # always thinks: 5 tokens would all go to thinking
        ("openai/gpt-5.4-pro", REASONING_MAX_TOKENS, False),
        ("anthropic/claude-opus-4-7", 5, False),  # no thinking unless asked; Anthropic returns no logprobs
        ("google/gemini-2.5-pro", REASONING_MAX_TOKENS, False),  # thinks as much as it decides
        ("google/gemini-2.0-flash", 5, True),
    ],
)
def test_a_judge_gets_room_to_think_and_logprobs_only_where_returned(spec, max_tokens, logprobs):
    settings = member(spec).settings
    assert (settings.max_tokens, settings.logprobs, settings.temperature) == (max_tokens, logprobs, 0.0)


def test_a_judge_asked_to_think_gets_room_and_its_own_token_limit_stays_as_given():
    thinking = member("openai/gpt-5.4", "openai/gpt-5.4:reasoning_effort=low").settings
    assert (thinking.reasoning_effort, thinking.max_tokens, thinking.logprobs) == ("low", REASONING_MAX_TOKENS, False)
    given = member("openai/gpt-5", "openai/gpt-5:max_tokens=2000").settings
    assert given.max_tokens == 2000


def test_the_responses_api_least_limit_is_a_floor_for_a_judge_that_does_not_think(tmp_path):
    assert member("openai/gpt-4.1").settings.max_tokens == 5  # chat completions take 5
    switched = member("openai/gpt-4.1", "openai/gpt-4.1:api=responses")
    assert switched.settings.max_tokens == 16 and switched.capabilities.token_param == "max_output_tokens"
    assert "seed" not in switched.capabilities.sampling  # the Responses API has no seed
    rows = tmp_path / "models.yaml"
    rows.write_text("rows:\n  - {provider: openai, match: gpt-4.1, api: responses}\n")
    plan, _ = plan_judges("openai/gpt-4.1", "paper", models=ModelArgs.parse([], rows))
    assert plan.members[0].settings.max_tokens == 16 and plan.members[0].capabilities.api == "responses"
