"""cobe import: external verdict files become run directories that report like any other."""

from __future__ import annotations

import csv
import json

import pytest

from cobe.cli.main import main
from cobe.core.errors import InputError
from cobe.integrations import import_results
from cobe.report import build_report, load_runs


def _csv(path, rows):
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_csv_with_per_check_verdicts_and_column_flags(tmp_path):
    src = _csv(
        tmp_path / "v.csv",
        [
            {"example_id": "1v1", "q": "0", "answer": "x", "conn": "T", "up": "True", "down": "1"},
            {"example_id": "1v1", "q": "1", "answer": "y", "conn": "F", "up": "T", "down": "pass"},
            {"example_id": "2v1", "q": "2", "answer": "z", "conn": "T", "up": "", "down": "T"},
        ],
    )
    result = import_results(
        src, tmp_path / "run", columns=["query_index=q", "connectors=conn", "preserve=up", "change=down"], model="ext/m"
    )
    rows = [json.loads(line) for line in (result.out / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in rows] == ["passed", "failed", "unscored"]
    assert [r["template"] for r in rows] == ["A", "B", "C"]
    assert rows[2]["unscored"] == {"preserve": "no verdict in the imported file"}
    assert rows[0]["response"] == "x" and rows[0]["core_id"] == 1
    summary = json.loads((result.out / "summary.json").read_text())
    assert summary["rows"] == 3 and summary["status"]["unscored"] == 1


def test_jsonl_overall_verdict_and_yaml_mapping_then_report(tmp_path):
    src = tmp_path / "v.jsonl"
    lines = [
        {"sid": f"{i}v1", "template": t, "model_name": "ext/m", "ok": "pass" if i % 2 else "fail"}
        for i in range(1, 7)
        for t in "ABC"
    ]
    src.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    mapping = tmp_path / "map.yaml"
    mapping.write_text("columns:\n  scenario_id: sid\n  verdict: ok\n")
    result = import_results(src, tmp_path / "run", mapping=str(mapping))
    frame = load_runs([result.out]).frame
    assert set(frame["status"]) == {"passed", "failed"}
    report = build_report([result.out], formats="md,csv", resamples=10)
    assert report.leaderboard.iloc[0]["accuracy"] == pytest.approx(50.0)
    checks = report.tables["checks"]
    assert (checks["unscored"] == 0).all()  # overall-only rows are not "unscored" per check


def test_json_array_is_read(tmp_path):
    src = tmp_path / "v.json"
    src.write_text(json.dumps([{"scenario_id": "3v2", "template": "A", "model": "m", "verdict": True}]))
    result = import_results(src, tmp_path / "run")
    assert result.rows == 1 and result.models == ["m"]


def test_bad_rows_are_listed_one_per_line_and_nothing_is_written(tmp_path):
    src = _csv(
        tmp_path / "v.csv",
        [
            {"scenario_id": "1v1", "template": "A", "model": "m", "verdict": "maybe"},
            {"scenario_id": "oops", "template": "A", "model": "m", "verdict": "T"},
            {"scenario_id": "2v1", "template": "A", "model": "m", "verdict": "T"},
            {"scenario_id": "2v1", "template": "A", "model": "m", "verdict": "F"},
        ],
    )
    out = tmp_path / "run"
    with pytest.raises(InputError) as info:
        import_results(src, out)
    lines = str(info.value).splitlines()
    assert lines[1].startswith(f"{src}:2: verdict:") and lines[2].startswith(f"{src}:3: scenario_id:")
    assert lines[3].startswith(f"{src}:5: scenario_id: 2v1 template A already on line 4")
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["v.csv"]


def test_contradicting_overall_and_per_check_verdicts_is_an_error(tmp_path):
    src = _csv(
        tmp_path / "v.csv",
        [
            {
                "scenario_id": "1v1",
                "template": "A",
                "model": "m",
                "verdict": "pass",
                "connectors": "T",
                "preserve": "F",
                "change": "T",
            }
        ],
    )
    with pytest.raises(InputError, match="contradicts"):
        import_results(src, tmp_path / "run")


def test_cli_import_exit_codes(tmp_path, capsys):
    src = _csv(tmp_path / "v.csv", [{"id": "1v1", "template": "A", "verdict": "1"}])
    with pytest.raises(SystemExit) as ok:
        main(["import", str(src), "--out", str(tmp_path / "run"), "--model", "m"])
    assert ok.value.code == 0 and "Imported 1 rows" in capsys.readouterr().out
    with pytest.raises(SystemExit) as bad:
        main(["import", str(src), "--out", str(tmp_path / "run"), "--model", "m"])
    err = capsys.readouterr().err
    assert bad.value.code == 2 and err.startswith("error: ") and "Traceback" not in err
    with pytest.raises(SystemExit) as missing:
        main(["import", str(src), "--out", str(tmp_path / "run2"), "--col", "verdict=nope"])
    assert missing.value.code == 2 and "nope" in capsys.readouterr().err


def test_data_joins_scenario_metadata(tmp_path):
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "fixtures" / "datasets" / "native.jsonl"
    src = _csv(
        tmp_path / "v.csv",
        [
            {"scenario_id": "2v0", "query_idx": "1", "model": "m", "verdict": "pass"},
            {"scenario_id": "9v9", "query_idx": "1", "model": "m", "verdict": "pass"},
        ],
    )
    with pytest.raises(InputError, match=r"v.csv:3: scenario_id: '9v9' not in the dataset"):
        import_results(src, tmp_path / "bad", data=str(data))
    src = _csv(tmp_path / "ok.csv", [{"scenario_id": "2v0", "query_idx": "1", "model": "m", "verdict": "pass"}])
    result = import_results(src, tmp_path / "run", data=str(data))
    row = json.loads((result.out / "results.jsonl").read_text())
    assert row["template"] == "B" and row["graph_type"] == "collider" and row["tags"] == ["latent"]
    assert row["failure_modes"] == ["unchanged_reason"] and row["story"] and row["query"] and row["preserve"]


def _object_file(path, data, indent=2):
    path.write_text(json.dumps(data, indent=indent), encoding="utf-8")
    return str(path)


def test_a_json_object_that_parses_says_what_it_seems_to_be_and_what_import_takes(tmp_path):
    from support.cli import run_cobe

    paper_tables = {"title": "results", "table5": {"GPT-5.4-Pro": 61.34, "Claude-Opus-4.7": 56.14}, "table7": {}}
    totals = {
        "overall": {"gpt": {"correct": 10, "wrong": 5, "unknown": 1, "total": 16, "accuracy": 66.67}},
        "by_graph": {"Chain-like": {"gpt": {"correct": 1, "wrong": 0, "unknown": 0, "total": 1, "accuracy": 100.0}}},
        "notes": {"query_indices": [2, 5, 7]},
    }
    cases = {
        "paper-results.json": (paper_tables, "published tables or aggregate scores"),
        "eval-statistics.json": (totals, "the CoBe site's published totals (eval-statistics.json)"),
        "categories.json": ({"by_domain": {"Engineering": []}, "examples_per_category": 10}, "--from cobe-site"),
        "wrapped.json": ({"results": [{"example_id": "1v1", "verdict": "T"}]}, "lists of results under 'results'"),
    }
    for name, (data, said) in cases.items():
        for indent in (2, None):  # pretty-printed or on one line: the same answer
            done = run_cobe("import", _object_file(tmp_path / name, data, indent), "--out", str(tmp_path / "out"))
            assert done.returncode == 2 and "invalid JSON" not in done.stderr, (name, done.stderr)
            assert said in done.stderr and "a CSV, a JSON array of objects or JSON lines" in done.stderr, name
            assert "--from inspect" in done.stderr and len(done.stderr.strip().splitlines()) == 1
            assert not (tmp_path / "out").exists()


def test_a_pretty_printed_single_result_is_one_row(tmp_path):
    src = _object_file(tmp_path / "one.json", {"example_id": "1v1", "query_idx": 2, "model": "m", "verdict": "T"})
    assert import_results(src, tmp_path / "run").rows == 1


def test_the_sites_query_idx_2_5_7_name_a_b_c_as_with_from_cobe_site(tmp_path):
    rows = [{"example_id": "1v1", "query_idx": q, "model": "m", "verdict": "T"} for q in ("2", "5", "7")]
    result = import_results(_csv(tmp_path / "site.csv", rows), tmp_path / "run")
    done = [json.loads(line) for line in (result.out / "results.jsonl").read_text().splitlines()]
    assert [r["template"] for r in done] == ["A", "B", "C"]
    # a file numbering 0..2 keeps its own reading; a mapping can name the site's numbering outright
    mapping = tmp_path / "map.yaml"
    mapping.write_text("query_index_base: site\n")
    one = import_results(_csv(tmp_path / "two.csv", rows[:1]), tmp_path / "run2", mapping=str(mapping))
    assert json.loads((one.out / "results.jsonl").read_text())["template"] == "A"
    with pytest.raises(InputError, match="query_index: 4 out of range; expected 0..2, or the CoBe site's 2, 5, 7"):
        import_results(_csv(tmp_path / "bad.csv", [rows[0] | {"query_idx": "4"}]), tmp_path / "run3")
