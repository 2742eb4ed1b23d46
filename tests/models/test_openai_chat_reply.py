"""A chat completion read from its JSON (live calls and Batch API lines): what cobe records, and the replies that
hold no answer, which become errored calls instead of empty answers a judge would score."""

from __future__ import annotations

import pytest

from cobe.calls.scheduler import Scheduler
from cobe.models import GenerateConfig, Message, get_provider
from cobe.models.openai_chat_reply import read_chat
from cobe.models.openai_responses import FailedReply

USER = [Message(role="user", content="Rewrite the story had the ferry left an hour late.")]


def completion(**choice: object) -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "T"}, "finish_reason": "stop"} | choice],
        "usage": {
            "prompt_tokens": 40,
            "completion_tokens": 12,
            "prompt_tokens_details": {"cached_tokens": 32},
            "completion_tokens_details": {"reasoning_tokens": 10},
        },
    }


def test_fields_cobe_records():
    alternatives = [{"token": "T", "logprob": -0.1, "bytes": None}, {"token": "F", "logprob": -2.4, "bytes": None}]
    body = completion(logprobs={"content": [{"token": "T", "logprob": -0.1, "top_logprobs": alternatives}]})
    read = read_chat(body, logprobs=True)
    assert read["text"] == "T" and read["finish_reason"] == "stop"
    assert (read["input_tokens"], read["output_tokens"], read["cached_input_tokens"]) == (40, 12, 32)
    assert read["reasoning_tokens"] == 10
    assert read["first_token_logprobs"] == {"T": -0.1, "F": -2.4}
    assert read_chat(body)["first_token_logprobs"] is None  # not asked for: not recorded


def test_a_cut_off_reply_and_a_reply_without_text():
    assert read_chat(completion(finish_reason="length"))["finish_reason"] == "length"
    refusal = completion(message={"role": "assistant", "content": None, "refusal": "I can't help with that."})
    assert read_chat(refusal)["text"] == ""  # a refusal is an empty answer, judged as such
    bare = {"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}]}  # no usage: zero tokens
    assert read_chat(bare)["input_tokens"] == 0 and read_chat(bare)["reasoning_tokens"] == 0


@pytest.mark.parametrize(
    "body",
    [
        {"choices": []},
        {"object": "chat.completion"},
        {"choices": None},
        {"choices": ["T"]},
        "<html>busy</html>",
        None,
        {"choices": [{"index": 0, "message": None, "finish_reason": "stop"}]},  # issue 43, item 2
        {"choices": [{"index": 0, "finish_reason": "stop"}]},
        {"choices": [{"index": 0, "message": "T", "finish_reason": "stop"}]},
    ],
)
def test_a_reply_with_no_choice_is_a_failure(body):
    with pytest.raises(FailedReply):
        read_chat(body)


@pytest.mark.parametrize(
    "body",
    [
        '{"id": "x", "choices": []}',
        "<html><body>Bad gateway</body></html>",
        '{"id": "x", "choices": [{"index": 0, "message": null, "finish_reason": "stop"}]}',
    ],
)
async def test_a_200_with_no_choice_is_an_errored_call_not_an_empty_answer(openai_server, monkeypatch, body):
    """Through the scheduler, as a run makes the call: one request, an error naming what was wrong, no output."""
    monkeypatch.setenv("LOCALFAKE_BASE_URL", openai_server.base_url)
    provider = get_provider("openai-api/localfake/fake-model")
    openai_server.control(fail_status=200, fail_body=body)
    outcome = await Scheduler(max_retries=2, backoff=0.01).run(provider, USER, GenerateConfig())
    assert outcome.output is None and outcome.error is not None
    assert "FailedReply" in outcome.error
    assert openai_server.stats()["requests"] == 1  # the same reply would come again: not retried
    await provider.aclose()


def test_models_check_names_a_reply_whose_message_is_null(openai_server, tmp_path):
    """A 200 whose choice holds `message: null` is no answer: `models check` says so, as for a failed response."""
    from support.cli import run_cobe

    body = '{"id": "x", "choices": [{"index": 0, "message": null, "finish_reason": "stop"}]}'
    openai_server.control(fail_status=200, fail_body=body)
    env = {"FAKE_BASE_URL": openai_server.base_url, "FAKE_API_KEY": "sk-test-0123456789abcdefghij"}
    checked = run_cobe("models", "check", "openai-api/fake/fake-model", "--run-dir", str(tmp_path / "c"), env=env)
    assert checked.returncode != 0 and "Traceback" not in checked.stderr
    assert "holds no message" in checked.stdout + checked.stderr, (checked.stdout, checked.stderr)
