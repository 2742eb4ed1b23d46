"""The capability table against the contract fakes: every row, as respondent and as judge, at the defaults and at
each level it takes, sends nothing the real API refuses; and the table's own rules (matching, files, arguments)."""

from __future__ import annotations

import pytest

from cobe.core.errors import InputError
from cobe.judge.judge_plan import plan_judges
from cobe.judge.parse import parse_verdict
from cobe.judge.prompt_sets import load_judge_prompts
from cobe.models import Message, get_provider
from cobe.models.capabilities import Row, bundled_table, capabilities, model_name
from cobe.models.model_args import ModelArgs
from cobe.prompts.render import respondent_messages, select_templates
from cobe.run.config import EvalConfig
from cobe.run.respondents import respondent_settings
from support.openai_server import contract_env

ROWS = bundled_table().rows
PREFIX = {"local": "mock", "openai-api": "openai-api/contract"}


def spec_of(row: Row) -> str:
    """The spec a row's example model goes by."""
    name = row.example or row.match
    return f"{PREFIX.get(row.provider, row.provider)}/{name}"


def judge_spec_of(row: Row) -> str:
    """A model of the row that can judge (the local rows' example echoes its prompt)."""
    return "mock/judge-pass" if row.provider == "local" else spec_of(row)


@pytest.fixture
def contract(strict_server, monkeypatch):
    for name, value in contract_env(strict_server).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CONTRACT_BASE_URL", strict_server.base_url)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    return strict_server


def test_every_row_is_reached_by_its_example_and_every_provider_has_a_full_fallback():
    for row in ROWS:
        assert row.example or "*" not in row.match, f"{row.provider} {row.match}: a pattern row needs an example"
        caps = capabilities(spec_of(row))
        assert caps.rows[-1] == f"{row.provider} {row.match}", (spec_of(row), caps.rows)
    fallbacks = {row.provider: row for row in ROWS if row.match == "*"}
    assert set(fallbacks) == {"openai", "openai-api", "anthropic", "google", "local"}
    for row in fallbacks.values():  # every field set, so every model of the provider resolves
        assert set(row.fields_set()) == set(Row.model_fields) - {"provider", "match", "example"}


@pytest.mark.parametrize("row", ROWS, ids=lambda row: f"{row.provider}:{row.match}")
async def test_every_row_sends_nothing_its_api_refuses(row, contract, scenario):
    """Respondent and judge, at the defaults (App. D.1) and at each level the model takes: no refusal, an
    answer (never starved by its token limit), and a judge's letter read back."""
    spec, judge_spec = spec_of(row), judge_spec_of(row)
    caps = capabilities(spec)
    levels: list[str | None] = [None, *caps.efforts] if caps.reasoning not in ("none", "fixed") else [None]
    template = select_templates(["A"], None)[0]
    rewrite = respondent_messages(scenario, template)
    assert rewrite is not None
    prompts = load_judge_prompts("paper")
    for effort in levels:
        settings = respondent_settings(EvalConfig(reasoning_effort=effort), caps)
        provider = get_provider(spec, caps)
        provider.check_config(settings)
        answer = await provider.generate(list(rewrite), settings)
        assert answer.text and answer.finish_reason != "length", (spec, effort, answer)
        await provider.aclose()

        args = ModelArgs.parse([f"{judge_spec}:reasoning_effort={effort}"] if effort else [])
        plan, _ = plan_judges(judge_spec, prompts, models=args)
        member = plan.members[0]
        judge = get_provider(judge_spec, member.capabilities)
        judge.check_config(member.settings)
        messages: list[Message] = prompts.messages("preserve", scenario, answer.text)
        verdict = await judge.generate(messages, member.settings)
        assert parse_verdict(verdict.text) == ("T", None), (judge_spec, effort, verdict)
        await judge.aclose()
    stats = contract.stats()
    assert stats["refused"] == 0, stats["refusals"]


def test_the_contract_fake_refuses_what_cobe_once_sent():
    """The fake is strict where it matters: the requests of issue 20 are refused as the real APIs refuse them."""
    from support.contracts import refusal, thinking_spend

    too_old = refusal("openai", "gpt-5.4", {"messages": [{}], "max_tokens": 512, "temperature": 0})
    assert too_old is not None and too_old.status == 400
    assert too_old.body["error"]["code"] == "unsupported_parameter" and too_old.body["error"]["param"] == "max_tokens"
    pro = refusal("openai", "gpt-5.4-pro", {"messages": [{}], "max_completion_tokens": 9})
    assert pro is not None and pro.status == 404
    judge = refusal("openai", "gpt-5", {"messages": [{}], "max_completion_tokens": 5, "temperature": 0})
    assert judge is not None and judge.body["error"]["code"] == "unsupported_value"
    assert thinking_spend("openai", "gpt-5", {"max_completion_tokens": 5}) > 5  # 5 tokens: no room to answer
    budget = refusal(
        "anthropic",
        "claude-sonnet-4-5",
        {"messages": [{}], "max_tokens": 1000, "thinking": {"type": "enabled", "budget_tokens": 2000}},
    )
    assert budget is not None and budget.body["type"] == "error"
    assert budget.body["error"]["type"] == "invalid_request_error"
    hot = refusal(
        "anthropic",
        "claude-sonnet-4-5",
        {
            "messages": [{}],
            "max_tokens": 9000,
            "temperature": 0,
            "thinking": {"type": "enabled", "budget_tokens": 2000},
        },
    )
    assert hot is not None and "temperature" in hot.body["error"]["message"]
    assert refusal("anthropic", "claude-opus-4-7", {"messages": [{}], "max_tokens": 9, "temperature": 0}) is not None
    off = refusal(
        "google", "gemini-2.5-pro", {"contents": [{}], "generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}}
    )
    assert off is not None and off.body["error"]["status"] == "INVALID_ARGUMENT"
    assert refusal("openai", "my-vllm-model", {"messages": [{}], "max_tokens": 9, "temperature": 0}) is None


async def test_a_reasoning_judge_given_five_tokens_answers_nothing_on_the_contract_fake(contract):
    from cobe.models import GenerateConfig

    provider = get_provider("openai/gpt-5")
    messages = [Message(role="user", content="Answer with exactly one letter: T or F.")]
    starved = await provider.generate(messages, GenerateConfig(max_tokens=5))
    assert starved.text == "" and starved.finish_reason == "length" and starved.reasoning_tokens == 5
    await provider.aclose()


def test_rows_of_a_models_file_are_laid_over_the_table(tmp_path):
    rows = tmp_path / "models.yaml"
    rows.write_text(
        "rows:\n"
        "  - {provider: openai, match: my-reasoner, reasoning: effort, efforts: [low, high], provider_default: none,"
        " default_effort: high}\n"
        "  - {provider: openai, match: gpt-5.4, api: responses, token_param: max_output_tokens}\n"
    )
    mine = capabilities("openai/my-reasoner", rows)
    assert (mine.reasoning, mine.efforts, mine.default_effort) == ("effort", ("low", "high"), "high")
    assert mine.token_param == "max_completion_tokens"  # the rest from the provider's row
    served = capabilities("openai/gpt-5.4", rows)
    assert served.api == "responses" and served.efforts == capabilities("openai/gpt-5.4").efforts
    assert capabilities("openai/gpt-5.4-mini", rows).api == "chat"  # an exact name matches that name only


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("rows:\n  - {provider: openai, match: x, effors: [low]}\n", "row 1 (openai x): unknown field 'effors'"),
        ("rows:\n  - {provider: openai, match: x, api: grpc}\n", "row 1 (openai x): field 'api'"),
        ("rows:\n  - {provider: openai}\n", "row 1: field 'match' is required"),
        ("model_rows: []\n", "unknown key(s) model_rows"),
    ],
)
def test_a_models_file_with_a_typo_is_one_line_naming_the_row_and_field(tmp_path, text, needle):
    rows = tmp_path / "models.yaml"
    rows.write_text(text)
    with pytest.raises(InputError) as info:
        capabilities("openai/x", rows)
    assert needle in str(info.value) and str(rows) in str(info.value) and "\n" not in str(info.value)


def test_model_arguments_set_generation_settings_and_capability_fields_per_model():
    args = ModelArgs.parse(
        ["openai/gpt-5.4:reasoning_effort=high", "openai/gpt-5.4:api=responses", "mock/file:x.json:temperature=0.5"]
    )
    from cobe.models import GenerateConfig

    assert args.settings("openai/gpt-5.4", GenerateConfig(temperature=0)).reasoning_effort == "high"
    assert args.capabilities("openai/gpt-5.4").api == "responses"
    assert args.settings("mock/file:x.json", GenerateConfig()).temperature == 0.5  # a spec may hold ':'
    for bad, needle in [
        ("openai/gpt-5.4:reasoning_effort=extreme", "reasoning_effort='extreme'"),
        ("openai/gpt-5.4:effort=high", "unknown field 'effort'"),
        ("openai/gpt-5.4=high", "expected SPEC:FIELD=VALUE"),
        ("openai/gpt-5.4:api=grpc", "openai/gpt-5.4:api='grpc'"),
    ]:
        with pytest.raises(InputError, match="--model-arg") as info:
            ModelArgs.parse([bad])
        assert needle in str(info.value) and "\n" not in str(info.value)


def test_openai_api_rows_match_the_model_behind_the_service():
    assert model_name("openai-api/vllm/meta-llama/Llama-3.1-8B") == ("openai-api", "meta-llama/Llama-3.1-8B")
    assert model_name("llamacpp/x.gguf") == ("local", "x.gguf")
