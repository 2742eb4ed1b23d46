"""The one table of importers (issue 41, item 1): `cobe import --from` offers its names with their help, a JSON
object that is no results file is told every importer's files, and an option an importer has no use for is one
line before the file is read."""

from __future__ import annotations

import json
import re
from importlib import import_module
from pathlib import Path

import pytest

from cobe.integrations.importers import DEFAULT, IMPORTERS, ImportRequest, run_import
from support.cli import assert_one_line_error, run_cobe


def _words(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_cobe_import_offers_each_importer_of_the_table_with_its_help() -> None:
    shown = run_cobe("import", "--help")
    assert shown.returncode == 0
    help_text = _words(shown.stdout)
    assert f"--from [{'|'.join(IMPORTERS)}]" in help_text and f"[default: {DEFAULT}]" in help_text
    for importer in IMPORTERS.values():
        assert _words(f"{importer.name}: {importer.help}") in help_text, importer.name
    assert "inspect and lm-eval bring responses to judge" in help_text


def test_a_json_object_that_is_no_results_file_is_told_the_files_of_every_importer(tmp_path: Path) -> None:
    file = tmp_path / "other.json"
    file.write_text(json.dumps({"title": "something else", "items": 3}), encoding="utf-8")
    done = run_cobe("import", str(file), "--out", str(tmp_path / "out"))
    assert_one_line_error(done, "a JSON object that is not a results file", "`cobe import` takes")
    for importer in IMPORTERS.values():
        assert f"{importer.kinds} (--from {importer.name}" in done.stderr, importer.name
    assert f"(--from {DEFAULT}, the default)" in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("source", "args", "line"),
    [
        ("cobe-site", ["--data", "data.jsonl"], "--data: the site's files carry their scenarios; drop --data"),
        ("inspect", ["--model", "org/model"], "--model: an inspect log names its model; drop --model"),
        ("lm-eval", ["--col", "model=name"], "--map and --col apply to --from verdicts only, not --from lm-eval"),
        ("cobe-site", ["--col", "a=b", "--data", "x"], "--map and --col apply to --from verdicts only, not --from"),
    ],
)
def test_an_option_the_importer_has_no_use_for_is_one_line_before_the_file_is_read(
    tmp_path: Path, source: str, args: list[str], line: str
) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x01 no format at all")  # read, it would fail with another line
    done = run_cobe("import", str(junk), "--out", str(tmp_path / "out"), "--from", source, *args)
    assert done.returncode == 2
    assert_one_line_error(done, line)
    assert not (tmp_path / "out").exists()


def test_every_importer_of_the_table_runs_a_function_of_its_module() -> None:
    for importer in IMPORTERS.values():
        module, _, function = importer.runs.partition(":")
        assert callable(getattr(import_module(module), function)), importer.name


def test_an_importer_not_in_the_table_is_named_with_those_that_are(tmp_path: Path) -> None:
    from cobe.core.errors import InputError

    with pytest.raises(InputError, match="no such importer; expected one of verdicts, cobe-site, inspect, lm-eval"):
        run_import("csv", ImportRequest(tmp_path / "x.csv", tmp_path / "out"))
