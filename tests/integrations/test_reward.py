"""The GRPO reward function: TRL's calling contract, without TRL; cached, resumable and costed judging."""

from __future__ import annotations

import pytest
from integration_runs import JUDGE, response

from cobe.core.errors import InputError
from cobe.integrations.reward import CobeReward, grpo_rows


def batch(rows: list[dict], completions: list) -> dict:
    """What GRPOTrainer passes a reward function: prompts, completions, ids, and every other column as a list."""
    return {
        "prompts": [r["prompt"] for r in rows],
        "completions": completions,
        "completion_ids": [[1, 2, 3] for _ in completions],
        "scenario_id": [r["scenario_id"] for r in rows],
        "template": [r["template"] for r in rows],
        "trainer_state": object(),  # newer TRL adds its state; a reward function must accept and ignore it
    }


@pytest.fixture
def rows(workdir) -> list[dict]:
    by_key = {(r["scenario_id"], r["template"]): r for r in grpo_rows("data.jsonl")}
    return [by_key[("1v0", "A")], by_key[("1v0", "B")], by_key[("1v0", "C")], by_key[("3v0", "A")]]


def completions(rows: list[dict], model: str = "mock/file:model_a.yaml") -> list[str]:
    return [response(model, int(r["scenario_id"][0]), r["template"]) for r in rows]


def test_grpo_rows_hold_a_conversational_prompt_and_the_columns_the_reward_reads(workdir):
    rows = grpo_rows("data.jsonl", templates=["A", "B"])
    assert len(rows) == 8 and set(rows[0]) == {"prompt", "scenario_id", "template"}
    assert rows[0]["prompt"][-1]["role"] == "user" and "baker 1 closed early" in rows[0]["prompt"][-1]["content"]


def test_one_reward_per_completion_by_the_pass_rule(rows, tmp_path):
    reward = CobeReward(JUDGE, "data.jsonl", store=tmp_path / "reward.sqlite")
    # 1A clean, 1B fails every check, 1C cannot be judged, 3A fails the change check
    assert reward(**batch(rows, completions(rows))) == [1.0, 0.0, None, 0.0]
    assert reward.__name__ == "cobe"  # TRL logs each reward function under its __name__


def test_conversational_completions_and_partial_credit(rows, tmp_path):
    reward = CobeReward(JUDGE, "data.jsonl", store=tmp_path / "reward.sqlite", partial=True)
    chats = [[{"role": "assistant", "content": text}] for text in completions(rows)]
    assert reward(**batch(rows, chats)) == pytest.approx([1.0, 0.0, None, 2 / 3])


def test_judging_is_cached_and_resumes_from_the_store(rows, tmp_path):
    store = tmp_path / "reward.sqlite"
    first = CobeReward(JUDGE, "data.jsonl", store=store)
    scores = first(**batch(rows, completions(rows)))
    assert first.totals["calls_made"] > 0
    again = CobeReward(JUDGE, "data.jsonl", store=store)  # a new process after a crash, on the same store
    assert again(**batch(rows, completions(rows))) == scores
    assert again.totals["calls_made"] == 0 and again.totals["calls_cached"] == first.totals["calls_made"]


def test_tokens_and_cost_add_up(rows, tmp_path, openai_server, monkeypatch):
    monkeypatch.setenv("FAKE_BASE_URL", openai_server.base_url)
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  fake-model: {input: 1000, output: 2000}\n", encoding="utf-8")
    monkeypatch.setenv("COBE_PRICES", str(prices))
    reward = CobeReward("openai-api/fake/fake-model", "data.jsonl", store=tmp_path / "reward.sqlite")
    assert reward(**batch(rows, completions(rows))) == [1.0, 1.0, 1.0, 1.0]  # the fake judge says T
    totals = reward.totals
    assert totals["calls_made"] == 12 and totals["completions"] == 4
    expected = (totals["input_tokens"] * 1000 + totals["output_tokens"] * 2000) / 1e6
    assert totals["cost_usd"] == pytest.approx(expected) and expected > 0


async def test_it_can_be_called_from_a_running_event_loop(rows, tmp_path):
    reward = CobeReward(JUDGE, "data.jsonl", store=tmp_path / "reward.sqlite")
    assert reward(**batch(rows, completions(rows))) == [1.0, 0.0, None, 0.0]


def test_a_batch_without_scenario_ids_is_one_line(rows, tmp_path):
    reward = CobeReward(JUDGE, "data.jsonl", store=tmp_path / "reward.sqlite")
    with pytest.raises(InputError, match="no scenario_id column"):
        reward(completions=["x"], prompts=["p"])
    with pytest.raises(InputError, match="'99v9' is not in the reward's dataset"):
        reward(completions=["x"], scenario_id=["99v9"])


def test_an_h2_reply_without_its_marker_is_judged_whole(workdir, tmp_path):
    [row] = [r for r in grpo_rows("data.jsonl", templates=["H2"]) if r["scenario_id"] == "1v0"]
    reward = CobeReward(JUDGE, "data.jsonl", store=tmp_path / "reward.sqlite")
    reasoning_only = "1. The variables are the shop and the festival. 2. The graph links them."
    assert reward(**batch([row], [reasoning_only])) == [1.0]
    assert reward.totals["completions"] == 1 and reward.totals["calls_made"] == 3
