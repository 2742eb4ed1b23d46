"""The whole pipeline with mock and baseline providers: pass rule, cache, resume, re-judge."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.run import Caller, EvalConfig, evaluate, generate, judge_responses, judge_run, list_runs
from cobe.store.store import STORE_NAME, Store, _migrations


def rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def change_judge(tmp_path: Path) -> tuple[str, str]:
    """(judge spec, prompt dir): F to the change check when the rewrite is the unchanged story, else T."""
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "config.yaml").write_text("name: test-tf\nmax_tokens: 5\n")
    (prompts / "connectors.txt").write_text("CHECK=connectors RESPONSE={response}\n")
    (prompts / "preserve.txt").write_text("CHECK=preserve RESPONSE={response}\nCRITERION={criterion}\n")
    (prompts / "change.txt").write_text("CHECK=change RESPONSE={response}\nCRITERION={criterion}\n")
    script = tmp_path / "judge.yaml"
    script.write_text(json.dumps({"CHECK=change RESPONSE=Baker": "F", "default": "T"}))
    return f"mock/file:{script}", str(prompts)


def test_echo_with_pass_judge_passes_everything(data_file):
    s = evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass"))
    assert s.state == "complete"
    out = rows(s.run_dir)
    assert len(out) == 12 and {r["status"] for r in out} == {"passed"}
    assert {r["template"] for r in out} == {"A", "B", "C"}
    m = s.summary["models"]["mock/echo"]
    assert m["accuracy"] == 100.0 and m["n"] == 12 and m["scored"] == 12
    assert set(m["per_template"]) == {"A", "B", "C"}
    assert s.stats["respondent"]["calls_made"] == 12 and s.stats["judge"]["calls_made"] == 36
    summary = json.loads((s.run_dir / "summary.json").read_text())
    assert summary["state"] == "complete" and summary["command"]["calls"]["judge"]["calls_made"] == 36
    assert "mock/echo" in (s.run_dir / "report.md").read_text()


def test_identity_fails_change_check_and_illustrative_passes(data_file, tmp_path):
    judge, prompts = change_judge(tmp_path)
    s = evaluate(
        EvalConfig(
            data=str(data_file),
            models=["baseline/identity", "baseline/illustrative"],
            judge=judge,
            judge_prompts=prompts,
        )
    )
    by_model: dict[str, list[dict]] = {}
    for r in rows(s.run_dir):
        by_model.setdefault(r["model"], []).append(r)
    ident = by_model["baseline/identity"]
    assert all(r["status"] == "failed" and r["verdicts"]["change"] == "F" for r in ident)
    assert all(r["verdicts"]["preserve"] == "T" for r in ident)
    assert all(r["status"] == "passed" for r in by_model["baseline/illustrative"])
    models = s.summary["models"]
    assert models["baseline/identity"]["accuracy"] == 0.0
    assert models["baseline/identity"]["check_failure_rates"]["change"]["failure_rate"] == 100.0
    assert models["baseline/illustrative"]["accuracy"] == 100.0


def test_repeat_makes_no_call_and_rejudge_makes_no_respondent_call(data_file):
    config = EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass")
    first = evaluate(config)
    again = evaluate(config)
    assert again.run_dir == first.run_dir
    assert again.stats["respondent"]["calls_made"] == 0 and again.stats["judge"]["calls_made"] == 0
    rejudged = judge_run(first.run_dir, "mock/judge-fail")
    assert rejudged.stats["respondent"]["calls_made"] == 0 and rejudged.stats["respondent"]["calls_cached"] == 0
    assert rejudged.stats["judge"]["calls_made"] == 36
    out = rows(first.run_dir)
    assert {r["judge"] for r in out} == {"mock/judge-fail"} and {r["status"] for r in out} == {"failed"}
    # the old judge's verdicts are kept beside the new ones
    db = sqlite3.connect(first.run_dir / STORE_NAME)
    assert dict(db.execute("SELECT judge, count(*) FROM verdicts GROUP BY judge").fetchall()) == {
        "mock/judge-pass": 36,
        "mock/judge-fail": 36,
    }
    # judging again with the first judge is answered wholly from the store
    back = judge_run(first.run_dir, "mock/judge-pass")
    assert back.stats["judge"]["calls_made"] == 0
    assert {r["status"] for r in rows(first.run_dir)} == {"passed"}


def test_generate_then_judge(data_file):
    g = generate(EvalConfig(data=str(data_file), models=["mock/echo"]))
    out = rows(g.run_dir)
    assert len(out) == 12 and {r["status"] for r in out} == {"pending"} and all(r["response"] for r in out)
    j = judge_run(g.run_dir, "mock/judge-pass")
    assert j.stats["respondent"]["calls_made"] == 0
    assert {r["status"] for r in rows(g.run_dir)} == {"passed"}
    # eval on the same dir after generate: only judging is left, and it is done
    e = evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass"))
    assert e.run_dir == g.run_dir and e.stats["respondent"]["calls_made"] == 0 and e.stats["judge"]["calls_made"] == 0


def test_unparseable_verdict_is_reasked_once_then_unscored(data_file):
    s = evaluate(
        EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/fixed:perhaps", limit=1, templates=["A"])
    )
    (row,) = rows(s.run_dir)
    assert row["status"] == "unscored" and row["passed"] is None
    assert set(row["unscored"]) == {"connectors", "preserve", "change"}
    assert row["judge_raw"]["change"] == "perhaps"
    assert s.stats["judge"]["calls_made"] == 6  # each check asked twice, the second a distinct call
    assert s.summary["models"]["mock/echo"]["unscored"] == 1


def test_changed_config_is_refused_unless_force_new(data_file, tmp_path):
    run_dir = tmp_path / "r"
    evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", run_dir=run_dir))
    with pytest.raises(InputError, match="different templates"):
        evaluate(
            EvalConfig(
                data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", run_dir=run_dir, templates=["A"]
            )
        )
    s = evaluate(
        EvalConfig(
            data=str(data_file),
            models=["mock/echo"],
            judge="mock/judge-pass",
            run_dir=run_dir,
            templates=["A"],
            force_new=True,
        )
    )
    assert len(rows(run_dir)) == 4
    assert s.stats["respondent"]["calls_cached"] == 4  # identical calls answered from the shared store
    # an edited data file is a different evaluation too
    data_file.write_text(data_file.read_text().replace("festival", "fair"))
    with pytest.raises(InputError, match="different data"):
        evaluate(
            EvalConfig(
                data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", run_dir=run_dir, templates=["A"]
            )
        )


def test_store_schema_wal_and_no_secret(data_file, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-never-stored")
    s = evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", limit=1))
    path = s.run_dir / STORE_NAME
    store = Store(path)  # reopening applies nothing twice
    assert [r[0] for r in store.db.execute("SELECT version FROM schema_migrations")] == [v for v, _, _ in _migrations()]
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()
    assert b"sk-secret-never-stored" not in path.read_bytes()
    run = sqlite3.connect(path).execute("SELECT state, config, cobe_version FROM runs").fetchone()
    assert run[0] == "complete" and json.loads(run[1])["models"] == ["mock/echo"]


def test_list_runs(data_file):
    s = evaluate(EvalConfig(data=str(data_file), models=["mock/echo"], judge="mock/judge-pass", limit=1))
    (entry,) = list_runs("runs")
    assert entry["run_dir"] == str(s.run_dir) and entry["state"] == "complete"
    assert entry["models"] == ["mock/echo"] and entry["accuracy"] == {"mock/echo": 100.0}


def test_judge_responses_api(tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from cobe.dataset.schema import Scenario
    from support.run_data import scenario

    s = Scenario.model_validate(scenario(1))
    judge, prompts = change_judge(tmp_path)
    store = tmp_path / "judge.sqlite"
    out = judge_responses([(s, s.story), (s, s.illustrative_answer)], judge, prompts, store_path=store)
    assert [i.status for i in out] == ["failed", "passed"]
    assert out[0].verdicts == {"connectors": "T", "preserve": "T", "change": "F"}
    assert (
        out.totals["items"] == 2 and out.totals["calls"]["calls_made"] == 6 and isinstance(out.totals["seconds"], float)
    )
    again = judge_responses([(s, s.story)], judge, prompts, store_path=store)
    assert again.totals["calls"]["calls_made"] == 0 and again[0].status == "failed"


async def test_caller_caches_identical_calls(tmp_path):
    from cobe.models.base import GenerateConfig, Message
    from cobe.models.registry import get_provider

    caller = Caller.open(tmp_path / "c.sqlite")
    provider = get_provider("mock/echo")
    msgs = [Message(role="user", content="hello")]
    a = await caller.call(provider, msgs, GenerateConfig(temperature=0), role="respondent")
    b = await caller.call(provider, msgs, GenerateConfig(temperature=0), role="respondent")
    c = await caller.call(provider, msgs, GenerateConfig(temperature=1), role="respondent")
    assert a.text == "hello" and not a.cached and b.cached and b.key == a.key and c.key != a.key
    assert provider.calls == 2


def test_reasoning_template_rows_keep_raw_text_and_the_judged_story(tmp_path):
    from cobe.run.config import EvalConfig
    from cobe.run.engine import evaluate

    answer = "Step 1: variables. Final story: Sam ate next door and kept his money."
    summary = evaluate(
        EvalConfig(models=[f"mock/fixed:{answer}"], judge="mock/judge-pass", tier=4, limit=1, run_dir=tmp_path / "run")
    )
    row = json.loads((summary.run_dir / "results.jsonl").read_text().splitlines()[0])
    assert row["template"] == "H2" and row["response"] == answer
    assert row["judged_response"] == "Sam ate next door and kept his money."
    assert row["query"].startswith("Rewrite the original story as a causal analyst would")
    assert "Original story:" not in row["query"]  # the request block only


def test_tier_two_reads_the_clause_from_the_query_and_skips_a_scenario_without_one(tmp_path):
    from cobe.run.config import EvalConfig
    from cobe.run.engine import evaluate
    from support.run_data import scenario

    with_fields = dict(scenario(1), original_condition="the baker 1 kept the shop open late")
    without = scenario(2)
    without.pop("intervention")  # as in official files: the clause is read back out of query B
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(with_fields) + "\n" + json.dumps(without) + "\n", encoding="utf-8")
    summary = evaluate(
        EvalConfig(data=str(data), models=["mock/echo"], judge="mock/judge-pass", tier=2, run_dir=tmp_path / "run")
    )
    rows = [json.loads(line) for line in (summary.run_dir / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 8  # D, E, F, G for both scenarios: nothing is skipped
    second = [r for r in rows if r["scenario_id"] == "2v0"]
    assert all("the baker 2 had closed early" in r["prompt"] for r in second)
    assert json.loads((summary.run_dir / "summary.json").read_text())["skipped"] == {}
    assert any("state the change without the original condition" in n and "E: 1" in n for n in summary.notices)
    # a scenario with neither the field nor a query that states the change is skipped, named and counted;
    # the run goes on with the others
    lost = dict(without, id="3v0", core_id=3, queries=[f"Tell me what would change, version {n}." for n in (1, 2, 3)])
    data.write_text(json.dumps(with_fields) + "\n" + json.dumps(lost) + "\n", encoding="utf-8")
    again = evaluate(
        EvalConfig(data=str(data), models=["mock/echo"], judge="mock/judge-pass", tier=2, run_dir=tmp_path / "lost")
    )
    rows = [json.loads(line) for line in (again.run_dir / "results.jsonl").read_text().splitlines()]
    assert {r["scenario_id"] for r in rows} == {"1v0"} and len(rows) == 4
    written = json.loads((again.run_dir / "summary.json").read_text())
    assert written["skipped"] == dict.fromkeys("DEFG", 1) and written["unphrased"] == {t: ["3v0"] for t in "DEFG"}
    skipped = [n for n in again.notices if "no intervention could be read" in n]
    assert len(skipped) == 4 and all("skipped 1 of 2 scenarios" in n and n.endswith(": 3v0") for n in skipped)
    assert all(n in (again.run_dir / "report.md").read_text() for n in skipped)
    data.write_text(json.dumps(lost) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"^no scenario has a query in the chosen phrasings, or can be phrased"):
        evaluate(EvalConfig(data=str(data), models=["mock/echo"], judge="mock/judge-pass", tier=2))


GOLDEN = Path(__file__).parent / "data" / "golden"
EXPORTS = ("results.jsonl", "summary.json", "report.md")


def _masked(run_dir: Path, stage: str) -> dict[str, str]:
    """The exports of a run dir with what differs from run to run (id, clock, wall time) masked."""
    run_id = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))["run_id"]
    out = {}
    for name in EXPORTS:
        text = (run_dir / name).read_text(encoding="utf-8").replace(run_id, "RUN-ID")
        text = re.sub(r'"updated": "[^"]+"', '"updated": "TIME"', text)
        text = re.sub(r'"wall_s": [0-9.e-]+', '"wall_s": 0', text)
        text = re.sub(r"(Last command `\w+`): [0-9.]+ s\.", r"\1: 0 s.", text)
        out[f"{stage}/{name}"] = text
    return out


def golden_exports(workdir: Path, executor: str = "local") -> dict[str, str]:
    """generate, eval (judge temperature overridden), re-judge: the masked exports after each command.

    Run in `workdir` (the current directory): every path the exports mention is relative. The mix
    covers passed, failed, unscored (a re-asked verdict), failed although another check is unscored,
    unscored without a judge call (a reply cut off at the token limit, an H2 reply without its
    marker), error and pending rows, a scenario whose tier 2-4 clause is read from its query, a
    final-marker template and two respondents.
    """
    for name in ("scenarios.jsonl", "copycat.json", "respondent.json", "judge.json"):
        shutil.copy(GOLDEN / name, workdir / name)
    base = {
        "data": "scenarios.jsonl",
        "models": ["mock/file:copycat.json", "mock/file:respondent.json"],
        "templates": ["A", "B", "D", "H2"],
        "run_dir": Path("run"),
        "max_tokens": 40,  # the mock counts words: one scripted reply is longer, so it is cut off
        "executor": executor,
    }
    generate(EvalConfig(**base))
    out = _masked(workdir / "run", "generate")
    judge = {"judge": "mock/file:judge.json", "judge_prompts": str(GOLDEN / "judge_prompts"), "judge_temperature": 0.5}
    evaluate(EvalConfig(**base, **judge))
    out |= _masked(workdir / "run", "eval")
    judge_run(Path("run"), "mock/judge-fail", executor=executor)
    out |= _masked(workdir / "run", "judge")
    return out


def test_exports_match_the_golden_files(tmp_path):
    """results.jsonl, summary.json and report.md stay byte for byte what the engine wrote before (masked)."""
    got = golden_exports(tmp_path)
    assert len(got) == 9
    for key, text in got.items():
        assert text == (GOLDEN / key).read_text(encoding="utf-8"), key


if __name__ == "__main__":  # regenerate the golden files, only when an export change is intended
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)
        for key, text in golden_exports(Path(work)).items():
            (GOLDEN / key).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / key).write_text(text, encoding="utf-8")
            print(GOLDEN / key)
