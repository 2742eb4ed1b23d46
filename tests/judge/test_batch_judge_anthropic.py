"""--judge-batch with an anthropic/ judge: Message Batches of the local fake server."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.judge.batch import adapter
from cobe.models.anthropic_batch import AnthropicBatch
from cobe.run import EvalConfig, evaluate, generate, judge_run
from cobe.store.store import STORE_NAME, Store

RESPONDENT = "openai-api/fake/fake-model"
JUDGE = "anthropic/fake-model"


@pytest.fixture
def fake(openai_server, monkeypatch):
    """The fake server for both specs, judge answers T or F by a hash of the request (order-free)."""
    monkeypatch.setenv("FAKE_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", openai_server.root_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-dummy-key")
    openai_server.control(verdict="hash", batch_polls=2)
    return openai_server


def config(data: Path, run_dir: Path, batch: bool, **extra) -> EvalConfig:
    return EvalConfig(
        data=str(data), models=[RESPONDENT], judge=JUDGE, run_dir=run_dir, judge_batch=batch, batch_poll=0.01, **extra
    )


def results(run_dir: Path) -> list[tuple]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return sorted(
        (r["scenario_id"], r["template"], r["status"], json.dumps(r["verdicts"], sort_keys=True)) for r in rows
    )


def batches(run_dir: Path) -> list[tuple]:
    db = sqlite3.connect(run_dir / STORE_NAME)
    try:
        return db.execute("SELECT state, request_count FROM batches").fetchall()
    finally:
        db.close()


def test_the_registry_gives_anthropic_its_adapter_and_names_the_batch_providers():
    assert adapter(JUDGE) is AnthropicBatch  # registered with the provider: no second table
    with pytest.raises(InputError, match="use an anthropic/..., openai/... or openai-api/... judge") as exc:
        adapter("google/gemini-x")
    assert "\n" not in str(exc.value)


def test_batch_gives_the_normal_verdicts_without_judge_message_calls(fake, data_file, tmp_path):
    normal = evaluate(config(data_file, tmp_path / "normal", False))
    before = fake.stats()
    assert before["judge_requests"] == 36 and before["batches"] == 0
    batch = evaluate(config(data_file, tmp_path / "batch", True))
    after = fake.stats()
    assert after["judge_requests"] == 36, "no judge call went through /v1/messages"
    assert after["batches"] == 1 and after["batch_lines"] == 36 and after["files"] == 0
    # the respondent calls, and the new run's preflight: one call with the respondent's settings, one with the judge's
    assert after["requests"] - before["requests"] == 12 + 2
    assert batch.state == "complete"
    # the newest Claude models (the table's fallback row) refuse temperature: it is not sent, and the run says so
    assert [n for n in batch.notices if "does not take temperature 0.0" in n]
    assert results(batch.run_dir) == results(normal.run_dir)
    assert {r[2] for r in results(batch.run_dir)} == {"passed", "failed"}  # the hash gives both verdicts
    assert batch.stats["judge"]["calls_made"] == 0 and batch.stats["judge"]["calls_cached"] == 36
    assert batch.stats["judge-batch"]["calls_made"] == 36
    assert batches(batch.run_dir) == [("ended", 36)]
    (sent,) = fake.app.message_batches.values()
    assert all(p["model"] == "fake-model" and "temperature" not in p and p["max_tokens"] for p in sent["params"])

    again = evaluate(config(data_file, tmp_path / "batch", True))
    assert fake.stats() == after, "a finished batch run makes no request of any kind when repeated"
    assert again.stats["judge"]["calls_made"] == 0 and again.stats["judge-batch"]["calls_made"] == 0


def test_batch_costs_half_of_the_normal_judge_cost(fake, data_file, tmp_path):
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  fake-model: {input: 3.0, output: 15.0}\n")
    normal = evaluate(config(data_file, tmp_path / "normal", False, prices=prices))
    batch = evaluate(config(data_file, tmp_path / "batch", True, prices=prices))
    usage = [
        json.loads((s.run_dir / "summary.json").read_text())["models"][RESPONDENT]["usage"] for s in (normal, batch)
    ]
    assert usage[0]["judge"]["input_tokens"] == usage[1]["judge"]["input_tokens"] > 0
    assert usage[1]["judge"]["cost_usd"] == pytest.approx(usage[0]["judge"]["cost_usd"] / 2)
    assert batch.stats["judge-batch"]["cost_usd"] == pytest.approx(usage[0]["judge"]["cost_usd"] / 2)


def test_errored_entries_fall_back_to_the_normal_path(fake, data_file, tmp_path):
    normal = evaluate(config(data_file, tmp_path / "normal", False))
    fake.control(reset=True, verdict="hash", batch_errored=5)
    batch = evaluate(config(data_file, tmp_path / "batch", True))
    stats = fake.stats()
    assert stats["batches"] == 1 and stats["batch_lines"] == 31 and stats["judge_requests"] == 5
    assert batch.state == "complete" and results(batch.run_dir) == results(normal.run_dir)
    assert batch.stats["judge-batch"]["calls_made"] == 31 and batch.stats["judge"]["calls_made"] == 5
    assert any("5 requests failed" in n for n in batch.notices)
    assert batches(batch.run_dir) == [("ended", 36)]


@pytest.mark.parametrize("status", ["expired", "cancelled"])
def test_an_expired_or_cancelled_batch_falls_back_to_the_normal_path(fake, data_file, tmp_path, status):
    run_dir = tmp_path / "run"
    generate(config(data_file, run_dir, False))
    fake.control(verdict="hash", batch_status=status)
    s = judge_run(run_dir, JUDGE, judge_batch=True, batch_poll=0.01)
    assert s.state == "complete" and fake.stats()["judge_requests"] == 36
    assert any(f"ended {status}" in n for n in s.notices)
    assert batches(run_dir) == [("ended", 36)] and len(results(run_dir)) == 12


def _kill_after_create(monkeypatch: pytest.MonkeyPatch) -> None:
    def killed(self, pending_id, batch_id, state):
        raise KeyboardInterrupt  # the process dies right after the provider created the batch

    monkeypatch.setattr(Store, "adopt_batch", killed)


@pytest.mark.parametrize("polls", [3, -1], ids=["still-running", "already-ended"])
def test_killed_between_creating_a_batch_and_noting_its_id_pays_once(fake, data_file, tmp_path, monkeypatch, polls):
    fake.control(verdict="hash", batch_polls=polls)
    real_adopt = Store.adopt_batch
    _kill_after_create(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        evaluate(config(data_file, tmp_path / "run", True))
    assert fake.stats()["batches"] == 1
    assert batches(tmp_path / "run") == [("submitting", 36)]
    monkeypatch.setattr(Store, "adopt_batch", real_adopt)
    done = evaluate(config(data_file, tmp_path / "run", True))
    assert done.state == "complete"
    stats = fake.stats()
    assert stats["batches"] == 1, "the batch was found again, not submitted twice"
    assert stats["judge_requests"] == 0 and stats["batch_lines"] == 36
    assert done.stats["judge-batch"]["calls_made"] == 36
    assert batches(tmp_path / "run") == [("ended", 36)]


def test_recovery_skips_an_ended_batch_of_the_same_size_that_is_not_ours(fake, data_file, tmp_path, monkeypatch):
    import anthropic

    fake.control(verdict="hash", batch_polls=-1)
    real_adopt = Store.adopt_batch
    _kill_after_create(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        evaluate(config(data_file, tmp_path / "run", True))
    # someone else's batch of 36 requests, created later: listed first, and already ended
    other = anthropic.Anthropic(base_url=fake.root_url, api_key="k", max_retries=0)
    params = {"model": "fake-model", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    other.messages.batches.create(requests=[{"custom_id": f"other-{i}", "params": params} for i in range(36)])
    other.close()
    monkeypatch.setattr(Store, "adopt_batch", real_adopt)
    done = evaluate(config(data_file, tmp_path / "run", True))
    stats = fake.stats()
    assert done.state == "complete" and stats["batches"] == 2 and stats["judge_requests"] == 0
    assert done.stats["judge-batch"]["calls_made"] == 36


def test_a_submission_the_provider_never_received_is_sent_again(fake, data_file, tmp_path, monkeypatch):
    from anthropic.resources.messages.batches import AsyncBatches

    real_create = AsyncBatches.create

    async def lost(self, **kwargs):
        raise KeyboardInterrupt  # killed after recording the submission, before the batch was created

    monkeypatch.setattr(AsyncBatches, "create", lost)
    with pytest.raises(KeyboardInterrupt):
        evaluate(config(data_file, tmp_path / "run", True))
    monkeypatch.setattr(AsyncBatches, "create", real_create)
    assert evaluate(config(data_file, tmp_path / "run", True)).state == "complete"
    stats = fake.stats()
    assert stats["batches"] == 1 and stats["batch_lines"] == 36 and stats["judge_requests"] == 0
