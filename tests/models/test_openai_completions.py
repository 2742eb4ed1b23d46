"""A base model behind an OpenAI-compatible server, asked through the completions endpoint (`/v1/completions`) in
the plain completion format the embedded base model reads (issue 39, item 6)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from cobe.models import GenerateConfig, Message, get_provider
from cobe.models.fitting import fit
from cobe.models.model_args import ModelArgs
from cobe.models.openai_completions import completions_body, read_completion
from support.cli import assert_one_line_error, run_cobe
from support.run_data import write_dataset

SPEC = "openai-api/fake/base-model"
BASE = [f"{SPEC}:api=completions"]
USER = [Message(role="user", content="A story.\n\nRewrite it.\n\nRewritten story:")]
JUDGE = GenerateConfig(temperature=0, max_tokens=5, logprobs=True, choices=("T", "F"))


def _caps(spec: str = SPEC):
    return ModelArgs.parse([f"{spec}:api=completions"]).capabilities(spec)


def test_the_row_says_what_the_endpoint_takes():
    caps = _caps()
    assert (caps.api, caps.token_param, caps.reasoning) == ("completions", "max_tokens", "none")
    # a base model does not think: a level asked of it is not sent, and said once
    assert fit(caps, GenerateConfig(reasoning_effort="high")).thinking is None


def test_the_body_is_one_plain_prompt_with_the_stops_of_a_base_model():
    body = completions_body(USER, fit(_caps(), GenerateConfig(temperature=0, max_tokens=40, seed=2)))
    # the prompt ends with its own answer cue, as the embedded model's does; a base model's invented next turn stops
    assert body == {
        "prompt": "A story.\n\nRewrite it.\n\nRewritten story:",
        "max_tokens": 40,
        "temperature": 0.0,
        "seed": 2,
        "stop": ["\nUser:"],
    }
    judged = completions_body([Message(role="user", content="Is it kept? T or F.")], fit(_caps(), JUDGE), JUDGE.choices)
    assert judged["prompt"].endswith("\n\nAnswer:") and judged["logprobs"] == 5 and judged["max_tokens"] == 5


def _completion(text: str, finish: str = "stop", top: dict[str, float] | None = None) -> dict:
    logprobs = {"tokens": ["x"], "token_logprobs": [-1.0], "top_logprobs": [top], "text_offset": [0]} if top else None
    return {
        "object": "text_completion",
        "choices": [{"text": text, "index": 0, "logprobs": logprobs, "finish_reason": finish}],
        "usage": {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42},
    }


def test_the_answer_is_the_first_paragraph_and_a_paragraph_end_is_no_cut():
    # a base model goes on to invent the next example until its limit: the first paragraph is the answer, whole
    read = read_completion(_completion(" The shop stayed open.\n\nRewrite the text again.", finish="length"))
    assert (read["text"], read["finish_reason"], read["input_tokens"], read["output_tokens"]) == (
        "The shop stayed open.",
        "stop",
        30,
        12,
    )
    # no paragraph end before the limit: cut off, and so left unscored like any cut-off reply
    assert read_completion(_completion(" The shop stayed", finish="length"))["finish_reason"] == "length"


def test_a_judge_question_takes_the_likelier_choice_among_the_first_tokens():
    # what the one-slot llama.cpp server answered a paper judge prompt (issue 39): '\n<rewrite>\n' as text, with
    # ' T' and ' F' among its first token's alternatives; the embedded model reads the same choice from its logits
    top = {"\n": -1.23, "\n\n": -2.58, " T": -2.62, ' "': -2.65, " F": -3.08}
    read = read_completion(_completion("\n<rewrite>\n", top=top), logprobs=True, choices=("T", "F"))
    assert (read["text"], read["finish_reason"]) == ("T", "choice") and read["first_token_logprobs"] == top
    # neither choice among them: the text as written, which the verdict parser then reads or leaves unscored
    plain = read_completion(_completion(" Yes, it is", top={" Yes": -1.7, " No": -3.1}), choices=("T", "F"))
    assert plain["text"] == "Yes, it is" and plain["first_token_logprobs"] is None


async def test_a_provider_asks_the_completions_endpoint_of_the_contract_fake(strict_server, monkeypatch):
    monkeypatch.setenv("FAKE_BASE_URL", strict_server.base_url)
    provider = get_provider(SPEC, _caps())
    assert provider.chat_template is False and provider.endpoint == f"{strict_server.base_url}/completions"
    answer = await provider.generate(USER, GenerateConfig(temperature=0, max_tokens=64))
    verdict = await provider.generate([Message(role="user", content="Answer with exactly one letter: T or F")], JUDGE)
    await provider.aclose()
    assert answer.text.startswith("Instead, A story.") and answer.sent is not None
    assert answer.sent == {"api": "completions", "max_tokens": 64, "temperature": 0.0, "stop": ["\nUser:"]}
    assert (verdict.text, verdict.finish_reason) == ("T", "choice")
    stats = strict_server.stats()
    assert stats["endpoints"] == {"completions": 2} and stats["refused"] == 0
    # the same spec through chat is another endpoint: no reply of one answers for the other
    assert get_provider(SPEC).endpoint == strict_server.base_url


def _post(server, body: dict) -> int:
    request = urllib.request.Request(
        f"{server.base_url}/completions", json.dumps(body).encode(), {"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status
    except urllib.error.HTTPError as refused:
        return refused.code


def test_the_contract_fake_refuses_what_openais_completions_endpoint_refuses(strict_server):
    prompt = {"model": "base-model", "prompt": "x"}
    assert _post(strict_server, {"model": "base-model", "messages": [{"role": "user", "content": "x"}]}) == 400
    assert _post(strict_server, prompt | {"logprobs": 20}) == 400  # five alternatives at most
    assert _post(strict_server, prompt | {"top_logprobs": 5}) == 400  # chat's name, not this endpoint's
    assert _post(strict_server, prompt | {"stop": ["a", "b", "c", "d", "e"]}) == 400
    assert _post(strict_server, {"model": "gpt-4o", "prompt": "x"}) == 404  # a chat model is not served here
    assert _post(strict_server, prompt | {"max_tokens": 5, "logprobs": 5, "stop": ["\nUser:"]}) == 200
    assert _post(strict_server, {"model": "gpt-3.5-turbo-instruct", "prompt": "x"}) == 200
    assert strict_server.stats()["refused"] == 5


def test_a_base_model_runs_end_to_end_through_the_completions_endpoint(strict_server, tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 2)
    env = {"FAKE_BASE_URL": strict_server.base_url, "FAKE_API_KEY": None}
    args = ["eval", "-m", SPEC, "-j", SPEC, "-M", BASE[0], "--data", str(data), "--templates", "A"]
    done = run_cobe(*args, "--run-dir", "r", "--no-report", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "r" / "results.jsonl").read_text().splitlines()]
    # the respondent's prompt in the completion format the embedded model reads; every check judged T or F
    assert len(rows) == 2 and all(row["prompt"].endswith("Rewritten story:") for row in rows)
    assert all(row["status"] == "passed" for row in rows)
    stats = strict_server.stats()
    assert stats["endpoints"] == {"completions": stats["requests"]} and stats["refused"] == 0
    settings = json.loads((tmp_path / "r" / "summary.json").read_text())["settings"]
    assert "completions" in json.dumps(settings)


@pytest.mark.parametrize("model", ["gpt-4.1", "gpt-5.4"])
def test_a_chat_model_asked_there_is_refused_in_one_line(strict_server, tmp_path, model):
    env = {"OPENAI_BASE_URL": strict_server.base_url, "OPENAI_API_KEY": "test-openai-key"}
    spec = f"openai/{model}"
    done = run_cobe("models", "check", spec, "-M", f"{spec}:api=completions", "--run-dir", "r", cwd=tmp_path, env=env)
    assert_one_line_error(done, spec)
    assert "v1/completions" in done.stdout and strict_server.stats()["endpoints"] == {"completions": 2}
