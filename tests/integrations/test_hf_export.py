"""`cobe export --to hf`: details as Parquet, a results JSON and a dataset card, in a Hub repository's layout."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from integration_runs import MODEL_A, MODEL_B

from cobe.core.errors import InputError, ProviderUnavailable
from cobe.report.load import read_results

datasets = pytest.importorskip("datasets")
hub = pytest.importorskip("huggingface_hub")

from cobe.integrations.hf import export_hf  # noqa: E402


@pytest.fixture(scope="module")
def folder(cobe_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_hf(cobe_run, tmp_path_factory.mktemp("hf") / "cobe-results").out


def test_the_folder_loads_as_a_dataset_with_one_row_per_response(folder, cobe_run, tmp_path, monkeypatch):
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")
    details = datasets.load_dataset(str(folder), "details", split="train")
    rows = read_results(cobe_run)
    assert details.num_rows == len(rows) == 24
    first = details[0]
    assert (first["scenario_id"], first["template"], first["model"]) == (rows[0]["scenario_id"], "A", MODEL_A)
    assert first["response"] == rows[0]["response"] and first["verdict_change"] == rows[0]["verdicts"]["change"]
    assert first["input_tokens"] > 0 and first["judge_output_tokens"] > 0
    assert first["preserve"] == rows[0]["preserve"]  # lists stay lists
    unscored = details.filter(lambda r: r["status"] == "unscored")
    assert unscored.num_rows == 2 and set(unscored["verdict_preserve"]) == {None}


def test_results_json_holds_the_runs_scores(folder, cobe_run):
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    summary = json.loads((cobe_run / "summary.json").read_text(encoding="utf-8"))["models"]
    for model in (MODEL_A, MODEL_B):
        mine = results["models"][model]
        assert (mine["accuracy"], mine["std"]) == pytest.approx((summary[model]["accuracy"], summary[model]["std"]))
        assert mine["ci_low"] <= mine["accuracy"] <= mine["ci_high"]
        assert mine["checks"]["change"]["failure_rate"] == pytest.approx(
            summary[model]["check_failure_rates"]["change"]["failure_rate"]
        )
    assert results["judge"]["spec"] == "mock/file:judge.yaml" and results["judge"]["fingerprint"]


def test_the_card_front_matter_is_one_the_hub_reads(folder):
    card = hub.DatasetCard.load(folder / "README.md")
    assert card.data.configs == [
        {"config_name": "details", "data_files": [{"split": "train", "path": "data/details.parquet"}]}
    ]
    assert "cobe" in card.data.tags
    assert f"| `{MODEL_A}` | 52.8 | 21.0 |" in card.text


def test_an_existing_folder_is_refused(cobe_run, tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="not empty"):
        export_hf(cobe_run, tmp_path / "taken")


def test_without_datasets_installed_the_extra_is_named(cobe_run, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(ProviderUnavailable, match=r"pip install 'cobe\[hf\]'"):
        export_hf(cobe_run, tmp_path / "out")
