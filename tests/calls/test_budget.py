"""--max-cost stops before the budget is exceeded and resumes; --dry-run calls nothing; prices."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from cobe.calls import load_prices
from cobe.calls.cost import Budget
from cobe.calls.limits import TokenBucket
from cobe.core.errors import BudgetExceeded, InputError
from cobe.run import EvalConfig, evaluate

SPEC = "openai-api/fake/fake-model"


@pytest.fixture
def server(openai_server, monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_BASE_URL", openai_server.base_url)
    return openai_server


@pytest.fixture
def prices(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text("models:\n  fake-model: {input: 1000, output: 1000}\n")  # $0.001 a token: easy to overspend
    return path


def test_max_cost_stops_before_exceeding_and_resumes(server, data_file, prices):
    base = dict(data=str(data_file), models=[SPEC], judge=SPEC, prices=prices, concurrency=2, max_tokens=64)
    with pytest.raises(BudgetExceeded, match="max-cost"):
        evaluate(EvalConfig(**base, max_cost=0.5))
    run_dir = next((data_file.parent / "runs").iterdir())
    summary = json.loads((run_dir / "summary.json").read_text())
    calls = summary["command"]["calls"]
    spent = calls["respondent"]["cost_usd"] + calls["judge"]["cost_usd"] + calls["preflight"]["cost_usd"]
    assert 0 < spent <= 0.5 and summary["state"] == "stopped-budget"
    statuses = [json.loads(line)["status"] for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert "pending" in statuses
    done = evaluate(EvalConfig(**base, max_cost=100))
    assert done.state == "complete"
    # nothing finished before the stop was asked again, the preflight's two calls included (the second
    # command answered them from the store)
    assert server.stats()["requests"] == 12 + 36 + 2


def test_max_cost_needs_prices(data_file, server):
    with pytest.raises(InputError, match="no price known"):
        evaluate(EvalConfig(data=str(data_file), models=[SPEC], judge=SPEC, max_cost=1))


def test_dry_run_calls_nothing_and_subtracts_the_store(server, data_file, prices):
    base = dict(data=str(data_file), models=[SPEC], judge=SPEC, prices=prices)
    plan = evaluate(EvalConfig(**base, dry_run=True))
    assert server.stats()["requests"] == 0 and not (data_file.parent / "runs").exists()
    d = plan.dry_run
    assert (d.respondent_calls, d.judge_calls) == (12, 36) and d.estimated_cost_usd > 0
    evaluate(EvalConfig(**base))
    n = server.stats()["requests"]
    again = evaluate(EvalConfig(**base, dry_run=True)).dry_run
    assert server.stats()["requests"] == n
    assert (again.respondent_calls, again.judge_calls, again.respondent_cached, again.judge_cached) == (0, 0, 12, 36)
    assert again.estimated_cost_usd == 0


def test_price_table_lookup(tmp_path):
    table = load_prices()
    assert table.price("openai/gpt-5.4").input > 0 and table.price("mock/echo").input == 0
    assert table.price("openai-api/vllm/unknown-model") is None
    extra = tmp_path / "p.yaml"
    extra.write_text("models:\n  unknown-model: {input: 1, output: 2}\n")
    assert load_prices(extra).price("openai-api/vllm/org/unknown-model").output == 2
    extra.write_text("models: [1, 2]\n")
    with pytest.raises(InputError):
        load_prices(extra)


def test_budget_reserves_before_a_call():
    budget = Budget(1.0)
    budget.reserve(0.6)
    with pytest.raises(BudgetExceeded):
        budget.reserve(0.6)
    budget.settle(0.6, 0.1)
    with pytest.raises(BudgetExceeded):  # once stopped, stays stopped
        budget.reserve(0.01)


class FakeClock:
    """Monotonic time that moves only when the code under test sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        assert len(self.sleeps) < 100, "the bucket keeps sleeping without ever having enough"
        self.now += seconds


async def test_token_bucket_paces(monkeypatch):
    from cobe.calls import limits

    clock = FakeClock()
    monkeypatch.setattr(limits, "time", clock)
    monkeypatch.setattr(limits, "asyncio", SimpleNamespace(sleep=clock.sleep, Lock=asyncio.Lock))
    bucket = TokenBucket(600)  # 10 a second, burst 600
    await bucket.take(600)
    assert clock.sleeps == []  # a full bucket pays at once
    await bucket.take(3)
    assert sum(clock.sleeps) == pytest.approx(0.3)  # 3 units at 10 a second
    clock.now += 60
    await bucket.take(600)  # a minute refills it whole
    assert sum(clock.sleeps) == pytest.approx(0.3)
