"""A release holds variations only (v ≥ 1), never the core examples they were written from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.curate import add_reviewer, record_review, release
from cobe.curate.project import Project
from cobe.dataset import load_dataset
from support.curate_project import add_variation, cobe


def approve(project: Project, item_id: str) -> None:
    record_review(project, item_id, "alice", "approve")
    assert record_review(project, item_id, "bob", "approve") == "approved"


def test_approved_core_examples_are_never_released(project: Project, tmp_path: Path) -> None:
    for name in ("alice", "bob"):
        add_reviewer(project, name)
    variations = [add_variation(project, "1v0", 1), add_variation(project, "1v0", 2), add_variation(project, "2v0", 1)]
    for item_id in ["1v0", "2v0", *variations]:
        approve(project, item_id)
    out = tmp_path / "release"
    result = release(project, out, public_share=0.5, seed=0)
    assert result.items == ["1v1", "1v2", "2v1"] and result.held_back == ["1v0", "2v0"]
    for name in ("cobe.jsonl", "cobe.paper.json", "cobe.site.json"):
        ids = sorted({s.id for s in load_dataset(out / name)})
        assert ids == ["1v1", "1v2", "2v1"], name
    split = json.loads((out / "split.json").read_text())
    assert sorted(split["public"] + split["private"]) == ["1v1", "1v2", "2v1"]
    assert json.loads((out / "datasheet.json").read_text())["stats"]["scenarios"] == 3
    # the cores stay approved in the project, not released
    assert project.item("1v0").status == "approved" and project.item("1v1").status == "released"
    # a second release still leaves them out
    again = release(project, tmp_path / "again", seed=0)
    assert again.items == ["1v1", "1v2", "2v1"] and again.held_back == ["1v0", "2v0"]


def test_a_project_with_only_approved_cores_has_nothing_to_release(project: Project, tmp_path: Path) -> None:
    for name in ("alice", "bob"):
        add_reviewer(project, name)
    approve(project, "1v0")
    with pytest.raises(InputError, match=r"no approved variations to release \(1 approved core example\(s\) v0"):
        release(project, tmp_path / "out")


def test_the_cli_names_the_cores_it_left_out(project: Project, tmp_path: Path) -> None:
    for name in ("alice", "bob"):
        add_reviewer(project, name)
    approve(project, "3v0")
    approve(project, add_variation(project, "3v0", 1))
    done = cobe("curate", "release", str(project.root), "--out", str(tmp_path / "out"))
    assert "released 1 item(s)" in done.stdout and "not released: 1 core example(s) (v0): 3v0" in done.stdout
