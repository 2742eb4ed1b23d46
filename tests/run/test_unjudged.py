"""Replies cut off by the token limit are never judged; an H2 reply without its marker line is judged whole.

Both run through a real local OpenAI-protocol server, which answers finish_reason "length" when it
cuts a reply at max_tokens: a cut-off reply never reaches the judge and is counted with its reason; a
marker-less H2 reply is judged as a whole, as the paper's pipeline tolerates extra text, and counted.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cobe.run import EvalConfig, evaluate, judge_run
from cobe.store.store import STORE_NAME

SPEC = "openai-api/fake/fake-model"


@pytest.fixture
def fake(openai_server, monkeypatch):
    monkeypatch.setenv("FAKE_BASE_URL", openai_server.base_url)
    return openai_server


def rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def test_a_reply_cut_off_by_the_token_limit_is_unscored_and_never_judged(fake, data_file, tmp_path):
    config = EvalConfig(data=str(data_file), models=[SPEC], judge=SPEC, templates=["A"], limit=2, max_tokens=6)
    summary = evaluate(config.model_copy(update={"run_dir": tmp_path / "run"}))
    out = rows(summary.run_dir)
    assert [r["status"] for r in out] == ["unscored", "unscored"] and all(r["unjudged"] == "truncated" for r in out)
    assert all(r["passed"] is None and set(r["unscored"]) == {"connectors", "preserve", "change"} for r in out)
    assert "token limit" in out[0]["unscored"]["change"]
    assert fake.stats()["judge_requests"] == 0 and summary.stats["judge"]["calls_made"] == 0
    model = summary.summary["models"][SPEC]
    assert model["unjudged"] == {"truncated": 2} and model["no_marker"] == 0 and model["unscored"] == 2
    report = (summary.run_dir / "report.md").read_text()
    assert "| n | scored | unscored | cut off | no marker |" in report
    assert "| 2 | 0 | 2 | 2 | 0 |" in report
    # the finish reason is stored with the response: a resumed run and a re-judge stay away from the judge
    db = sqlite3.connect(summary.run_dir / STORE_NAME)
    assert {r for (r,) in db.execute("SELECT finish_reason FROM responses")} == {"length"}
    db.close()
    again = evaluate(config.model_copy(update={"run_dir": tmp_path / "run"}))
    assert again.stats["respondent"]["calls_made"] == 0 and again.stats["judge"]["calls_made"] == 0
    dry = evaluate(config.model_copy(update={"run_dir": tmp_path / "run", "dry_run": True})).dry_run
    assert dry is not None and (dry.respondent_calls, dry.judge_calls) == (0, 0)
    rejudged = judge_run(tmp_path / "run", "mock/judge-fail")
    assert rejudged.stats["judge"]["calls_made"] == 0 and {r["unjudged"] for r in rows(summary.run_dir)} == {
        "truncated"
    }


def test_an_h2_reply_without_its_marker_is_judged_whole_and_counted(fake, data_file, tmp_path):
    reply = "Step 1: the baker and the festival. The baker closed early and the shelves stayed full."
    fake.control(reply=reply)
    base = dict(data=str(data_file), models=[SPEC], judge=SPEC, templates=["H2"], limit=1)
    summary = evaluate(EvalConfig(**base, run_dir=tmp_path / "plain"))
    (row,) = rows(summary.run_dir)
    assert row["status"] in ("passed", "failed") and row["unjudged"] is None
    assert row["no_marker"] is True and row["judged_response"] == reply
    assert fake.stats()["judge_requests"] == 3  # the three checks, on the whole reply
    model = summary.summary["models"][SPEC]
    assert model["no_marker"] == 1 and model["unjudged"] == {"truncated": 0} and model["scored"] == 1
    assert "| 1 | 1 | 0 | 0 | 1 |" in (summary.run_dir / "report.md").read_text()
    fake.control(reply="Step 1: the festival.\nFinal story: The baker closed early, so the shelves stayed full.")
    marked = evaluate(EvalConfig(**base, run_dir=tmp_path / "marked"))
    (row,) = rows(marked.run_dir)
    assert row["status"] == "passed" and row["judged_response"] == "The baker closed early, so the shelves stayed full."
    assert "no_marker" not in row  # written only for a reply without its marker
    assert fake.stats()["judge_requests"] == 6


def test_the_batch_path_leaves_unjudged_replies_out_too(fake, data_file, tmp_path):
    config = EvalConfig(
        data=str(data_file), models=[SPEC], judge=SPEC, templates=["A"], limit=2, max_tokens=6, judge_batch=True
    )
    summary = evaluate(config.model_copy(update={"run_dir": tmp_path / "run", "batch_poll": 0.01}))
    assert {r["unjudged"] for r in rows(summary.run_dir)} == {"truncated"}
    assert fake.stats()["batches"] == 0 and fake.stats()["judge_requests"] == 0
