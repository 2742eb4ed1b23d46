"""Endpoints in call keys (migration 0010): a store made before keys named them resumes as it did, and a run
resumed against another server says so in one line and is answered by that server alone."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from cobe.calls.keys import canonical
from cobe.run import EvalConfig, evaluate
from cobe.store.store import STORE_NAME
from support.openai_server import ThreadedServer
from support.run_data import write_dataset

SPEC = "openai-api/fake/fake-model"
PREFLIGHT = 2  # one minimal call with the respondent's settings, one with the judge's


@pytest.fixture
def server(openai_server, monkeypatch):
    monkeypatch.setenv("FAKE_BASE_URL", openai_server.base_url)
    return openai_server


def config(data: Path, run_dir: Path) -> EvalConfig:
    return EvalConfig(data=str(data), models=[SPEC], judge=SPEC, templates=["A"], run_dir=run_dir, max_retries=0)


def results(run_dir: Path) -> str:
    return (run_dir / "results.jsonl").read_text()


def as_before_0010(path: Path) -> int:
    """Turn a store back into what cobe wrote before migration 0010: each call keyed without its endpoint,
    no endpoint record, 0010 not applied. Returns the calls it holds."""
    db = sqlite3.connect(path)
    with db:
        for key, request in db.execute("SELECT key, request FROM calls").fetchall():
            body = json.loads(request)
            body.pop("endpoint")
            text = canonical(body)
            old = hashlib.sha256(text.encode("utf-8")).hexdigest()
            db.execute("UPDATE calls SET key = ?, request = ? WHERE key = ?", (old, text, key))
            db.execute("UPDATE responses SET call_key = ? WHERE call_key = ?", (old, key))
            db.execute("UPDATE verdicts SET call_key = ? WHERE call_key = ?", (old, key))
        db.execute("DROP TABLE endpoints")
        db.execute("DROP TABLE store_marks")
        db.execute("DELETE FROM schema_migrations WHERE version = 10")
    calls = int(db.execute("SELECT count(*) FROM calls").fetchone()[0])
    db.close()
    return calls


def test_every_stored_call_names_the_endpoint_it_went_to(tmp_path, server):
    data = write_dataset(tmp_path / "data.jsonl", 2)
    evaluate(config(data, tmp_path / "run"))
    db = sqlite3.connect(tmp_path / "run" / STORE_NAME)
    endpoints = {json.loads(r[0])["endpoint"] for r in db.execute("SELECT request FROM calls")}
    assert endpoints == {server.base_url.rstrip("/")}
    assert db.execute("SELECT spec, endpoint FROM endpoints").fetchall() == [(SPEC, server.base_url.rstrip("/"))]


def test_a_store_made_before_keys_named_endpoints_resumes_with_no_call(tmp_path, server):
    """The documented upgrade path: the first command on such a store gives its calls the endpoint it uses
    and answers them as before; nothing is sent again and the exports are unchanged."""
    data, run_dir = write_dataset(tmp_path / "data.jsonl", 2), tmp_path / "run"
    first = evaluate(config(data, run_dir))
    assert first.state == "complete"
    exported, sent = results(run_dir), server.stats()["requests"]
    assert as_before_0010(run_dir / STORE_NAME) > 0
    again = evaluate(config(data, run_dir))
    assert again.state == "complete" and server.stats()["requests"] == sent
    assert results(run_dir) == exported
    assert not [line for line in again.notices if "points at" in line]
    db = sqlite3.connect(run_dir / STORE_NAME)
    assert db.execute("SELECT name FROM store_marks").fetchall() == [("keys_without_endpoint",)]
    assert all('"endpoint":' in r[0] for r in db.execute("SELECT request FROM calls"))


def test_a_run_resumed_against_another_server_says_so_and_asks_that_server(tmp_path, server, monkeypatch):
    data, run_dir = write_dataset(tmp_path / "data.jsonl", 2), tmp_path / "run"
    evaluate(config(data, run_dir))
    sent = server.stats()["requests"]
    other = ThreadedServer()
    try:
        monkeypatch.setenv("FAKE_BASE_URL", other.base_url)
        moved = evaluate(config(data, run_dir))
        asked = other.stats()["requests"]
    finally:
        other.close()
    # the answers the run recorded stay; the calls it still makes (its preflight) go to the new server alone
    assert server.stats()["requests"] == sent and asked == PREFLIGHT
    assert moved.state == "complete"
    said = [line for line in moved.notices if "points at" in line]
    assert said == [
        f"{SPEC} now points at {other.base_url.rstrip('/')}, no longer at {server.base_url.rstrip('/')}: no call "
        "made there answers for it here (what a run already recorded from there is kept; a new run directory "
        "asks everything again)"
    ]


def test_credentials_in_a_base_url_never_reach_the_key(tmp_path):
    from cobe.models.base import endpoint_name

    assert endpoint_name(["http://user:secret@127.0.0.1:8000/v1/"]) == "http://127.0.0.1:8000/v1"
    assert endpoint_name(["http://b:1/v1", "http://a:1/v1/"]) == "http://a:1/v1 http://b:1/v1"
