"""Files from other tools and odd line breaks: every import is one line on bad input, and JSON lines
split at \\n only.

Issue 23, items 8-10: an inspect log whose samples have no output (an interrupted run) imports with
those samples as errored responses; lm-eval samples and results files that are empty, deep, not
UTF-8, binary, of the wrong type, a device or a FIFO each give one line; a raw U+2028, U+2029 or
U+0085 inside a JSON string survives every writer and reader of JSON lines.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from support.cli import assert_one_line_error, run_cobe
from support.run_data import scenario

LM_EVAL = Path(__file__).parents[1] / "integrations" / "data" / "lm_eval" / "EleutherAI__pythia-160m"
SAMPLES = next(LM_EVAL.glob("samples_*.jsonl"))
RESULTS = next(LM_EVAL.glob("results_*.json"))
#: line separators that str.splitlines breaks at but JSON lines do not
SEPARATORS = "\u2028\u2029\u0085"


# ---- item 8: an inspect log of an interrupted run -----------------------------------------------
def test_an_inspect_log_with_empty_choices_imports_those_samples_as_errored(tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import ModelOutput

    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(scenario(i)) + "\n" for i in (1, 2)), encoding="utf-8")
    run = tmp_path / "run"
    made = run_cobe(
        "eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--run-dir", str(run)
    )
    assert made.returncode == 0, made.stderr
    assert run_cobe("export", str(run), str(tmp_path / "log.eval"), "--to", "inspect").returncode == 0
    log = read_eval_log(str(tmp_path / "log.eval"))
    assert log.samples is not None and len(log.samples) == 6
    for sample in log.samples[:2]:  # what inspect leaves for samples a stopped run never answered
        sample.output = ModelOutput(model=log.eval.model, choices=[])
        sample.scores = {}
    write_eval_log(log, str(tmp_path / "stopped.eval"))

    result = run_cobe("import", str(tmp_path / "stopped.eval"), "--out", str(tmp_path / "back"), "--from", "inspect")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "2 of 6 samples hold an error or no model output" in result.stderr
    db = sqlite3.connect(tmp_path / "back" / "cobe.sqlite")
    try:
        rows = db.execute("SELECT text, error FROM responses ORDER BY id").fetchall()
    finally:
        db.close()
    assert len(rows) == 6
    errored = [error for text, error in rows if error is not None]
    assert len(errored) == 2 and all("no model output" in e for e in errored)
    assert all(text for text, error in rows if error is None)


def test_an_inspect_log_that_is_a_fifo_is_refused_without_blocking(tmp_path):
    pytest.importorskip("inspect_ai")
    fifo = tmp_path / "log.eval"
    os.mkfifo(fifo)
    result = run_cobe("import", str(fifo), "--out", str(tmp_path / "back"), "--from", "inspect")
    assert result.returncode == 2
    assert_one_line_error(result, str(fifo), "FIFO")


# ---- item 9: lm-eval samples and results files ---------------------------------------------------
def _lm_eval_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "lm"
    shutil.copytree(LM_EVAL, folder)
    return folder


def _import_lm_eval(samples: Path, out: Path, *more: str):
    return run_cobe("import", str(samples), "--out", str(out), "--from", "lm-eval", *more)


RESULTS_CASES = {
    "an empty list": b"[]",
    "nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000,
    "invalid UTF-8": b'{"model_name": "caf\xe9"}',
    "config not an object": b'{"config": "notadict"}',
    "model_args of another type": b'{"config": {"model_args": 7}}',
}


@pytest.mark.parametrize("content", RESULTS_CASES.values(), ids=RESULTS_CASES.keys())
def test_a_bad_results_file_beside_the_samples_is_one_line(tmp_path, content):
    folder = _lm_eval_dir(tmp_path)
    (folder / RESULTS.name).write_bytes(content)
    result = _import_lm_eval(folder / SAMPLES.name, tmp_path / "out")
    assert result.returncode == 2
    assert_one_line_error(result, RESULTS.name, "give --model")
    # with the model named, the results file is not needed at all
    named = _import_lm_eval(folder / SAMPLES.name, tmp_path / "out2", "--model", "org/model")
    assert named.returncode == 0, named.stderr


def _first_sample() -> dict:
    return json.loads(SAMPLES.read_text(encoding="utf-8").split("\n", 1)[0])


SAMPLE_CASES = {
    "invalid UTF-8": (lambda: b'{"doc_id": 0, "resps": [["caf\xe9"]]}\n', "invalid UTF-8"),
    "a deeply nested line": (lambda: b'{"doc_id": 0, "resps": ' + b"[" * 50_000 + b"]" * 50_000 + b"}\n", "nested"),
    "a binary file": (lambda: b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0", "binary"),
    "doc_id a list": (lambda: (json.dumps(_first_sample() | {"doc_id": [1, 2]}) + "\n").encode(), "doc_id"),
    "doc_id an object": (lambda: (json.dumps(_first_sample() | {"doc_id": {"a": 1}}) + "\n").encode(), "doc_id"),
}


@pytest.mark.parametrize("case", SAMPLE_CASES.values(), ids=SAMPLE_CASES.keys())
def test_a_bad_samples_file_is_one_line_naming_it(tmp_path, case):
    make, needle = case
    samples = tmp_path / "samples_cobe_x.jsonl"
    samples.write_bytes(make())
    result = _import_lm_eval(samples, tmp_path / "out", "--model", "org/model")
    assert result.returncode == 2
    assert_one_line_error(result, str(samples), needle)


def test_a_device_or_a_fifo_is_named_for_what_it_is_not_missing(tmp_path):
    fifo = tmp_path / "samples_cobe_x.jsonl"
    os.mkfifo(fifo)
    for path, kind in ((Path("/dev/zero"), "character device"), (fifo, "FIFO")):
        result = _import_lm_eval(path, tmp_path / "out", "--model", "org/model")
        assert result.returncode == 2
        assert_one_line_error(result, str(path), kind)
        assert "not found" not in result.stderr


# ---- item 10: JSON lines split at \n only, through every writer and reader ----------------------
def _separated(i: int) -> dict:
    record = scenario(i)
    record["story"] = record["story"].replace(". ", f".{SEPARATORS[i % 3]} ", 1)
    record["illustrative_answer"] += f" {SEPARATORS}"
    record["preserve"] = [f"A festival{SEPARATORS[(i + 1) % 3]} was on."]
    return record


def test_raw_line_separators_inside_strings_load_and_keep_line_numbers(tmp_path):
    data = tmp_path / "data.jsonl"
    lines = [json.dumps(_separated(i), ensure_ascii=False) for i in (1, 2, 3)]
    lines[2] = lines[2].replace('"domain": "Daily life"', '"domain": 5')  # an error on line 3
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    checked = run_cobe("data", "validate", str(data), "--json")
    report = json.loads(checked.stdout)
    assert report["errors"] == 1 and report["scenarios"] == 2
    (problem,) = [p for p in report["problems"] if p["severity"] == "error"]
    assert (problem["line"], problem["field"]) == (3, "domain")
    assert all("Unterminated" not in p["message"] for p in report["problems"])


def test_every_writer_and_reader_of_json_lines_keeps_line_separators(tmp_path):
    source = tmp_path / "source.json"  # the paper's JSON shape, converted by cobe itself
    native = [_separated(i) for i in (1, 2, 3)]
    source.write_text(json.dumps(native, ensure_ascii=False), encoding="utf-8")
    converted = tmp_path / "converted.jsonl"
    assert run_cobe("data", "convert", str(source), str(converted)).returncode == 0
    assert SEPARATORS[1] in converted.read_text(encoding="utf-8")  # written raw, not escaped
    checked = run_cobe("data", "validate", str(converted))
    assert checked.returncode == 0, checked.stdout
    sampled = tmp_path / "sampled.jsonl"
    assert run_cobe("data", "sample", "--n", "3", "--data", str(converted), "--out", str(sampled)).returncode == 0
    shown = run_cobe("data", "show", "2v0", "--data", str(sampled))
    assert shown.returncode == 0, shown.stderr

    run = tmp_path / "run"
    echo = ["--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(sampled), "--run-dir", str(run)]
    assert run_cobe("eval", *echo).returncode == 0
    results = (run / "results.jsonl").read_text(encoding="utf-8")
    assert any(mark in results for mark in SEPARATORS)
    assert run_cobe("report", str(run), "--out", str(tmp_path / "report")).returncode == 0
    verdicts = tmp_path / "verdicts.jsonl"  # another harness's verdicts, imported by `cobe import`
    rows = [json.loads(line) for line in results.split("\n") if line]
    picked = [{k: r[k] for k in ("scenario_id", "template", "model", "response")} | {"verdict": "T"} for r in rows]
    verdicts.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in picked), encoding="utf-8")
    imported = run_cobe("import", str(verdicts), "--out", str(tmp_path / "imported"))
    assert imported.returncode == 0, imported.stderr
    again = [json.loads(line) for line in (tmp_path / "imported" / "results.jsonl").read_bytes().split(b"\n") if line]
    assert [r["response"] for r in again] == [r["response"] for r in picked]


def test_lm_eval_samples_with_line_separators_import(tmp_path):
    folder = _lm_eval_dir(tmp_path)
    samples = folder / SAMPLES.name
    records = [json.loads(line) for line in samples.read_text(encoding="utf-8").split("\n") if line]
    for record in records:
        record["resps"] = [[f"{record['resps'][0][0]}{SEPARATORS}"]]
    samples.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    result = _import_lm_eval(samples, tmp_path / "out")
    assert result.returncode == 0, result.stderr


def test_the_annotation_study_reads_results_with_line_separators(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(_separated(i), ensure_ascii=False) + "\n" for i in (1, 2)), encoding="utf-8")
    run = tmp_path / "run"
    assert (
        run_cobe(
            "eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--run-dir", str(run)
        ).returncode
        == 0
    )
    made = run_cobe("annotate", "create", str(run), "--n", "4")  # reads results.jsonl through the study loader
    assert made.returncode == 0, made.stderr
