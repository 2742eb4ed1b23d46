"""The plain completion format for base models: data, rendering, and its selection by provider capability."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.models.base import GenerateConfig, Message, ModelOutput, Provider
from cobe.models.registry import register
from cobe.prompts.completion import COMPLETION_FILE, completion_messages, load_completion_format
from cobe.run.config import EvalConfig
from cobe.run.engine import evaluate
from cobe.run.plan import plan_run
from support.run_data import write_dataset


class BaseModel(Provider):
    """A base model without a chat template: it echoes the end of its prompt."""

    chat_template = False

    async def generate(self, messages, config, *, scenario=None) -> ModelOutput:
        return ModelOutput(text="A rewritten story.", finish_reason="stop")


register("test-base")(lambda spec, model: BaseModel(spec, "test-base", model))


def test_the_bundled_format_shows_one_worked_rewrite_then_the_request_then_the_cue():
    form = load_completion_format()
    text = form.render("A story.\n\nRewrite it had X.")
    assert form.cue == "Rewritten story:"
    assert text.endswith("A story.\n\nRewrite it had X.\n\nRewritten story:")
    assert text.count("Rewritten story:") == 2  # the worked example's answer, then ours
    assert "{" not in text  # every placeholder filled


def test_braces_in_a_story_survive():
    (message,) = completion_messages([Message(role="user", content="Set {x} to 3.")])
    assert "Set {x} to 3.\n\nRewritten story:" in message.content and message.role == "user"


@pytest.mark.parametrize(
    ("content", "needle"),
    [("- not a mapping\n", "expected a mapping"), ("cue: 'A:'\ntext: 'no request here'\n", "{request}")],
)
def test_a_broken_format_file_is_one_line(tmp_path, content, needle):
    path = tmp_path / "format.yaml"
    path.write_text(content)
    with pytest.raises(InputError, match=needle.replace("{", r"\{").replace("}", r"\}")):
        load_completion_format(path)
    assert COMPLETION_FILE.is_file()


def test_base_models_get_the_completion_format_and_chat_models_do_not(tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 2)
    config = EvalConfig(
        models=["test-base/m", "mock/echo"], judge="mock/judge-pass", data=str(data), run_dir=tmp_path / "r"
    )
    plan = plan_run(config)
    base = [i for i in plan.items if i.model == "test-base/m"]
    chat = [i for i in plan.items if i.model == "mock/echo"]
    assert all(i.prompt.endswith("Rewritten story:") for i in base)
    assert not any("Rewritten story:" in i.prompt for i in chat)
    assert base[0].prompt.endswith(chat[0].prompt + "\n\nRewritten story:")


def test_the_format_is_in_the_stored_call_and_the_query_stays_the_requests(tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 2)
    config = EvalConfig(models=["test-base/m"], judge="mock/judge-pass", data=str(data), run_dir=tmp_path / "r")
    evaluate(config)
    rows = [json.loads(line) for line in (Path(tmp_path / "r") / "results.jsonl").read_text().splitlines()]
    assert all(row["prompt"].endswith("Rewritten story:") for row in rows)
    assert rows[0]["query"].startswith("Rewrite the original text") and "Rewritten story" not in rows[0]["query"]
    import sqlite3

    db = sqlite3.connect(tmp_path / "r" / "cobe.sqlite")
    requests = [json.loads(r[0]) for r in db.execute("SELECT request FROM calls WHERE role = 'respondent'")]
    assert requests and all(r["messages"][-1]["content"].endswith("Rewritten story:") for r in requests)
    db.close()


def test_the_format_changes_the_call_key():
    from cobe.calls.caller import Caller

    chat = [Message(role="user", content="A story.\n\nRewrite it had X.")]
    provider = BaseModel("test-base/m", "test-base", "m")
    _, chat_key = Caller.request(provider, chat, GenerateConfig())
    _, completion_key = Caller.request(provider, completion_messages(chat), GenerateConfig())
    assert chat_key != completion_key
