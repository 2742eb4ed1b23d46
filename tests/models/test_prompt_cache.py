"""Prompt caching on the provider side: the judge prompt's constant head comes first and is marked where the
provider takes a mark (Anthropic), and every API's cached-token counts are read back."""

from __future__ import annotations

import re

import pytest

from cobe.calls.keys import RequestKeys
from cobe.judge.prompt_sets import JUDGES_DIR, constant_head, load_judge_prompts
from cobe.models.anthropic_chat import CACHE_CONTROL, message_content, message_kwargs
from cobe.models.base import GenerateConfig, Message
from cobe.models.capabilities import capabilities
from cobe.models.fitting import fit
from cobe.models.usage import Usage, anthropic_usage, google_usage, openai_usage

CHECKS = ("connectors", "preserve", "change")


@pytest.mark.parametrize("check", CHECKS)
def test_the_paper_set_puts_its_instructions_and_every_worked_example_before_the_material(check):
    text = load_judge_prompts("paper").texts[check]
    head = constant_head(text)
    assert head and not re.search(r"\{\w+\}|\$\w", head)  # no placeholder: the same on every call
    examples = re.findall(r"^Example \d+", text, flags=re.M)
    assert examples and re.findall(r"^Example \d+", head, flags=re.M) == examples
    assert len(head) >= 0.8 * len(text.strip())  # what a cache can hold is most of each call


@pytest.mark.parametrize("name", sorted(p.name for p in JUDGES_DIR.iterdir() if p.is_dir()))
def test_a_marked_message_begins_with_its_head_and_keeps_its_key(name, scenario):
    prompts = load_judge_prompts(name)
    keys = RequestKeys()
    for check in CHECKS:
        plain = prompts.messages(check, scenario, "Instead, the shop closed early.")
        marked = prompts.messages(check, scenario, "Instead, the shop closed early.", cache=True)
        assert plain[-1].cache_prefix == 0 and [m.content for m in plain] == [m.content for m in marked]
        head = marked[-1].content[: marked[-1].cache_prefix]
        assert head == constant_head(prompts.texts[check])[: len(head)] and head
        settings = GenerateConfig(temperature=0, max_tokens=5)
        assert keys.request("a/b", "b", settings, plain) == keys.request("a/b", "b", settings, marked)
        assert "cache_prefix" not in marked[-1].model_dump()  # `cobe prompts show --json` prints what it did


def test_anthropic_sends_the_head_as_a_block_marked_for_the_cache():
    message = Message(role="user", content="Rules and examples. Material: X", cache_prefix=20)
    blocks = message_content(message)
    assert blocks == [
        {"type": "text", "text": "Rules and examples. ", "cache_control": CACHE_CONTROL},
        {"type": "text", "text": "Material: X"},
    ]
    assert message_content(Message(role="user", content="no head")) == "no head"
    fitted = fit(capabilities("anthropic/claude-sonnet-4-5"), GenerateConfig(max_tokens=5))
    kwargs = message_kwargs([Message(role="system", content="S"), message], fitted)
    assert kwargs["system"] == "S" and kwargs["messages"] == [{"role": "user", "content": blocks}]


def test_each_api_reports_cached_tokens_in_its_own_words():
    chat = {"prompt_tokens": 900, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 768}}
    assert openai_usage(chat) == Usage(900, 1, 768)
    responses = {"input_tokens": 900, "output_tokens": 3, "input_tokens_details": {"cached_tokens": 640}}
    assert openai_usage(responses) == Usage(900, 3, 640)
    # Anthropic counts only the tokens after the cached prefix as input_tokens
    read = {"input_tokens": 40, "output_tokens": 1, "cache_read_input_tokens": 600, "cache_creation_input_tokens": 0}
    assert anthropic_usage(read) == Usage(640, 1, 600, 0)
    written = {"input_tokens": 40, "output_tokens": 1, "cache_creation_input_tokens": 600}
    assert anthropic_usage(written) == Usage(640, 1, 0, 600)
    assert google_usage(
        {"prompt_token_count": 900, "candidates_token_count": 2, "cached_content_token_count": 512}
    ) == (Usage(900, 2, 512))
    assert openai_usage(None) == anthropic_usage(None) == google_usage(None) == Usage()
    assert openai_usage({"prompt_tokens": 5, "completion_tokens": 1, "prompt_tokens_details": None}) == Usage(5, 1)
