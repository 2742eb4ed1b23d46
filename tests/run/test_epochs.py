"""--epochs K: K answers per item, each a call of its own, stored, judged, resumed and scored per epoch; --ids."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.run import EvalConfig, evaluate, generate, judge_run
from cobe.store.store import STORE_NAME


def rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def test_each_epoch_is_a_call_of_its_own_stored_and_judged_apart(data_file):
    config = EvalConfig(
        data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", epochs=3, temperature=0.7, limit=2
    )
    first = evaluate(config)
    assert first.items == 18 and first.state == "complete"  # 2 scenarios × A-C × 3 epochs
    # mock/echo answers alike each time, yet each epoch is asked: three respondent calls per item
    assert first.stats["respondent"]["calls_made"] == 18
    db = sqlite3.connect(first.run_dir / STORE_NAME)
    requests = [json.loads(r) for (r,) in db.execute("SELECT request FROM calls WHERE role = 'respondent'")]
    assert sorted(r.get("sample", 0) for r in requests) == [0] * 6 + [1] * 6 + [2] * 6  # keyed apart
    assert dict(db.execute("SELECT epoch, count(*) FROM responses GROUP BY epoch").fetchall()) == {1: 6, 2: 6, 3: 6}
    # every epoch's response has its own verdicts (the same question is answered from the store)
    judged = db.execute("SELECT count(DISTINCT response_id) FROM verdicts").fetchone()[0]
    assert judged == 18
    out = rows(first.run_dir)
    assert [r["epoch"] for r in out] == [1] * 6 + [2] * 6 + [3] * 6
    model = first.summary["models"]["mock/echo"]
    assert set(model["per_epoch"]) == {"1", "2", "3"} and model["epochs"] == 3 and model["epoch_std"] == 0.0
    assert first.summary["epochs"] == 3 and first.run_dir.name.endswith("__epochs-3")
    report = (first.run_dir / "report.md").read_text()
    assert "| model | epoch 1 | epoch 2 | epoch 3 | spread |" in report

    again = evaluate(config)  # resumed: nothing is asked again, in any epoch
    assert again.stats["respondent"]["calls_made"] == 0 and again.stats["judge"]["calls_made"] == 0
    # an epoch lost (as after a kill) is redone alone, from the store's calls where they exist
    with db:
        db.execute("DELETE FROM verdicts WHERE response_id IN (SELECT id FROM responses WHERE epoch = 2)")
        db.execute("DELETE FROM responses WHERE epoch = 2")
        db.execute("DELETE FROM calls WHERE role = 'respondent' AND request LIKE '%\"sample\":1,%'")
    redone = evaluate(config)
    assert redone.stats["respondent"]["calls_made"] == 6 and redone.stats["respondent"]["calls_cached"] == 0
    assert [r["epoch"] for r in rows(first.run_dir)] == [1] * 6 + [2] * 6 + [3] * 6
    db.close()


def test_a_rejudge_judges_every_epoch(data_file):
    g = generate(EvalConfig(data=str(data_file), models=["mock/echo"], epochs=2, temperature=0.5, limit=1))
    assert {r["status"] for r in rows(g.run_dir)} == {"pending"} and len(rows(g.run_dir)) == 6
    j = judge_run(g.run_dir, "mock/judge-fail")
    assert j.items == 6 and j.stats["judge"]["calls_made"] == 9  # epoch 2's replies equal epoch 1's: cached
    out = rows(g.run_dir)
    assert {(r["epoch"], r["status"]) for r in out} == {(1, "failed"), (2, "failed")}


def test_a_run_of_one_epoch_writes_its_rows_as_before(data_file):
    s = evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", limit=1))
    assert all("epoch" not in r for r in rows(s.run_dir))
    assert "per_epoch" not in s.summary["models"]["mock/echo"] and "epochs" not in s.summary


def test_epochs_at_temperature_zero_are_refused_and_no_temperature_is_said(data_file):
    with pytest.raises(InputError, match=r"--epochs 2 asks each model 2 times .* --temperature 0 .* above 0"):
        evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", epochs=2))
    s = evaluate(
        EvalConfig(
            data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", epochs=2, temperature=None, limit=1
        )
    )
    assert any("--epochs 2: no temperature is sent" in n for n in s.notices)


def test_ids_choose_scenarios_in_dataset_order(data_file):
    s = evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", ids=["4v0", "2v0"]))
    assert [r["scenario_id"] for r in rows(s.run_dir)] == ["2v0"] * 3 + ["4v0"] * 3
    assert s.run_dir.name.endswith("__ids-4v0-2v0")
    # --sample and --limit choose among the ids
    limited = evaluate(
        EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", ids="1v0,3v0,4v0", limit=1)
    )
    assert {r["scenario_id"] for r in rows(limited.run_dir)} == {"1v0"}
    with pytest.raises(InputError, match=r"^--ids: 2 of 3 scenario ids are not in .*data.jsonl: 9v9, 8v8 \(its ids"):
        evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", ids="9v9,1v0,8v8"))
