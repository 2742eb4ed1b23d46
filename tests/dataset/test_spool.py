"""The scenario spool: scenarios on disk, read back one at a time, byte for byte as they went in."""

from __future__ import annotations

import os

import pytest
from dataset_helpers import FIXTURES

from cobe.dataset import load_dataset
from cobe.dataset.spool import RECENT, ScenarioSpool


@pytest.fixture
def scenarios():
    return load_dataset(FIXTURES / "native.jsonl").scenarios


def test_a_spool_gives_back_each_scenario_and_its_exact_json(scenarios):
    spool = ScenarioSpool(scenarios)
    assert len(spool) == len(scenarios) and list(spool) == scenarios
    assert [spool[i] for i in range(len(spool))] == scenarios
    assert spool[-1] == scenarios[-1] and spool[1:3] == scenarios[1:3]
    assert list(spool.docs()) == [s.model_dump_json() for s in scenarios]
    assert spool.ids == [s.id for s in scenarios]
    assert spool.keys == [(s.core_id, s.variation) for s in scenarios]
    with pytest.raises(IndexError, match="out of range"):
        spool[len(scenarios)]


def test_a_given_json_text_is_kept_as_given(scenarios):
    spool = ScenarioSpool()
    doc = scenarios[0].model_dump_json(indent=1)  # not the form the spool would write itself
    spool.append(scenarios[0], doc)
    assert spool.json(0) == doc and spool[0] == scenarios[0]


def test_a_subset_keeps_the_order_asked_for(scenarios):
    spool = ScenarioSpool(scenarios)
    part = spool.subset([2, 0])
    assert list(part) == [scenarios[2], scenarios[0]] and part.ids == [scenarios[2].id, scenarios[0].id]


def test_only_the_recently_read_scenarios_stay_parsed(scenarios):
    spool = ScenarioSpool(scenarios[0] for _ in range(RECENT + 10))
    first = spool[0]
    assert spool[0] is first  # read again soon: the same object, not parsed twice
    for i in range(1, RECENT + 1):
        spool[i]
    assert spool[0] is not first and spool[0] == first  # pushed out, read again from disk
    assert len(spool._recent) <= RECENT


def test_the_backing_file_is_unnamed_and_closing_ends_it(scenarios, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    spool = ScenarioSpool(scenarios)
    assert os.listdir(tmp_path) == []  # nothing with a name to leave behind after a crash
    fd = spool._file.fileno()
    spool.close()
    with pytest.raises(OSError):
        os.fstat(fd)
