"""CobeReward at its edges: one reward per completion or a clear error, any text, many threads, a failing judge.

Issue 23, item 13: 2 completions with 1 template gave 1 reward; a lone surrogate raised
UnicodeEncodeError; six threads opening one fresh store failed with "an empty file, 0 bytes" in 3 of
5 trials; a judge that errors every time returned [None] silently (TRL reads None as "skip").
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import pytest
from reliability_helpers import SPEC

from cobe.core.errors import InputError, RunIncomplete
from cobe.integrations.reward import CobeReward, grpo_rows
from cobe.store import Store
from support.run_data import scenario


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(scenario(i)) + "\n" for i in (1, 2)), encoding="utf-8")
    return path


@pytest.fixture
def quick_retries(monkeypatch):
    """No retries of cobe's own (the SDK still tries a call 3 times): the reward has no option for it."""
    from cobe.calls.scheduler import Scheduler

    original = Scheduler.__init__

    def quick(self, **options):
        original(self, **({"backoff": 0.01, "backoff_max": 0.02, "max_retries": 0} | options))

    monkeypatch.setattr(Scheduler, "__init__", quick)


def columns(data: Path, n: int) -> dict[str, list[str]]:
    rows = [r for r in grpo_rows(data, templates=["A"])][:n]
    return {"scenario_id": [r["scenario_id"] for r in rows], "template": [r["template"] for r in rows]}


def test_a_column_of_another_length_is_a_clear_error_not_fewer_rewards(data, tmp_path):
    reward = CobeReward("mock/judge-pass", data, store=tmp_path / "r.sqlite")
    batch = columns(data, 2)
    with pytest.raises(InputError, match="template: 1 values for 2 completions; expected one each"):
        reward(completions=["one", "two"], scenario_id=batch["scenario_id"], template=batch["template"][:1])
    assert reward(completions=["one", "two"], **batch) == [1.0, 1.0]


def test_a_lone_surrogate_is_judged_like_any_text(data, tmp_path):
    reward = CobeReward("mock/judge-pass", data, store=tmp_path / "r.sqlite")
    texts = ["Baker 1 closed early\ud800 although a festival was on.", "A pair split in two: \ud83d\ude00 and \udfff"]
    assert reward(completions=texts, **columns(data, 2)) == [1.0, 1.0]


def test_six_threads_opening_one_fresh_store_all_open_it(tmp_path):
    for trial in range(5):
        path = tmp_path / f"trial-{trial}" / "reward.sqlite"
        path.parent.mkdir()
        start, failures = threading.Barrier(6), []

        def open_it(path: Path = path, start: threading.Barrier = start, failures: list = failures) -> None:
            start.wait()
            try:
                Store(path).close()
            except Exception as exc:  # collected: a thread's exception would not fail the test
                failures.append(exc)

        threads = [threading.Thread(target=open_it) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == [], failures
        assert sorted(p.name for p in path.parent.iterdir() if not p.name.startswith("reward.sqlite")) == []


def test_six_threads_rewarding_on_one_fresh_store(data, tmp_path):
    store = tmp_path / "shared.sqlite"
    results: list[object] = []
    start = threading.Barrier(6)

    def reward_once() -> None:
        start.wait()
        try:
            results.append(CobeReward("mock/judge-pass", data, store=store)(completions=["x"], **columns(data, 1)))
        except Exception as exc:
            results.append(exc)

    threads = [threading.Thread(target=reward_once) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [[1.0]] * 6


def test_a_judge_failing_every_call_raises_instead_of_skipping_silently(data, tmp_path, fake, quick_retries):
    fake.control(fail_status=500)
    reward = CobeReward(SPEC, data, store=tmp_path / "r.sqlite")
    with pytest.raises(RunIncomplete, match="every judge call of this batch failed"):
        reward(completions=["one", "two"], **columns(data, 2))
    assert reward.totals["judge_errors"] == 2


def test_a_judge_failing_some_calls_is_logged_and_counted(data, tmp_path, fake, quick_retries, caplog):
    fake.control(server_error=3)  # the first call, tried 3 times by the SDK while it holds the only lane
    reward = CobeReward(SPEC, data, store=tmp_path / "r.sqlite", concurrency=1)
    with caplog.at_level(logging.WARNING, logger="cobe.reward"):
        scores = reward(completions=["one", "two"], **columns(data, 2))
    assert scores.count(None) == 1 and reward.totals["judge_errors"] == 1
    assert any("a judge call failed" in record.getMessage() for record in caplog.records)
