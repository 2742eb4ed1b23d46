"""Writing then reading keeps every field each shape can hold."""

from __future__ import annotations

import pytest
from dataset_helpers import FIXTURES

from cobe.core.errors import InputError
from cobe.dataset import read_file, write_dataset

PAPER_FIELDS = ("id", "core_id", "variation", "domain", "story", "queries", "illustrative_answer", "preserve", "change")


def test_native_round_trip_keeps_every_field(tmp_path) -> None:
    original = read_file(FIXTURES / "native.jsonl").scenarios
    back = read_file(write_dataset(original, tmp_path / "out.jsonl", to="native"))
    assert back.problems == [] and back.scenarios == original
    assert (tmp_path / "out.jsonl").read_text() == (FIXTURES / "native.jsonl").read_text()


@pytest.mark.parametrize("to, name", [("paper", "out.json"), ("csv", "out.csv")])
def test_paper_and_csv_keep_the_fields_they_can_hold(tmp_path, to: str, name: str) -> None:
    original = read_file(FIXTURES / "paper.json").scenarios
    back = read_file(write_dataset(original, tmp_path / name, to=to))
    assert back.problems == []
    assert [s.model_dump(include=set(PAPER_FIELDS)) for s in back.scenarios] == [
        s.model_dump(include=set(PAPER_FIELDS)) for s in original
    ]


def test_site_round_trip_keeps_criterion_lists_whole(tmp_path) -> None:
    original = read_file(FIXTURES / "site_flat.json").scenarios
    back = read_file(write_dataset(original, tmp_path / "site.json", to="site"))
    assert back.shape == "site-json" and back.scenarios == original


def test_csv_refuses_a_scenario_without_three_queries(tmp_path) -> None:
    s = read_file(FIXTURES / "paper.json").scenarios[0].model_copy(update={"queries": ["only one"]})
    with pytest.raises(InputError, match="holds exactly 3"):
        write_dataset([s], tmp_path / "x.csv", to="csv")
    assert not (tmp_path / "x.csv").exists()
