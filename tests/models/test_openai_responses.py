"""The OpenAI Responses API: the request as the model's row says, an incomplete reply recorded as cut off (and so
unscored), reasoning tokens counted, any model served through it on request."""

from __future__ import annotations

import json

from cobe.models import GenerateConfig, Message, get_provider
from cobe.models.capabilities import capabilities
from cobe.models.fitting import fit
from cobe.models.model_args import ModelArgs
from cobe.models.openai_responses import read_response, responses_body
from cobe.run import EvalConfig, evaluate
from support.openai_server import contract_env
from support.run_data import write_dataset

USER = [Message(role="system", content="Be brief."), Message(role="user", content="Rewrite the story.")]


def test_the_body_names_what_the_responses_api_takes():
    caps = capabilities("openai/gpt-5.4-pro")
    body = responses_body(
        USER, fit(caps, GenerateConfig(temperature=0, max_tokens=900, seed=3, reasoning_effort="high"))
    )
    assert body == {
        "input": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Rewrite the story."}],
        "store": False,
        "max_output_tokens": 900,
        "reasoning": {"effort": "high"},
    }
    assert fit(caps, GenerateConfig(temperature=0, seed=3, reasoning_effort="high")).dropped == (
        "temperature 0.0 while it thinks",
        "seed 3",
    )


def test_a_reply_is_read_and_an_incomplete_one_is_cut_off():
    reply = {
        "status": "completed",
        "output": [
            {"type": "reasoning", "summary": []},
            {
                "type": "message",
                "content": [
                    {
                        "type": "output_text",
                        "text": "T",
                        "logprobs": [
                            {
                                "token": "T",
                                "logprob": -0.1,
                                "top_logprobs": [{"token": "T", "logprob": -0.1}, {"token": "F", "logprob": -2.5}],
                            }
                        ],
                    }
                ],
            },
        ],
        "usage": {"input_tokens": 40, "output_tokens": 300, "output_tokens_details": {"reasoning_tokens": 299}},
    }
    read = read_response(reply, logprobs=True)
    assert (read["text"], read["finish_reason"], read["output_tokens"], read["reasoning_tokens"]) == (
        "T",
        "stop",
        300,
        299,
    )
    assert read["first_token_logprobs"] == {"T": -0.1, "F": -2.5}
    cut = read_response({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": []})
    assert cut["text"] == "" and cut["finish_reason"] == "length"


async def test_a_limit_thinking_uses_up_answers_nothing_cut_off(strict_server, monkeypatch):
    for name, value in contract_env(strict_server).items():
        monkeypatch.setenv(name, value)
    provider = get_provider("openai/gpt-5.4-pro")
    out = await provider.generate(USER, GenerateConfig(max_tokens=100, reasoning_effort="medium"))
    assert out.text == "" and out.finish_reason == "length" and out.reasoning_tokens == 100
    assert out.sent == {"api": "responses", "store": False, "max_output_tokens": 100, "reasoning": {"effort": "medium"}}
    await provider.aclose()
    # any model through the Responses API on request: a model argument (or a models-file row) says so
    served = get_provider(
        "openai/gpt-5.4", ModelArgs.parse(["openai/gpt-5.4:api=responses"]).capabilities("openai/gpt-5.4")
    )
    answer = await served.generate(USER, GenerateConfig(max_tokens=2000, reasoning_effort="low"))
    assert answer.text and answer.sent is not None and answer.sent["api"] == "responses"
    await served.aclose()
    stats = strict_server.stats()
    assert stats["endpoints"] == {"responses": 2} and stats["refused"] == 0


def test_a_respondent_cut_off_by_max_output_tokens_is_unscored_without_a_judge_call(
    strict_server, monkeypatch, tmp_path
):
    data_file = write_dataset(tmp_path / "data.jsonl", 2)
    for name, value in contract_env(strict_server).items():
        monkeypatch.setenv(name, value)
    config = EvalConfig(
        data=str(data_file),
        models=["openai/gpt-5.4-pro"],
        judge="mock/judge-pass",
        model_args=["openai/gpt-5.4-pro:max_tokens=270"],  # medium thinking takes 256 of them on the fake
        run_dir=tmp_path / "run",
    )
    summary = evaluate(config)
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert rows and all(row["status"] == "unscored" for row in rows)
    assert summary.summary["models"]["openai/gpt-5.4-pro"]["unjudged"]["truncated"] == len(rows)
    assert summary.stats["judge"]["calls_made"] == 0 and strict_server.stats()["refused"] == 0
