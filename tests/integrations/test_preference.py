"""`cobe export --to preference`: chosen/rejected pairs for DPO, loadable with `datasets`."""

from __future__ import annotations

import json

import pytest
from integration_runs import MODEL_A, MODEL_B, read_jsonl

from cobe.core.errors import InputError
from cobe.integrations.preference import export_preference
from cobe.report.load import read_results


def test_each_pair_is_a_pass_and_a_fail_on_the_same_scenario_and_query(cobe_run, tmp_path):
    result = export_preference([cobe_run], tmp_path / "pairs.jsonl")
    pairs = read_jsonl(result.out)
    # 1A and 1B: each model fails where the other passes; 2A: B fails; 4C: A fails. 1C and 2C are
    # unscored on one side and 3 fails on both: no pair there.
    assert [(p["scenario_id"], p["template"], p["chosen_model"]) for p in pairs] == [
        ("1v0", "A", MODEL_A),
        ("1v0", "B", MODEL_B),
        ("2v0", "A", MODEL_A),
        ("4v0", "C", MODEL_B),
    ]
    rows = {(r["model"], r["scenario_id"], r["template"]): r for r in read_results(cobe_run)}
    for pair in pairs:
        chosen = rows[(pair["chosen_model"], pair["scenario_id"], pair["template"])]
        rejected = rows[(pair["rejected_model"], pair["scenario_id"], pair["template"])]
        assert (chosen["status"], rejected["status"]) == ("passed", "failed")
        assert (pair["chosen"], pair["rejected"]) == (chosen["response"], rejected["response"])
        assert pair["prompt"] == chosen["prompt"] == rejected["prompt"]
        assert pair["rejected_failed_checks"] == ["connectors", "preserve", "change"]
    assert (result.pairs, result.queries) == (4, 4)
    assert export_preference([cobe_run, cobe_run / "results.jsonl"], tmp_path / "twice.jsonl").pairs == 4


def test_the_pairs_load_with_datasets(cobe_run, tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")
    out = export_preference([cobe_run], tmp_path / "pairs.jsonl").out
    loaded = datasets.load_dataset("json", data_files=str(out), split="train")
    assert loaded.num_rows == 4
    assert {"prompt", "chosen", "rejected"} <= set(loaded.column_names)
    assert all(isinstance(text, str) and text for text in [*loaded["chosen"], *loaded["rejected"]])


def test_runs_of_one_model_each_pair_up_across_runs(workdir, tmp_path):
    from cobe.run import EvalConfig, evaluate

    for model, name in ((MODEL_A, "a"), (MODEL_B, "b")):
        evaluate(EvalConfig(data="data.jsonl", models=[model], judge="mock/file:judge.yaml", run_dir=tmp_path / name))
    with pytest.raises(InputError, match="no query has both a passing and a failing response"):
        export_preference([tmp_path / "a"], tmp_path / "alone.jsonl")
    assert export_preference([tmp_path / "a", tmp_path / "b"], tmp_path / "pairs.jsonl").pairs == 4


def test_verdicts_of_two_judges_are_not_mixed(cobe_run, tmp_path, workdir):
    from cobe.run import EvalConfig, evaluate

    evaluate(EvalConfig(data="data.jsonl", models=[MODEL_A], judge="mock/judge-pass", run_dir=tmp_path / "other"))
    with pytest.raises(InputError, match="different judges"):
        export_preference([cobe_run, tmp_path / "other"], tmp_path / "pairs.jsonl")
    assert not (tmp_path / "pairs.jsonl").exists()
    assert json.loads((cobe_run / "summary.json").read_text(encoding="utf-8"))["judge"] == "mock/file:judge.yaml"
