"""Prompt caching on the call path: cached and cache-written tokens are read back into each call's record and
the store, priced at their own rates (batch discount on top), and `--dry-run` estimates with them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cobe.calls import Caller, load_prices
from cobe.calls.cost import Price
from cobe.core.errors import InputError
from cobe.judge.judge_plan import plan_judges
from cobe.judge.panel import JudgePanel
from cobe.judge.prompt_sets import constant_head, load_judge_prompts
from cobe.run import EvalConfig, evaluate
from cobe.store.store import Store
from support.openai_server import contract_env

PRICES = """models:
  fake-judge: {input: 10, output: 50, cached_input: 1, cache_write: 12.5, cache_min_tokens: 100}
  fake-model: {input: 2, output: 8, cached_input: 0.5, cache_min_tokens: 128}
"""
JUDGE = "anthropic/fake-judge"


@pytest.fixture
def fake(openai_server, monkeypatch):
    """The fake server behind openai/ and anthropic/ specs, caching prefixes from 100 tokens on."""
    for name, value in contract_env(openai_server).items():
        monkeypatch.setenv(name, value)
    openai_server.control(verdict="hash", cache_min_tokens=100)
    return openai_server


@pytest.fixture
def prices(tmp_path: Path) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_text(PRICES)
    return path


def call_rows(path: Path) -> list[sqlite3.Row]:
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        return db.execute("SELECT * FROM calls WHERE role = 'judge' ORDER BY rowid").fetchall()
    finally:
        db.close()


def test_prices_take_cache_rates_and_refuse_a_typo(tmp_path):
    price = Price(10, 50, cached_input=1, cache_write=12.5)
    assert price.cost(1000, 10, cached=600) == pytest.approx((400 * 10 + 600 * 1 + 10 * 50) / 1e6)
    assert price.cost(1000, 10, written=600) == pytest.approx((400 * 10 + 600 * 12.5 + 10 * 50) / 1e6)
    assert price.batch_cost(1000, 10, cached=600) == pytest.approx(price.cost(1000, 10, cached=600) / 2)
    assert Price(10, 50).cost(1000, 0, cached=600) == Price(10, 50).cost(1000, 0)  # no rate given: base input
    opus = load_prices().price("anthropic/claude-opus-4-7")
    assert opus is not None and opus.cached_input == opus.input / 10 and opus.cache_write == opus.input * 1.25
    bad = tmp_path / "bad.yaml"
    bad.write_text("models:\n  m: {input: 1, output: 2, cached_imput: 0.1}\n")
    with pytest.raises(InputError, match=r"model 'm': unknown field 'cached_imput'; known: input, output") as info:
        load_prices(bad)
    assert "\n" not in str(info.value)
    bad.write_text("models:\n  m: {input: 1, output: 2, cache_min_tokens: 1.5}\n")
    with pytest.raises(InputError, match="cache_min_tokens a whole number"):
        load_prices(bad)


@pytest.mark.parametrize("cache", [True, False])
async def test_a_judge_writes_its_head_once_then_reads_it_at_the_cached_rate(fake, prices, tmp_path, scenario, cache):
    store = Store(tmp_path / "cobe.sqlite")
    caller = Caller(store, prices=load_prices(prices))
    plan, _ = plan_judges(JUDGE, "paper", prompt_cache=cache)
    panel = JudgePanel.from_plan(plan, caller)
    judge = panel.members[0]
    for rewrite in ("Instead, Ravi caught the ferry.", "Instead, Ravi caught the early ferry and ate lunch there."):
        await judge.check("preserve", scenario, rewrite)
    await panel.aclose()  # its HTTP pool: aiohttp warns of a session left open
    store.close()
    first, second = call_rows(tmp_path / "cobe.sqlite")
    head = len(constant_head(load_judge_prompts("paper").texts["preserve"]).split())  # the fake counts words
    if not cache:  # no mark, no cache: Anthropic caches only what a request marks
        assert first["cache_write_tokens"] == second["cached_input_tokens"] == 0
        return
    assert (first["cache_write_tokens"], first["cached_input_tokens"]) == (head, 0)
    assert (second["cache_write_tokens"], second["cached_input_tokens"]) == (0, head)
    price = Price(10, 50, cached_input=1, cache_write=12.5)
    assert first["cost_usd"] == pytest.approx(price.cost(first["input_tokens"], 1, written=head))
    assert second["cost_usd"] == pytest.approx(price.cost(second["input_tokens"], 1, cached=head))
    assert second["cost_usd"] < price.cost(second["input_tokens"], 1)


async def test_openai_caches_long_shared_prefixes_without_a_mark(fake, prices, tmp_path, scenario):
    store = Store(tmp_path / "cobe.sqlite")
    caller = Caller(store, prices=load_prices(prices))
    plan, _ = plan_judges("openai/fake-model", "paper", prompt_cache=False)
    panel = JudgePanel.from_plan(plan, caller)
    judge = panel.members[0]
    for rewrite in ("Instead, Ravi caught the ferry.", "Instead, Ravi caught the early ferry."):
        await judge.check("change", scenario, rewrite)
    await panel.aclose()  # its HTTP pool: aiohttp warns of a session left open
    store.close()
    records = call_rows(tmp_path / "cobe.sqlite")
    assert records[0]["cached_input_tokens"] == 0
    assert records[1]["cached_input_tokens"] >= 128 and records[1]["cached_input_tokens"] % 128 == 0


def test_a_run_reads_the_judge_heads_from_the_cache_and_says_so(fake, prices, data_file):
    summary = evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge=JUDGE, prices=prices))
    assert summary.state == "complete"
    judged = summary.stats["judge"]
    assert judged["calls_made"] == 36 and judged["cached_input_tokens"] > judged["cache_write_tokens"] > 0
    written = json.loads((summary.run_dir / "summary.json").read_text())["command"]["calls"]["judge"]
    assert written["cached_input_tokens"] == judged["cached_input_tokens"]
    rows = call_rows(summary.run_dir / "cobe.sqlite")
    tokens_in = sum(r["input_tokens"] for r in rows)
    assert judged["cost_usd"] < Price(10, 50).cost(tokens_in, sum(r["output_tokens"] for r in rows)) / 2


def test_batch_answers_keep_their_cached_tokens_and_stack_both_discounts(fake, prices, data_file):
    config = EvalConfig(
        data=str(data_file), models=["mock/echo"], judge=JUDGE, prices=prices, judge_batch=True, batch_poll=0.01
    )
    assert evaluate(config).state == "complete"
    rows = call_rows(Path(config.run_dir or "runs/mock_echo__data") / "cobe.sqlite")
    batched = [r for r in rows if r["latency_s"] == 0.0]  # batch answers carry no latency of their own
    read = [r for r in batched if r["cached_input_tokens"]]
    assert len(batched) == 36 and read
    price = load_prices(prices).price(JUDGE)
    assert price is not None
    row = read[0]
    assert row["cost_usd"] == pytest.approx(
        price.batch_cost(row["input_tokens"], row["output_tokens"], cached=row["cached_input_tokens"])
    )


def test_a_dry_run_prices_the_judge_heads_at_the_cache_rate(prices, data_file, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-anthropic")
    base = {"data": str(data_file), "models": ["mock/echo"], "judge": JUDGE, "dry_run": True}
    cached = evaluate(EvalConfig(**base, prices=prices)).dry_run
    never = tmp_path / "never.yaml"  # the same rates, a minimum no head reaches
    never.write_text(PRICES.replace("cache_min_tokens: 100", "cache_min_tokens: 100000"))
    full = evaluate(EvalConfig(**base, prices=never)).dry_run
    batch = evaluate(EvalConfig(**base, prices=prices, judge_batch=True)).dry_run
    assert cached is not None and full is not None and batch is not None
    assert cached.judge_calls == full.judge_calls == 36 and full.cached_input_tokens == 0
    assert 0 < cached.estimated_cost_usd < full.estimated_cost_usd
    assert cached.cached_input_tokens > 0
    assert batch.estimated_cost_usd == pytest.approx(cached.estimated_cost_usd / 2, rel=1e-4)
