"""`cobe import --from lm-eval`: an lm-evaluation-harness `--log_samples` file becomes a run to judge.

The fixture is what lm-eval 0.4 writes for a generate_until task over CoBe rows in the project
site's shape (one document per scenario and query): `samples_cobe_<time>.jsonl` beside
`results_<time>.json`, one document written twice because the task has two filter pipelines.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from integration_runs import JUDGE, read_jsonl

from cobe.core.errors import InputError
from cobe.integrations.lm_eval import import_lm_eval
from cobe.report.load import read_results
from cobe.run import judge_run

OUTPUT = Path(__file__).parent / "data" / "lm_eval" / "EleutherAI__pythia-160m"
SAMPLES = OUTPUT / "samples_cobe_2026-11-30T10-15-42.512394.jsonl"
MODEL = "EleutherAI/pythia-160m"


def test_samples_become_a_run_that_judges_and_reports(tmp_path, workdir):
    imported = import_lm_eval(SAMPLES, tmp_path / "run")
    assert (imported.models, imported.responses, imported.scenarios) == ([MODEL], 6, 2)  # the repeat is dropped
    assert imported.templates == ["A", "B", "C"]
    judge_run(tmp_path / "run", JUDGE)
    statuses = {(r["scenario_id"], r["template"]): r["status"] for r in read_results(tmp_path / "run")}
    assert statuses == {
        ("1v0", "A"): "passed",
        ("1v0", "B"): "failed",
        ("1v0", "C"): "unscored",
        ("2v0", "A"): "passed",
        ("2v0", "B"): "passed",
        ("2v0", "C"): "failed",
    }
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert summary["models"][MODEL]["accuracy"] == pytest.approx((100 + 50 + 0) / 3)  # A 2/2, B 1/2, C 0/1
    from cobe.report.writer import build_report

    assert build_report([tmp_path / "run"], out=tmp_path / "report", formats="md").leaderboard["model"].tolist() == [
        MODEL
    ]


def test_the_judge_sees_the_raw_generation_and_the_store_keeps_the_prompt(tmp_path, workdir):
    import_lm_eval(SAMPLES, tmp_path / "run")
    judge_run(tmp_path / "run", JUDGE)
    first = read_jsonl(SAMPLES)[0]
    row = read_results(tmp_path / "run")[0]
    assert row["response"] == first["resps"][0][0]
    from cobe.run import Store

    store = Store(tmp_path / "run" / "cobe.sqlite")
    try:
        stored = next(iter(store.responses(store.latest_run().id).values()))
        assert stored.prompt == first["arguments"]["gen_args_0"]["arg_0"]
    finally:
        store.close()


def test_without_a_results_file_the_model_is_asked_for(tmp_path, workdir):
    alone = tmp_path / SAMPLES.name
    shutil.copy(SAMPLES, alone)
    with pytest.raises(InputError, match="give --model"):
        import_lm_eval(alone, tmp_path / "run")
    assert import_lm_eval(alone, tmp_path / "run", model="my/model").models == ["my/model"]


def test_scenarios_can_come_from_data(tmp_path, workdir):
    # documents that hold only ids and the query index: the scenarios come from the dataset
    lines = []
    for record in read_jsonl(SAMPLES):
        doc = record["doc"]
        lines.append(record | {"doc": {"example_id": doc["example_id"], "query_idx": doc["query_idx"]}})
    thin = tmp_path / SAMPLES.name
    thin.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(InputError, match="give the dataset with --data"):
        import_lm_eval(thin, tmp_path / "run", model=MODEL)
    assert import_lm_eval(thin, tmp_path / "run", model=MODEL, data="data.jsonl").scenarios == 2


def test_a_log_of_another_benchmark_is_one_line(tmp_path):
    gsm8k = tmp_path / "samples_gsm8k_2026-11-30T10-15-42.jsonl"
    record = {
        "doc_id": 0,
        "doc": {"question": "Tom has 3 apples and buys 2 more. How many apples has he?", "answer": "#### 5"},
        "target": "5",
        "arguments": {"gen_args_0": {"arg_0": "Question: ...", "arg_1": {"until": ["Question:"]}}},
        "resps": [["He has 5 apples. #### 5"]],
        "filtered_resps": ["5"],
        "filter": "strict-match",
        "metrics": ["exact_match"],
        "exact_match": 1.0,
    }
    gsm8k.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r":1: doc names no CoBe scenario and query .*CoBe-style task"):
        import_lm_eval(gsm8k, tmp_path / "run", model=MODEL)


def test_a_file_that_is_not_a_samples_log_is_one_line(tmp_path):
    other = tmp_path / "results.jsonl"
    other.write_text(json.dumps({"model": "x", "verdict": "T"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="not an lm-evaluation-harness --log_samples record"):
        import_lm_eval(other, tmp_path / "run", model=MODEL)


def test_loglikelihood_tasks_are_refused(tmp_path, workdir):
    lines = [record | {"resps": [[[-4.2, False]]]} for record in read_jsonl(SAMPLES)]
    scored = tmp_path / SAMPLES.name
    scored.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(InputError, match="expected a generate_until task"):
        import_lm_eval(scored, tmp_path / "run", model=MODEL)


def another_scenario(record: dict, core: int) -> dict:
    """The record asked of another scenario: the same task over core example `core`, its doc_id unchanged."""
    doc = record["doc"] | {"example_id": f"{core}v0", "coreset_id": core}
    doc["original"] = doc["original"].replace("Baker 1", f"Baker {core}").replace("Baker 2", f"Baker {core}")
    return record | {"doc": doc}


def test_two_samples_files_joined_keep_every_document(tmp_path, workdir):
    # a second file's doc_ids start again at 0: each names another document, not a repeat of the first file's
    first = read_jsonl(SAMPLES)
    second = [another_scenario(record, 3) for record in first if record["doc"]["example_id"] == "1v0"]
    joined = tmp_path / SAMPLES.name
    joined.write_text("".join(json.dumps(line) + "\n" for line in first + second), encoding="utf-8")
    imported = import_lm_eval(joined, tmp_path / "run", model=MODEL)
    assert (imported.responses, imported.scenarios) == (9, 3)
    asked = {(r["scenario_id"], r["template"]) for r in read_jsonl(tmp_path / "run" / "results.jsonl")}
    assert {("1v0", "A"), ("3v0", "A"), ("3v0", "C")} <= asked


def test_one_document_with_two_generations_is_one_line(tmp_path, workdir):
    first = read_jsonl(SAMPLES)
    again = first[-1] | {"resps": [["Another answer altogether."]], "filtered_resps": ["Another answer altogether."]}
    doubled = tmp_path / SAMPLES.name
    doubled.write_text("".join(json.dumps(line) + "\n" for line in [*first, again]), encoding="utf-8")
    with pytest.raises(InputError, match=rf":{len(first) + 1}: doc_id 5 repeats line {len(first)} with another "):
        import_lm_eval(doubled, tmp_path / "run", model=MODEL)
    assert not (tmp_path / "run").exists()
