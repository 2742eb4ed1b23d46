"""--judge-samples: each check asked K times under keys of its own, the majority shown, the flip rate reported."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.run import EvalConfig, evaluate, judge_run
from cobe.store.store import STORE_NAME


def rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def test_samples_have_keys_of_their_own_and_the_first_keeps_the_single_ask_key(data_file):
    base = dict(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", judge_temperature=0.8)
    once = evaluate(EvalConfig(**base))
    assert once.stats["judge"]["calls_made"] == 36
    db = sqlite3.connect(once.run_dir / STORE_NAME)
    single = {key for (key,) in db.execute("SELECT key FROM calls WHERE role = 'judge'")}
    thrice = judge_run(once.run_dir, "mock/judge-pass", judge_temperature=0.8, judge_samples=3)
    # sample 0 of every check is the verdict the single ask stored; samples 1 and 2 are new calls
    assert (thrice.stats["judge"]["calls_cached"], thrice.stats["judge"]["calls_made"]) == (0, 72)
    calls = {key: json.loads(r) for key, r in db.execute("SELECT key, request FROM calls WHERE role = 'judge'")}
    assert len(calls) == 108
    assert {key for key, request in calls.items() if "sample" not in request} == single
    assert sorted(r.get("sample", 0) for r in calls.values()) == [0] * 36 + [1] * 36 + [2] * 36
    assert dict(db.execute("SELECT sample, count(*) FROM verdicts GROUP BY sample").fetchall()) == {
        0: 36,
        1: 36,
        2: 36,
    }
    # as after a kill between the calls' commit and their verdicts': every sample answered from the store
    with db:
        db.execute("DELETE FROM verdicts")
    db.close()
    replay = judge_run(once.run_dir, "mock/judge-pass", judge_temperature=0.8, judge_samples=3)
    assert (replay.stats["judge"]["calls_cached"], replay.stats["judge"]["calls_made"]) == (108, 0)
    assert thrice.summary["judge_samples"] == 3 and thrice.summary["judge_fingerprint"].startswith("panel-")
    assert thrice.summary["panel"]["flip_rates"]["mock/judge-pass"]["preserve"] == {
        "pairs": 12,
        "flips": 0,
        "flip_rate": 0.0,
    }


def test_flip_rate_and_majority_on_scripted_samples(data_file):
    # one response, asked in order: connectors T T T, preserve F T F, change T T T (concurrency 1 keeps the order)
    judge = "mock/cycle:T,T,T,F,T,F,T,T,T"
    s = evaluate(
        EvalConfig(
            data=str(data_file),
            models=["mock/echo"],
            judge=judge,
            judge_samples=3,
            limit=1,
            templates=["A"],
            concurrency=1,
        )
    )
    (row,) = rows(s.run_dir)
    assert row["member_verdicts"] == {
        judge: {"connectors": ["T", "T", "T"], "preserve": ["F", "T", "F"], "change": ["T", "T", "T"]}
    }
    assert row["verdicts"] == {"connectors": "T", "preserve": "F", "change": "T"} and row["status"] == "failed"
    flips = s.summary["panel"]["flip_rates"][judge]
    assert {check: flips[check]["flip_rate"] for check in flips} == {
        "connectors": 0.0,
        "preserve": 100.0,
        "change": 0.0,
    }
    assert any("temperature 1.0" in notice for notice in s.notices)  # the prompt set asks at 0


def test_an_even_split_of_samples_is_unscored(data_file):
    s = evaluate(
        EvalConfig(
            data=str(data_file),
            models=["mock/echo"],
            judge="mock/cycle:T,F",
            judge_samples=2,
            limit=1,
            templates=["A"],
            concurrency=1,
        )
    )
    (row,) = rows(s.run_dir)
    assert row["status"] == "unscored"
    assert set(row["unscored"].values()) == {"samples split 1 T / 1 F"}


def test_samples_at_temperature_zero_are_refused(data_file):
    config = EvalConfig(
        data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", judge_samples=3, judge_temperature=0
    )
    with pytest.raises(InputError, match="choose a temperature above 0"):
        evaluate(config)


def test_samples_asked_at_another_temperature_are_asked_again(data_file):
    base = dict(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", judge_samples=2)
    first = evaluate(EvalConfig(**base, judge_temperature=0.5))
    again = evaluate(EvalConfig(**base, judge_temperature=0.9))
    assert first.stats["judge"]["calls_made"] == again.stats["judge"]["calls_made"] == 72
    db = sqlite3.connect(first.run_dir / STORE_NAME)
    stored = {json.loads(s)["temperature"] for (s,) in db.execute("SELECT judge_settings FROM verdicts")}
    db.close()
    assert stored == {0.9}
