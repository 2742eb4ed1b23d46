"""Judge panels through the engine: every judge's verdicts stored, the majority shown, resumed per member."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.judge.prompt_sets import load_judge_prompts
from cobe.run import EvalConfig, evaluate, judge_run
from cobe.store.store import STORE_NAME

SERVER_JUDGE = "openai-api/fake/fake-model"
PANEL = ["mock/judge-pass", "mock/judge-fail", "mock/fixed:T"]


def rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def test_a_panel_stores_every_judges_verdicts_and_shows_their_majority(data_file):
    s = evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge=PANEL))
    out = rows(s.run_dir)
    assert len(out) == 12 and {r["status"] for r in out} == {"passed"}  # T, F, T on every check
    checks = ("connectors", "preserve", "change")
    assert out[0]["member_verdicts"] == {spec: dict.fromkeys(checks, [v]) for spec, v in zip(PANEL, "TFT")}
    db = sqlite3.connect(s.run_dir / STORE_NAME)
    per_judge = dict(db.execute("SELECT judge, count(*) FROM verdicts GROUP BY judge").fetchall())
    assert per_judge == dict.fromkeys(PANEL, 36)  # one row per judge × check × response, as a lone judge's
    members = json.loads(db.execute("SELECT judge_members FROM runs").fetchone()[0])
    db.close()
    fingerprint = load_judge_prompts("paper").fingerprint
    assert members == {
        "members": [{"spec": spec, "prompt_set": "paper", "fingerprint": fingerprint} for spec in PANEL],
        "samples": 1,
    }
    shown = summary(s.run_dir)
    assert shown["judge"] == "panel(mock/judge-pass, mock/judge-fail, mock/fixed:T)"
    assert shown["judge_fingerprint"].startswith("panel-") and shown["judge_members"] == members["members"]
    accuracy = shown["panel"]["accuracy"]["mock/echo"]
    assert {judge: a["accuracy"] for judge, a in accuracy.items()} == {
        "panel": 100.0,
        "mock/judge-pass": 100.0,
        "mock/judge-fail": 0.0,
        "mock/fixed:T": 100.0,
    }
    assert shown["panel"]["agreement"]["preserve"]["items"] == 12
    assert "## Judges" in (s.run_dir / "report.md").read_text()


def test_the_same_panel_in_another_order_is_the_same_judge(data_file):
    first = evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge=PANEL))
    before = [(r["verdicts"], r["status"], r["unscored"]) for r in rows(first.run_dir)]
    again = judge_run(first.run_dir, PANEL[::-1])
    assert again.stats["judge"]["calls_made"] == 0  # every member's verdicts are already stored
    assert summary(first.run_dir)["judge_fingerprint"] == first.summary["judge_fingerprint"]
    assert [(r["verdicts"], r["status"], r["unscored"]) for r in rows(first.run_dir)] == before


def test_two_judges_that_split_leave_every_response_unscored_with_the_reason(data_file):
    s = evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass,mock/judge-fail"))
    out = rows(s.run_dir)
    assert {r["status"] for r in out} == {"unscored"}
    assert out[0]["unscored"] == dict.fromkeys(("connectors", "preserve", "change"), "judges split 1 T / 1 F")
    assert s.summary["models"]["mock/echo"]["unscored"] == 12


def test_an_unparseable_judge_abstains_and_the_others_decide(data_file):
    s = evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge=["mock/fixed:perhaps", "mock/judge-fail"]))
    out = rows(s.run_dir)
    assert {r["status"] for r in out} == {"failed"}
    assert out[0]["member_verdicts"]["mock/fixed:perhaps"]["preserve"] == [None]


def test_a_panel_resumes_only_the_member_that_had_not_finished(data_file, openai_server, monkeypatch):
    monkeypatch.setenv("FAKE_BASE_URL", openai_server.base_url)
    openai_server.control(server_error=10**6)  # the server judge fails every call this time
    config = EvalConfig(
        data=str(data_file), models=["mock/echo"], judge=["mock/judge-pass", SERVER_JUDGE], max_retries=0
    )
    first = evaluate(config)
    assert first.stats["judge"]["calls_made"] == 72 and first.stats["judge"]["errors"] == 36
    # a failed call abstains like an unreadable answer: the judge that answered decides, for now
    assert {r["status"] for r in rows(first.run_dir)} == {"passed"}
    assert {r["member_verdicts"][SERVER_JUDGE]["change"][0] for r in rows(first.run_dir)} == {None}
    openai_server.control(reset=True)
    again = evaluate(config)
    assert again.stats["judge"]["calls_made"] == 36  # the server judge's calls only
    assert openai_server.stats()["judge_requests"] == 36
    assert {r["member_verdicts"][SERVER_JUDGE]["change"][0] for r in rows(first.run_dir)} == {"T"}


def test_a_judge_grading_its_own_kind_is_named(data_file):
    s = evaluate(EvalConfig(data=str(data_file), models=["mock/fixed:T"], judge=["mock/fixed:T", "mock/judge-pass"]))
    notice = (
        "self-preference: judge mock/fixed:T grades mock/fixed:T, the same model; "
        "judges tend to favour answers of their own kind"
    )
    assert notice in s.notices and notice in (s.run_dir / "report.md").read_text()


def test_a_dry_run_counts_every_member_and_sample(data_file):
    config = EvalConfig(
        data=str(data_file), models=["mock/echo"], judge=["mock/judge-pass", "mock/judge-fail"], judge_samples=2
    )
    dry = evaluate(config.model_copy(update={"dry_run": True})).dry_run
    assert dry is not None and dry.judge_calls == 12 * 3 * 2 * 2
    made = evaluate(config).stats["judge"]
    assert made["calls_made"] == dry.judge_calls
    left = evaluate(config.model_copy(update={"dry_run": True})).dry_run
    assert left is not None and (left.judge_calls, left.judge_cached) == (0, 144)


def test_a_judge_named_twice_is_refused(data_file):
    with pytest.raises(InputError, match="named twice"):
        EvalConfig(data=str(data_file), models=["mock/echo"], judge=["mock/judge-pass", "mock/judge-pass"])


def test_run_eval_takes_a_list_of_judges(data_file, tmp_path):
    import cobe

    s = cobe.run_eval("mock/echo", judge=PANEL[:2], data=data_file, run_dir=tmp_path / "api")
    assert s.judge == "panel(mock/judge-pass, mock/judge-fail)"
    assert s.summary["models"]["mock/echo"]["unscored"] == 12
