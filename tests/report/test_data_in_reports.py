"""Runs on different data are not ranked together: `cobe report A B` over a run on the bundled starter set and
one on the CoBe site's file (or over two scenario sets of one file) is refused in one line naming both, unless
--across-data, which then says so on every table."""

from __future__ import annotations

import json

import pytest

from cobe.core.errors import InputError
from cobe.report import build_report
from support.cli import assert_one_line_error, run_cobe
from support.results import make_rows, write_run


def data_run(path, model, data, n=12, seed=0, templates=("A", "B", "C"), first_core=100):
    """A run of `model` on `data` (summary.json names it as the engine does), its ids from `first_core` on."""
    rows = make_rows(model, n, 0.6, seed=seed, run_id=path.name, templates=templates)
    for row in rows:
        core = row["core_id"] - 100 + first_core
        row["core_id"], row["scenario_id"] = core, f"{core}v{row['variation']}"
        row["judge_prompts"] = "paper"
    run = write_run(path, rows)
    (run / "summary.json").write_text(json.dumps({"data": data, "models": [model]}))
    return run


def site_run(path, model):
    """A run on data shaped like the site's file: official-looking ids, one phrasing per scenario."""
    return data_run(path, model, "category-examples.json", n=10, seed=7, templates=("A",), first_core=317)


def test_a_starter_run_and_a_site_run_are_refused_naming_both(tmp_path):
    starter = data_run(tmp_path / "starter", "m1", "builtin:starter")
    site = site_run(tmp_path / "site", "m2")
    with pytest.raises(InputError, match=r"different data .*builtin:starter, 12 scenarios.*category-examples.json"):
        build_report([starter, site], out=tmp_path / "r", formats="md", resamples=0)
    refused = run_cobe("report", str(starter), str(site), "--out", str(tmp_path / "r"), "--resamples", "0")
    assert refused.returncode == 2
    assert_one_line_error(
        refused, "builtin:starter", "category-examples.json", "0 scenarios in common", "--across-data"
    )
    assert not (tmp_path / "r" / "report.md").exists()


def test_other_scenario_sets_of_one_dataset_are_refused_and_the_same_scenarios_are_not(tmp_path):
    full = data_run(tmp_path / "full", "m1", "cobe.jsonl")
    few = data_run(tmp_path / "few", "m2", "cobe.jsonl", n=6)
    assert_one_line_error(
        run_cobe("report", str(full), str(few), "--out", str(tmp_path / "r"), "--resamples", "0"),
        "6 scenarios in common",
    )
    retold = data_run(tmp_path / "retold", "m2", "cobe.jsonl", seed=3)  # the same ids, other stories
    with pytest.raises(InputError, match="12 scenarios of the same id told differently"):
        build_report([full, retold], out=tmp_path / "r", formats="md", resamples=0)
    # the same scenarios under another file name are the same data
    same = data_run(tmp_path / "same", "m2", "copy-of-cobe.jsonl")
    report = build_report([full, same], out=tmp_path / "ok", formats="md", resamples=0)
    assert report.data_note is None and "Note:" not in (report.out / "report.md").read_text()


def test_across_data_says_so_on_every_table(tmp_path):
    starter = data_run(tmp_path / "starter", "m1", "builtin:starter")
    site = site_run(tmp_path / "site", "m2")
    report = build_report([starter, site], out=tmp_path / "r", formats="md,html", resamples=0, across_data=True)
    assert report.data_note is not None and "category-examples.json" in report.data_note
    text = (report.out / "report.md").read_text()
    sections = text.split("\n## ")[1:]
    tables = [s for s in sections if "\n|" in s and not s.startswith(("Agreement", "Judge self-test", "Settings"))]
    assert len(tables) >= 8 and all("> **Note:** the runs were run on different data" in s for s in tables)
    html = (report.out / "report.html").read_text()
    assert html.count("the runs were run on different data") >= 4
    listed = run_cobe(
        "report", str(starter), str(site), "--out", str(tmp_path / "t"), "--format", "md", "--across-data"
    )
    assert listed.returncode == 0, listed.stderr
    assert "different data" in listed.stdout and "builtin:starter" in listed.stdout
