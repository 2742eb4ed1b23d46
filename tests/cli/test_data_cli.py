"""`cobe data`: one exact line per corruption, exit codes, and no traceback ever."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cobe.cli.main import cli
from cobe.dataset.queries import tier1_queries
from support.cli import assert_one_line_error, run_cobe

FIXTURES = Path(__file__).parent.parent / "fixtures" / "datasets"
COBE = Path(sys.executable).with_name("cobe")


def paper(core: int = 1, variation: int = 0) -> dict:
    return {
        "Core Set ID": core,
        "Variation ID": variation,
        "Domain": "Travel",
        "Story": "Omar missed the ferry because his alarm failed. He slept in the harbour town.",
        "Query": tier1_queries("Omar's alarm had worked"),
        "Illustrative answer (not scored)": "His alarm worked, so Omar caught the ferry.",
        "Evaluation criteria": ["Omar planned to take the ferry.", "Omar missed the ferry."],
    }


def run(*args: str):
    return CliRunner().invoke(cli, ["data", *args])


def validate_lines(path: Path) -> tuple[int, list[str]]:
    """The exit code and the problem and summary lines (the line saying each file's shape left out)."""
    result = run("validate", str(path))
    assert "Traceback" not in result.output
    return result.exit_code, [line for line in result.output.splitlines() if ": read as " not in line]


def dump(path: Path, value) -> Path:
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


def test_valid_files_pass(tmp_path) -> None:
    code, out = validate_lines(FIXTURES / "paper.json")
    assert (code, out) == (0, ["0 errors, 0 warnings in 1 file / 4 scenarios"])


def test_missing_field(tmp_path) -> None:
    rec = paper()
    del rec["Story"]
    path = dump(tmp_path / "d.json", [rec])
    assert validate_lines(path) == (
        1,
        [f"error: {path}:2: 1v0: Story: missing required field", "1 error, 0 warnings in 1 file / 0 scenarios"],
    )


def test_duplicate_id(tmp_path) -> None:
    path = dump(tmp_path / "d.json", [paper(), paper()])
    assert validate_lines(path) == (
        1,
        [
            f"error: {path}:18: 1v0: id: duplicate id (earlier in this file)",
            "1 error, 0 warnings in 1 file / 2 scenarios",
        ],
    )


def test_two_queries(tmp_path) -> None:
    rec = paper()
    rec["Query"] = rec["Query"][:2]
    path = dump(tmp_path / "d.json", [rec])
    assert validate_lines(path)[1][0] == f"error: {path}:2: 1v0: Query: expected 3 queries (phrasings A, B, C), found 2"


def test_bad_json(tmp_path) -> None:
    path = tmp_path / "d.json"
    path.write_text('[\n  {"Story": "x",}\n]\n')
    assert validate_lines(path) == (
        1,
        [
            f"error: {path}:2: -: -: invalid JSON: Expecting property name enclosed in double quotes (line 2, column 17)",
            "1 error, 0 warnings in 1 file / 0 scenarios",
        ],
    )


def test_bad_json_line_in_jsonl(tmp_path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(paper()) + "\n{oops\n")
    assert (
        validate_lines(path)[1][0]
        == f"error: {path}:2: -: -: invalid JSON: Expecting property name enclosed in double quotes (line 2, column 2)"
    )


def test_bad_utf8(tmp_path) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(b'[\n  {"Story": "caf\xe9"}\n]\n')
    assert validate_lines(path) == (
        1,
        [f"error: {path}:2: -: -: invalid UTF-8 at byte offset 18", "1 error, 0 warnings in 1 file / 0 scenarios"],
    )


def test_wrong_types(tmp_path) -> None:
    rec = paper()
    rec["Variation ID"] = "two"
    rec["Story"] = 42
    path = dump(tmp_path / "d.json", [rec])
    code, out = validate_lines(path)
    assert code == 1 and out[:2] == [
        f"error: {path}:2: -: Variation ID: expected a non-negative integer, got 'two'",
        f"error: {path}:2: -: Story: expected a string, got int",
    ]


def test_directory_missing_and_binary_files(tmp_path) -> None:
    binary = tmp_path / "model.bin"
    binary.write_bytes(b"\x00\x01\x02" * 10)
    code, out = validate_lines(tmp_path)
    assert (
        code == 1
        and out[0] == f"error: {tmp_path}: -: -: is a directory; expected a dataset file (.json, .jsonl or .csv)"
    )
    missing = run_cobe("data", "validate", str(tmp_path / "nope.json"))  # bad input, as for every command
    assert missing.returncode == 2
    assert_one_line_error(missing, f"{tmp_path / 'nope.json'}: file not found")
    assert (
        validate_lines(binary)[1][0]
        == f"error: {binary}: -: -: is a binary file; expected a dataset file (.json, .jsonl or .csv)"
    )


def test_strict_and_json(tmp_path) -> None:
    rec = paper()
    rec["Query"][0] = "Please rewrite it."
    path = dump(tmp_path / "d.json", [rec])
    assert validate_lines(path)[0] == 0
    assert run("validate", "--strict", str(path)).exit_code == 1
    report = json.loads(run("validate", "--json", str(path)).output)
    assert report["warnings"] == 1 and report["problems"][0]["field"] == "Query[0]"


def test_convert_stats_list_show_sample(tmp_path) -> None:
    out = tmp_path / "out.csv"
    assert run("convert", str(FIXTURES / "site_by_domain.json"), str(out), "--to", "csv").exit_code == 0
    stats = json.loads(run("stats", str(out), "--json").output)
    assert stats["scenarios"] == 4 and stats["clause_method"].startswith("approx")
    assert "Domains (%)" in run("stats", str(out)).output
    listed = run("list", "--data", str(FIXTURES / "native.jsonl"), "--graph-type", "collider").output
    assert "2v0" in listed and "1v0" not in listed
    assert "Tom bought fresh bread" in run("show", "2v0", "--data", str(FIXTURES / "native.jsonl")).output
    first = run("sample", "--n", "2", "--seed", "7", "--data", str(FIXTURES / "paper.json"))
    again = run("sample", "--n", "2", "--seed", "7", "--data", str(FIXTURES / "paper_columns.csv"))
    assert first.exit_code == 0 and first.stdout == again.stdout and len(first.stdout.splitlines()) == 2
    assert "sampled 2 scenarios" in first.stderr


def test_every_data_command_takes_its_dataset_as_source_or_as_data() -> None:
    native = str(FIXTURES / "native.jsonl")
    for args in (("list",), ("show", "2v0"), ("stats",), ("sample", "--n", "2")):
        positional, flagged = run(*args, native), run(*args, "--data", native)
        assert positional.exit_code == flagged.exit_code == 0, (args, positional.output)
        assert positional.output == flagged.output
        assert "1v0" in positional.output or "2v0" in positional.output or "scenarios" in positional.output
    # builtin:starter (60 scenarios) when neither is given; the environment still names one
    assert "60 scenarios in builtin:starter" in run("list").output
    from_env = CliRunner().invoke(cli, ["data", "list"], env={"COBE_DATA": native})
    assert f"4 scenarios in {native}" in from_env.output
    # the positional form wins over the environment, and two different datasets on one line are refused
    assert (
        f"4 scenarios in {native}" in CliRunner().invoke(cli, ["data", "list", native], env={"COBE_DATA": "x"}).output
    )
    both = run_cobe("data", "list", native, "--data", str(FIXTURES / "paper.json"))
    assert both.returncode == 2 and both.stderr.startswith(f"error: two datasets given, {native} and --data")


@pytest.mark.skipif(not COBE.exists(), reason="the cobe script is not installed next to this Python")
def test_errors_reach_the_user_as_one_line(tmp_path) -> None:
    rec = paper()
    del rec["Story"]
    path = dump(tmp_path / "d.json", [rec])
    done = subprocess.run([str(COBE), "data", "show", "1v0", "--data", str(path)], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr == f"error: {path}:2: 1v0: Story: missing required field\n"


def test_sources_say_what_data_exists_and_how_to_point_cobe_at_it() -> None:
    result = run("sources")
    assert result.exit_code == 0
    for text in ("builtin:starter", "--data hf:ORG/NAME", "cobe import FILE --from cobe-site", "query_idx 2, 5, 7"):
        assert text in result.output
    listed = json.loads(run("sources", "--json").output)["sources"]
    assert listed[0]["name"] == "builtin:starter" and all(set(s) == {"name", "what", "shapes", "use"} for s in listed)


def test_validate_says_which_shape_it_saw() -> None:
    site = FIXTURES.parent / "site"
    result = run("validate", str(site / "site_examples.json"), str(site / "category-examples.json"))
    # problems stream as they are found (validation holds none); each file's shape is said after them
    lines = [line for line in result.output.splitlines() if ": read as " in line]
    assert lines == [
        f"{site / 'site_examples.json'}: read as site-json (the project site's rows, one per query, in a JSON document)",
        f"{site / 'category-examples.json'}: read as site-categories (the project site's rows, one per query, "
        "grouped under by_domain / by_graph, as the site's category-examples.json)",
    ]
    shapes = json.loads(run("validate", "--json", str(FIXTURES / "paper.json")).output)["shapes"]
    assert shapes == {str(FIXTURES / "paper.json"): "paper-json"}


@pytest.mark.parametrize("flag", [(), ("--json",)])
def test_validate_of_a_missing_file_exits_2_like_every_command(tmp_path, flag) -> None:
    """Issue 43, item 18: `data validate missing.jsonl` exited 1 where every other command exits 2."""
    present = tmp_path / "present.jsonl"
    present.write_text("")
    result = run_cobe("data", "validate", str(present), str(tmp_path / "missing.jsonl"), *flag)
    assert result.returncode == 2
    assert_one_line_error(result, f"{tmp_path / 'missing.jsonl'}: file not found")
    stats = run_cobe("data", "stats", str(tmp_path / "missing.jsonl"))
    assert stats.returncode == 2 and "file not found" in stats.stderr
