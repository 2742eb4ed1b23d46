"""Each respondent's settings are part of what a run is: recorded per model, compared on resume (runs recorded
before, with one temperature, token limit and effort for every model, resume as they did)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from cobe.core.errors import InputError
from cobe.run import EvalConfig, evaluate
from cobe.store.store import STORE_NAME


def _config(data_file, **changes) -> EvalConfig:
    return EvalConfig(**({"data": str(data_file), "models": ["mock/echo"], "judge": "mock/judge-pass"} | changes))


def test_a_run_recorded_before_per_model_settings_resumes_and_other_settings_are_refused(data_file):
    first = evaluate(_config(data_file))
    db = sqlite3.connect(first.run_dir / STORE_NAME)
    stored = json.loads(db.execute("SELECT config FROM runs").fetchone()[0])
    assert stored["model_settings"]["mock/echo"]["max_tokens"] == 512
    # as an earlier cobe stored it: the command's resolved limit, no settings per model
    old = {k: v for k, v in stored.items() if k != "model_settings"} | {"max_tokens": 512}
    db.execute("UPDATE runs SET config = ?", (json.dumps(old),))
    db.commit()
    db.close()
    again = evaluate(_config(data_file))
    assert again.run_dir == first.run_dir and again.stats["respondent"]["calls_made"] == 0
    with pytest.raises(InputError, match="holds a run with different respondent settings"):
        evaluate(_config(data_file, max_tokens=64))
    with pytest.raises(InputError, match="holds a run with different respondent settings"):
        evaluate(_config(data_file, model_args=["mock/echo:temperature=0.7"]))


def test_a_dry_run_prices_a_thinking_judge_by_its_thinking_not_by_its_room(data_file, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-dry")
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  gpt-5: {input: 0, output: 1000000}\n  gpt-4.1: {input: 0, output: 1000000}\n")
    thinking = evaluate(_config(data_file, judge="openai/gpt-5", prices=prices, dry_run=True)).dry_run
    plain = evaluate(_config(data_file, judge="openai/gpt-4.1", prices=prices, dry_run=True)).dry_run
    assert thinking is not None and plain is not None and thinking.judge_calls == plain.judge_calls == 36
    # a dollar per output token: 5 per verdict without thinking, 5 + medium's 8192 budget with it (not its 20480 room)
    assert plain.estimated_cost_usd == 36 * 5
    assert thinking.estimated_cost_usd == 36 * (5 + 8192)
