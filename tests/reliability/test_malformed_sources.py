"""Malformed files from elsewhere and names no folder can hold: one line each, exit 2, never a traceback.

Issue 43, item 13: a malformed eval-statistics.json (`by_domain` a list, `unknown: "abc"`, `total: "x"`, junk rows)
crashed `import --from cobe-site` and `report --published` (15 cases); an inspect log with an invalid
`metadata.scenario` gave a ValidationError; `export --to eee` of a 5,000-character model name `File name too long`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import assert_one_line_error, run_cobe
from support.results import make_rows, write_run
from support.run_data import write_dataset

COUNTS = {"correct": 3, "wrong": 1, "unknown": 0, "total": 4, "accuracy": 75.0}


def _totals(**blocks: object) -> dict:
    return {"overall": {"m": COUNTS}, "by_domain": {}, "by_graph": {}} | blocks


# the file → what the one line names
TOTALS = {
    "by_domain a list": (_totals(by_domain=[1, 2]), "by_domain: is a list; expected an object"),
    "a domain's models a list": (_totals(by_domain={"Health": [1]}), "by_domain: Health: is a list"),
    "unknown not a count": (_totals(overall={"m": COUNTS | {"unknown": "abc"}}), "overall: m: unknown is 'abc'"),
    "total not a count": (_totals(overall={"m": COUNTS | {"total": "x"}}), "overall: m: total is 'x'"),
    "a junk row": (_totals(by_graph={"Chain-like": {"m": 5}}), "by_graph: Chain-like: m: is a number"),
    "a count true": (_totals(overall={"m": COUNTS | {"correct": True}}), "overall: m: correct is True"),
    "a count below 0": (_totals(overall={"m": COUNTS | {"wrong": -1}}), "overall: m: wrong is -1"),
    "a count past any float": (_totals(overall={"m": COUNTS | {"correct": 10**400}}), "overall: m: correct is 1000"),
}
IMPORTED = {
    "rows not a list": ({"source": "x", "rows": "nope"}, "rows: is a string"),
    "a row not an object": ({"source": "x", "rows": [1]}, "rows[1]: expected an object with scope"),
    "a row of another scope": ({"source": "x", "rows": [{"scope": "by_moon", "group": "all"}]}, "rows[1]: expected"),
    "a row's count text": (
        {"source": "x", "rows": [{"scope": "overall", "group": "all", "model": "m", "correct": "3", "wrong": 1}]},
        "rows[1]: m: correct is '3'",
    ),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_run(tmp_path_factory.mktemp("run") / "run", make_rows("m", 6))


@pytest.mark.parametrize("case", list(TOTALS))
def test_malformed_site_totals_are_one_line_on_import_and_on_report(run, tmp_path, case):
    document, said = TOTALS[case]
    path = tmp_path / "eval-statistics.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    imported = run_cobe("import", str(path), "--from", "cobe-site", "--out", str(tmp_path / "out"))
    assert imported.returncode == 2
    assert_one_line_error(imported, f"{path}: {said}")
    assert not (tmp_path / "out").exists()
    reported = run_cobe("report", str(run), "--published", str(path), "--out", str(tmp_path / "rep"))
    assert reported.returncode == 2
    assert_one_line_error(reported, f"{path}: {said}")


@pytest.mark.parametrize("case", list(IMPORTED))
def test_malformed_imported_totals_are_one_line_on_report(run, tmp_path, case):
    document, said = IMPORTED[case]
    folder = tmp_path / "published"
    folder.mkdir()
    (folder / "published.json").write_text(json.dumps(document), encoding="utf-8")
    reported = run_cobe("report", str(run), "--published", str(folder), "--out", str(tmp_path / "rep"))
    assert reported.returncode == 2
    assert_one_line_error(reported, said)


def test_an_inspect_log_whose_scenario_is_invalid_is_one_line(tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log, write_eval_log

    data = write_dataset(tmp_path / "data.jsonl", 1)
    run_dir = tmp_path / "run"
    args = ("--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--run-dir", str(run_dir))
    assert run_cobe("eval", *args, "--no-report").returncode == 0
    assert run_cobe("export", str(run_dir), str(tmp_path / "log.eval"), "--to", "inspect").returncode == 0
    log = read_eval_log(str(tmp_path / "log.eval"))
    assert log.samples
    log.samples[1].metadata["scenario"]["core_id"] = "not a number"
    write_eval_log(log, str(tmp_path / "bad.eval"))
    result = run_cobe("import", str(tmp_path / "bad.eval"), "--from", "inspect", "--out", str(tmp_path / "back"))
    assert result.returncode == 2
    sample = log.samples[1].id
    assert_one_line_error(result, f"sample {sample}: metadata.scenario is not a CoBe scenario (core_id: ")
    assert not (tmp_path / "back").exists()


def test_an_eee_export_of_a_name_no_folder_can_hold_is_one_line(tmp_path):
    name = "mock/" + "x" * 5000
    run_dir = write_run(tmp_path / "run", make_rows("mock/short", 3) + make_rows(name, 3))
    result = run_cobe("export", str(run_dir), str(tmp_path / "eee"), "--to", "eee")
    assert result.returncode == 2
    assert_one_line_error(result, "(5,005 characters): Every Eval Ever files a model under a folder named for its id")
    assert not (tmp_path / "eee").exists()  # checked before the first model's files were written
