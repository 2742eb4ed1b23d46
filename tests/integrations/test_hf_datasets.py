"""`--data hf:ORG/NAME[:SPLIT]`, `save_to_disk` folders and Parquet files, read through `datasets`.

Both official shapes are tested in each form, with the validation a JSON file gets. The Hub is
out of reach here; `datasets.load_dataset("ORG/NAME")` reads a local folder of that name first,
which is the path `hf:` sources take (the Hub is only asked when no such folder exists).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cobe.core.errors import InputError, ProviderUnavailable
from cobe.dataset import load_dataset, read_file, validate

datasets = pytest.importorskip("datasets")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"
IDS = ["1v0", "1v1", "2v0", "3v0"]


def rows(name: str) -> list[dict]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.fixture
def paper_folder(tmp_path: Path) -> Path:
    """The paper's shape, saved with `Dataset.save_to_disk`."""
    folder = tmp_path / "paper_ds"
    datasets.Dataset.from_list(rows("paper.json")).save_to_disk(str(folder))
    return folder


@pytest.fixture
def site_parquet(tmp_path: Path) -> Path:
    """The project site's shape (one row per query), as Parquet."""
    path = tmp_path / "site.parquet"
    datasets.Dataset.from_list(rows("site_flat.json")).to_parquet(str(path))
    return path


def test_a_saved_dataset_in_the_papers_shape_loads_like_its_json(paper_folder):
    result = read_file(paper_folder)
    assert (result.shape, [str(p) for p in result.problems]) == ("paper-hf", [])
    assert [s.model_dump() for s in result.scenarios] == [
        s.model_dump() for s in read_file(FIXTURES / "paper.json").scenarios
    ]


def test_parquet_in_the_sites_shape_merges_its_rows_like_its_json(site_parquet):
    result = read_file(site_parquet)
    assert (result.shape, [str(p) for p in result.problems]) == ("site-hf", [])
    assert [s.model_dump() for s in result.scenarios] == [
        s.model_dump() for s in read_file(FIXTURES / "site_flat.json").scenarios
    ]


def test_hf_sources_go_through_load_dataset(tmp_path, monkeypatch):
    # a folder named like a Hub repository: the first place datasets.load_dataset("org/cobe") looks
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")  # not the user's cache
    (tmp_path / "org" / "cobe").mkdir(parents=True)
    datasets.Dataset.from_list(rows("site_flat.json")).to_parquet(str(tmp_path / "org" / "cobe" / "test.parquet"))
    datasets.Dataset.from_list(rows("site_flat.json")[:3]).to_parquet(str(tmp_path / "org" / "cobe" / "train.parquet"))
    assert [s.id for s in load_dataset("hf:org/cobe")] == IDS  # two splits: `test` is the evaluation set
    assert [s.id for s in load_dataset("hf:org/cobe:train")] == ["1v0"]
    with pytest.raises(InputError, match="hf:org/cobe:validation: .*Unknown split"):
        load_dataset("hf:org/cobe:validation")


def test_a_dataset_dict_folder_names_its_split_by_path(paper_folder, tmp_path):
    both = tmp_path / "dict"
    single = datasets.load_from_disk(str(paper_folder))
    datasets.DatasetDict({"train": single, "validation": single}).save_to_disk(str(both))
    with pytest.raises(InputError, match=r"several splits \(train, validation\); name one as .*/SPLIT"):
        load_dataset(both)
    assert [s.id for s in load_dataset(both / "validation")] == IDS


def test_a_dataset_dict_folder_names_its_split_like_the_hub_does(paper_folder, tmp_path, monkeypatch):
    # `hf_dict:train` reads like `hf:ORG/NAME:train`; it was "file not found" while hf:hf_dict:train worked
    monkeypatch.chdir(tmp_path)
    single = datasets.load_from_disk(str(paper_folder))
    datasets.DatasetDict({"train": single.select(range(2)), "test": single}).save_to_disk("hf_dict")
    assert [s.id for s in load_dataset("hf_dict:train")] == IDS[:2]
    assert [s.id for s in load_dataset(tmp_path / "hf_dict:test")] == IDS
    assert read_file("hf_dict:train").shape == "paper-hf"
    assert validate(["hf_dict:train"]).errors == 0
    with pytest.raises(InputError, match=r"hf_dict:validation: .*no split 'validation'; it holds train, test"):
        load_dataset("hf_dict:validation")
    with pytest.raises(InputError, match=r"holds one dataset, not splits; drop :train"):
        load_dataset(f"{paper_folder}:train")
    # a file whose name holds a colon is still that file
    named = tmp_path / "odd:name.json"
    named.write_text((FIXTURES / "paper.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert [s.id for s in load_dataset(named)] == IDS


def test_a_table_without_the_needed_columns_is_reported_like_a_file(tmp_path):
    table = [{k: v for k, v in row.items() if k != "Evaluation criteria"} for row in rows("paper.json")]
    folder = tmp_path / "no_criteria"
    datasets.Dataset.from_list(table).save_to_disk(str(folder))
    report = validate([folder])
    assert report.errors == 4
    assert str(report.problems[0]) == f"{folder}:1: 1v0: Evaluation criteria: missing required field"
    with pytest.raises(InputError, match=r"1v0: Evaluation criteria: missing required field \(and 3 more errors"):
        load_dataset(folder)


def test_rows_of_another_dataset_are_one_line_each(tmp_path):
    path = tmp_path / "gsm8k.parquet"
    datasets.Dataset.from_list([{"question": "2 + 2?", "answer": "4"}]).to_parquet(str(path))
    with pytest.raises(InputError, match=r"gsm8k.parquet:1: core_id: missing required field"):
        load_dataset(path)


def test_cobe_eval_runs_on_a_parquet_dataset(site_parquet, tmp_path):
    from cobe.run import EvalConfig, evaluate

    summary = evaluate(
        EvalConfig(data=str(site_parquet), models=["mock/echo"], judge="mock/judge-pass", run_dir=tmp_path / "run")
    )
    assert summary.summary["models"]["mock/echo"]["n"] == 12


def test_an_unreachable_hub_is_one_line(tmp_path):
    # offline mode answers at once instead of retrying a network that is not there
    env = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    code = "from cobe.cli.main import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "data", "validate", "hf:nobody/no-such-cobe"],
        cwd=tmp_path,
        env=env | {"PYTHONPATH": ":".join(sys.path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr + done.stdout
    assert "hf:nobody/no-such-cobe: -: -: the Hub cannot be reached (HF_HUB_OFFLINE is set)" in done.stdout


def test_without_datasets_installed_the_extra_is_named(paper_folder, monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(ProviderUnavailable, match=r"pip install 'cobe\[hf\]'"):
        load_dataset(paper_folder)
