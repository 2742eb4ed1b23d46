"""The openai-api path against the real local server: 429, 500, malformed JSON, timeouts, garbage verdicts."""

from __future__ import annotations

import json

import pytest

from cobe.run import EvalConfig, evaluate

SPEC = "openai-api/fake/fake-model"
#: a run's preflight: one call with the respondent's settings, one with the judge's
PREFLIGHT = 2


@pytest.fixture
def server(openai_server, monkeypatch):
    monkeypatch.setenv("FAKE_BASE_URL", openai_server.base_url)
    return openai_server


def config(data_file, **kw) -> EvalConfig:
    base = dict(
        data=str(data_file),
        models=[SPEC],
        judge=SPEC,
        limit=2,
        templates=["A", "B"],
        concurrency=4,
        retry_backoff=0.02,
        max_retries=4,
    )
    return EvalConfig(**(base | kw))


def rows(run_dir):
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def test_transient_faults_are_retried_and_retry_after_honoured(server, data_file):
    server.control(rate_limit=2, retry_after="0.4", server_error=2, malformed=1)
    s = evaluate(config(data_file))
    assert s.state == "complete"
    out = rows(s.run_dir)
    assert len(out) == 4 and {r["status"] for r in out} == {"passed"}
    st = server.stats()
    assert st["rate_limited"] == 2 and st["server_errors"] == 2 and st["malformed"] == 1
    assert st["requests"] == PREFLIGHT + 4 + 12 + 5  # every call once, plus one retry per injected fault
    assert s.stats["retries"] == 5 and s.stats["respondent"]["errors"] == 0 and s.stats["judge"]["errors"] == 0
    # each 429's Retry-After (0.4 s) was waited, not the 0.02 s backoff: the run's waits as they were asked, summed
    # (the other three faults add their backoffs), not a clock's reading
    assert s.stats["rate_limited"] == 2 and s.stats["retry_wait_s"] >= 2 * 0.4


def test_garbage_verdicts_are_reasked_once_then_unscored(server, data_file):
    server.control(verdict="maybe?")
    s = evaluate(config(data_file))
    st = server.stats()
    assert st["requests"] == PREFLIGHT + 4 + 12 * 2  # each check re-asked exactly once
    out = rows(s.run_dir)
    assert {r["status"] for r in out} == {"unscored"}
    assert all(r["judge_raw"]["change"] == "maybe?" and "maybe" in r["unscored"]["change"] for r in out)
    assert s.summary["models"][SPEC]["unscored"] == 4 and s.summary["models"][SPEC]["scored"] == 0


def test_mixed_verdicts_count_unscored_apart(server, data_file):
    server.control(verdict=["T", "T", "F", "??"])
    s = evaluate(config(data_file))
    out = rows(s.run_dir)
    assert s.state == "complete"
    for r in out:
        assert r["status"] in {"passed", "failed", "unscored"}
        for check, reason in r["unscored"].items():
            assert r["verdicts"][check] is None and r["judge_raw"][check] == "??" and reason
    m = s.summary["models"][SPEC]
    assert m["scored"] + m["unscored"] == 4


def test_timeouts_are_recorded_as_errors_then_redone_on_resume(server, data_file):
    server.control(hold_after=0)  # the server answers nothing: every call times out
    s = evaluate(config(data_file, timeout=0.1, max_retries=1))
    assert s.state == "incomplete" and s.unfinished == 4  # failed calls never crash a run, nor finish it
    out = rows(s.run_dir)
    assert {r["status"] for r in out} == {"error"} and all(r["response_error"] == "timeout" for r in out)
    assert s.summary["models"][SPEC]["errors"] == 4 and s.stats["respondent"]["errors"] == 4
    server.control(hold_after=None)
    again = evaluate(config(data_file))  # no per-call timeout: a busy machine may be slow to answer
    assert again.state == "complete" and again.unfinished == 0
    assert {r["status"] for r in rows(again.run_dir)} == {"passed"}
    assert again.stats["respondent"]["calls_made"] == 4


def test_rpm_limit_paces_requests(server, data_file):
    s = evaluate(config(data_file, rpm=600, templates=["A"], limit=2))  # 10 per second, burst 600
    assert s.state == "complete" and server.stats()["requests"] == PREFLIGHT + 2 + 6
