"""Hostile files handed to every command that reads one: one line, a non-zero exit, no hang, nothing written.

Each file input (datasets, verdict imports, mapping files, mock scripts, price files, judge
prompt configs, results files) meets each kind of bad file: JSON or YAML nested 200,000 deep,
a FIFO (reading one blocks), a device (/dev/zero never ends), a directory, an empty file, binary
and invalid UTF-8 content, a YAML alias bomb, a missing path. The readers share one helper
(`cobe.core.jsonfile`), so each kind gets the same wording everywhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS, JUDGES_DIR
from support.cli import CliResult, run_cobe
from support.run_data import write_dataset

DEEP = 200_000
BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{n}: &{n} [{', '.join(['*' + p] * 10)}]\n" for p, n in zip("abcdefg", "bcdefgh")
)

# kind → how to make it at `path` (the file keeps the suffix its reader expects)
MAKERS = {
    "deep-json": lambda p: p.write_text("[" * DEEP + "]" * DEEP),
    "deep-yaml": lambda p: p.write_text("[" * DEEP + "]" * DEEP),
    "yaml-bomb": lambda p: p.write_text(BOMB),
    "yaml-list": lambda p: p.write_text("- one\n- two\n"),
    "fifo": lambda p: os.mkfifo(p),
    "device": lambda p: p.symlink_to("/dev/zero"),
    "directory": lambda p: p.mkdir(),
    "empty": lambda p: p.write_bytes(b""),
    "binary": lambda p: p.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4),
    "bad-utf8": lambda p: p.write_bytes(b'{"id": "1v0", "story": "caf\xe9 \xff\xfe"}\n'),
    "missing": lambda p: None,
    "csv-big-field": lambda p: p.write_text("rater,item,label\nr1," + "x" * 200_000 + ",yes\n"),
    "csv-binary": lambda p: p.write_bytes(b"rater,item,label\n" + bytes(range(1, 256)) * 4),
}
JSON_KINDS = ["deep-json", "fifo", "device", "directory", "empty", "binary", "bad-utf8", "missing"]
CSV_KINDS = ["csv-big-field", "csv-binary", "bad-utf8", "fifo", "device"]
YAML_KINDS = ["deep-yaml", "yaml-bomb", "yaml-list", "fifo", "device", "directory", "binary", "bad-utf8", "missing"]
MOCKS = ["mock/echo", "mock/judge-pass"]

# reader → (file name, command with {f} for the hostile file, kinds it meets)
READERS: dict[str, tuple[str, list[str], list[str]]] = {
    "data show": ("data.json", ["data", "show", "1v0", "--data", "{f}"], JSON_KINDS),
    "data convert": ("data.jsonl", ["data", "convert", "{f}", "out.jsonl"], JSON_KINDS),
    "data stats": ("data.json", ["data", "stats", "{f}"], JSON_KINDS),
    "data list": ("data.jsonl", ["data", "list", "--data", "{f}"], JSON_KINDS),
    "eval --data": ("data.json", ["eval", "-m", MOCKS[0], "-j", MOCKS[1], "--data", "{f}"], JSON_KINDS),
    # JSON lines are read line by line as they stream into the run: the same refusals, the same words
    "eval --data jsonl": ("data.jsonl", ["eval", "-m", MOCKS[0], "-j", MOCKS[1], "--data", "{f}"], JSON_KINDS),
    "curate import": ("data.json", ["curate", "import", "{project}", "{f}"], JSON_KINDS),
    "import": ("verdicts.jsonl", ["import", "{f}", "--out", "imported"], JSON_KINDS),
    "import --map": ("map.yaml", ["import", "{csv}", "--map", "{f}", "--out", "imported"], YAML_KINDS),
    "mock/file json": ("script.json", ["eval", "-m", "mock/file:{f}", "-j", MOCKS[1], "--data", "{data}"], JSON_KINDS),
    # a YAML list is a valid script (one answer per call), so not a hostile one here
    "mock/file yaml": (
        "script.yaml",
        ["eval", "-m", "mock/file:{f}", "-j", MOCKS[1], "--data", "{data}"],
        [k for k in YAML_KINDS if k != "yaml-list"],
    ),
    "--prices": (
        "prices.yaml",
        ["eval", "-m", MOCKS[0], "-j", MOCKS[1], "--data", "{data}", "--prices", "{f}"],
        YAML_KINDS,
    ),
    "judge config": (
        "config.yaml",
        ["eval", "-m", MOCKS[0], "-j", MOCKS[1], "--data", "{data}", "--judge-prompts", "{prompts}"],
        # a folder without config.yaml is allowed: it takes the paper set's settings (docs/PROMPTS.md)
        [kind for kind in YAML_KINDS if kind != "missing"],
    ),
    "report": ("results.jsonl", ["report", "{f}"], JSON_KINDS),
    "annotate create": ("results.jsonl", ["annotate", "create", "{f}", "--out", "study"], JSON_KINDS),
    "import csv": ("verdicts.csv", ["import", "{f}", "--out", "imported"], CSV_KINDS),
    "agreement csv": ("ratings.csv", ["agreement", "{f}", "--run", "{run}"], CSV_KINDS),
}
CASES = [(reader, kind) for reader, (_, _, kinds) in READERS.items() for kind in kinds]


@contextmanager
def fifo_guard(path: Path) -> Iterator[threading.Event]:
    """If a command blocks reading the FIFO at `path`, end the block after a minute (and say so)."""
    done, blocked = threading.Event(), threading.Event()

    def unblock() -> None:
        if not done.wait(60):
            blocked.set()
            # opening for writing succeeds only while a reader waits; closing gives it end-of-file
            with contextlib.suppress(OSError):
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))

    watcher = threading.Thread(target=unblock, daemon=True)
    watcher.start()
    try:
        yield blocked
    finally:
        done.set()
        watcher.join()


def assert_clean_failure(result: CliResult) -> None:
    """Non-zero, no traceback, and one line saying what is wrong (cobe's `error:` or click's usage `Error:`)."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    if lines and lines[0].startswith("error: "):
        assert len(lines) == 1, result.stderr
    else:  # click's usage error: Usage / Try / Error
        assert lines and lines[-1].startswith("Error: "), result.stderr


@pytest.mark.parametrize(("reader", "kind"), CASES, ids=[f"{r}-{k}" for r, k in CASES])
def test_a_hostile_file_is_refused_in_one_line(tmp_path, reader, kind):
    name, template, _ = READERS[reader]
    data = write_dataset(tmp_path / "good.jsonl", 2)
    csv = tmp_path / "good.csv"
    csv.write_text("scenario_id,template,model,verdict\n1v0,A,m,T\n")
    prompts = tmp_path / "prompts"
    shutil.copytree(JUDGES_DIR / DEFAULT_JUDGE_PROMPTS, prompts)
    (prompts / "config.yaml").unlink()
    hostile = prompts / name if reader == "judge config" else tmp_path / name
    MAKERS[kind](hostile)
    assert run_cobe("curate", "init", "project", cwd=tmp_path).returncode == 0
    run = tmp_path / "finished"
    if "{run}" in template:  # a finished run for the commands that join ratings with its verdicts
        done = run_cobe(
            "eval",
            "-m",
            MOCKS[0],
            "-j",
            MOCKS[1],
            "--data",
            str(data),
            "--run-dir",
            str(run),
            "--no-report",
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
    values = {"f": hostile, "data": data, "csv": csv, "prompts": prompts, "project": "project", "run": run}
    args = [part.format(**values) for part in template]
    if args[0] == "eval":
        args += ["--run-dir", "run"]
    with fifo_guard(hostile) as blocked:
        result = run_cobe(*args, cwd=tmp_path)
    assert not blocked.is_set(), "the command blocked reading a FIFO"
    assert_clean_failure(result)
    # nothing was written: no run directory, no import, no converted file, no report
    for made in ("run", "imported", "out.jsonl", "report.html", "study", "finished/agreement.json"):
        assert not (tmp_path / made).exists(), made


@pytest.mark.parametrize("kind", JSON_KINDS[:-1])
def test_data_validate_reports_a_hostile_file_as_one_problem(tmp_path, kind):
    path = tmp_path / "data.json"
    MAKERS[kind](path)
    with fifo_guard(path) as blocked:
        result = run_cobe("data", "validate", str(path), "--json", cwd=tmp_path)
    assert not blocked.is_set()
    assert result.returncode == 1 and "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    assert report["errors"] == 1, report


def test_the_same_kind_of_bad_file_reads_the_same_in_every_reader(tmp_path):
    """One helper, one wording: a FIFO is named as one by the dataset, import, mock and price readers."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    data = write_dataset(tmp_path / "good.jsonl", 1)
    seen = []
    for args in (
        ["data", "show", "1v0", "--data", str(fifo)],
        ["import", str(fifo), "--out", "x"],
        ["eval", "-m", f"mock/file:{fifo}", "-j", MOCKS[1], "--data", str(data)],
        ["eval", "-m", MOCKS[0], "-j", MOCKS[1], "--data", str(data), "--prices", str(fifo)],
    ):
        result = run_cobe(*args, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        seen.append("is a FIFO (named pipe), not a regular file" in result.stderr)
    assert all(seen)


def test_a_duplicate_id_in_a_one_line_json_file_is_found(tmp_path):
    record = json.loads(write_dataset(tmp_path / "one.jsonl", 1).read_text())
    path = tmp_path / "dup.json"
    path.write_text(json.dumps([record, record]))  # json.dump without indent: both records on line 1
    checked = run_cobe("data", "validate", str(path), cwd=tmp_path)
    assert checked.returncode == 1 and "1v0: id: duplicate id (earlier in this file)" in checked.stdout
    result = run_cobe("eval", "-m", MOCKS[0], "-j", MOCKS[1], "--data", str(path), "--run-dir", "run", cwd=tmp_path)
    assert_clean_failure(result)
    assert "duplicate id" in result.stderr and not (tmp_path / "run").exists()
