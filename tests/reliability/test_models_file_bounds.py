"""A models file and model arguments are typed and bounded: a row no model can read, a budget whose min passes its
max, a number past any provider's, a boolean where a number goes, a huge file or one that is not a file at all are
each one line (exit 2) before anything runs; the huge file is refused by its size, before a byte is parsed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import cobe.models.capabilities as capabilities
from support.cli import assert_one_line_error, run_cobe

ROWS = {
    "a provider the table has no rows for": ("{provider: opnai-api, match: x, api: chat}", "field 'provider'"),
    "an empty match": ("{provider: openai, match: '', api: chat}", "field 'match'"),
    "a blank match": ("{provider: openai, match: '  ', api: chat}", "field 'match'"),
    "a budget min over its max": (
        "{provider: anthropic, match: x, budget: {min: 5000, max: 10}}",
        "budget min 5000 is more than its max 10",
    ),
    "a huge min_output_tokens": (
        "{provider: openai, match: x, min_output_tokens: 99999999999999999999999999}",
        "field 'min_output_tokens'",
    ),
    "a boolean min_output_tokens": ("{provider: openai, match: x, min_output_tokens: true}", "not the boolean true"),
    "a huge budget": ("{provider: anthropic, match: x, budget: {min: 1, max: 99999999999999}}", "budget.max"),
}


@pytest.mark.parametrize("name", list(ROWS))
def test_a_row_that_cannot_apply_or_is_out_of_bounds_is_one_line(tmp_path: Path, name: str) -> None:
    row, needle = ROWS[name]
    models = tmp_path / "models.yaml"
    models.write_text(f"rows:\n  - {row}\n")
    result = run_cobe("models", "check", "mock/echo", "--models-file", str(models))
    assert result.returncode == 2
    assert_one_line_error(result, "models.yaml", "row 1", needle)


@pytest.mark.parametrize(
    ("arg", "needle"),
    [
        ("temperature=true", "not the boolean true"),
        ("max_tokens=true", "not the boolean true"),
        ("top_p=false", "not the boolean false"),
        ("seed=99999999999999999999999", "seed"),
        ("thinking_budget=99999999999999", "thinking_budget"),
        ("budget={min: 100, max: 1}", "budget min 100 is more than its max 1"),
        ("min_output_tokens=99999999999999999999999999", "min_output_tokens"),
    ],
)
def test_a_model_argument_out_of_type_or_bounds_is_one_line(arg: str, needle: str) -> None:
    result = run_cobe("models", "check", "mock/echo", "-M", f"mock/echo:{arg}")
    assert result.returncode == 2
    assert_one_line_error(result, "--model-arg", needle)


def test_a_twenty_megabyte_models_file_is_refused_by_its_size_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = tmp_path / "models.yaml"
    row = "  - {provider: openai, match: model-%d, api: chat, token_param: max_tokens}\n"
    with models.open("w") as out:
        out.write("rows:\n")
        out.writelines(row % number for number in range(260_000))
    assert models.stat().st_size > 20_000_000
    read = []
    parse = capabilities.read_rows
    monkeypatch.setattr(capabilities, "read_rows", lambda path, *rest: read.append(path) or parse(path, *rest))
    result = run_cobe("models", "check", "mock/echo", "--models-file", str(models))
    assert result.returncode == 2
    assert_one_line_error(result, "models.yaml", "bytes, more than the")
    assert models not in read  # refused by its size alone: never opened to be parsed


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_models_file_that_is_not_a_regular_file_says_so_and_never_blocks(tmp_path: Path, kind: str) -> None:
    if kind == "fifo":
        target = tmp_path / "rows.fifo"
        os.mkfifo(target)  # no writer: opening it to read would block
    else:
        target = Path("/dev/zero")  # reading it never ends
    result = run_cobe("models", "check", "mock/echo", "--models-file", str(target))
    assert result.returncode == 2
    assert_one_line_error(result, str(target), "not a regular file")
    assert "no such file" not in result.stderr


def test_a_models_file_within_bounds_still_lays_its_rows(tmp_path: Path) -> None:
    models = tmp_path / "models.yaml"
    models.write_text("rows:\n  - {provider: anthropic, match: x, budget: {min: 0, max: 2048}, min_output_tokens: 1}\n")
    assert run_cobe("models", "check", "mock/echo", "--models-file", str(models)).returncode == 0
