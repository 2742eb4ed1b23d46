"""`cobe import --out` where no run directory can be: below a file, in a read-only folder, or taken by another
import at the same moment. One line, exit 2, and nothing left behind, for every kind of import.

Issue 43, item 12: these ended in FileExistsError / NotADirectoryError / OSError tracebacks, and of two imports
into one --out at once the loser printed `OSError: Directory not empty` (11 of 11).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.core.files import new_directory
from support.cli import assert_one_line_error, run_cobe

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "category-examples.json"
LM_EVAL = Path(__file__).parents[1] / "integrations" / "data" / "lm_eval" / "EleutherAI__pythia-160m"


def _sources(tmp_path: Path) -> dict[str, tuple[str, ...]]:
    """Every kind of import, as the arguments before --out."""
    verdicts = tmp_path / "rows.jsonl"
    verdicts.write_text(json.dumps([{"scenario_id": "3v2", "template": "A", "model": "m", "verdict": True}]))
    totals = tmp_path / "eval-statistics.json"
    counts = {"correct": 3, "wrong": 1, "unknown": 0, "total": 4, "accuracy": 75.0}
    totals.write_text(json.dumps({"overall": {"m": counts}, "by_domain": {}, "by_graph": {}}), encoding="utf-8")
    return {
        "verdicts": (str(verdicts),),
        "site results": (str(SITE), "--from", "cobe-site"),
        "site totals": (str(totals), "--from", "cobe-site"),
        "lm-eval": (str(next(LM_EVAL.glob("samples_*.jsonl"))), "--from", "lm-eval"),
    }


@pytest.mark.parametrize("kind", ["verdicts", "site results", "site totals", "lm-eval"])
def test_an_out_below_a_file_is_one_line(tmp_path, kind):
    (tmp_path / "a-file").write_text("x")
    result = run_cobe("import", *_sources(tmp_path)[kind], "--out", str(tmp_path / "a-file" / "below" / "run"))
    assert result.returncode == 2
    assert_one_line_error(result, "a part of the path is a file, not a directory")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
@pytest.mark.parametrize("kind", ["verdicts", "site results", "site totals", "lm-eval"])
def test_an_out_in_a_read_only_folder_is_one_line(tmp_path, kind):
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        result = run_cobe("import", *_sources(tmp_path)[kind], "--out", str(folder / "run"))
    finally:
        folder.chmod(0o755)
    assert result.returncode == 2
    assert_one_line_error(result, "cannot write here")


def test_a_directory_filled_while_it_was_made_is_refused_and_left_as_the_other_made_it(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(InputError, match="another command wrote there meanwhile"), new_directory(out) as staging:
        (staging / "mine").write_text("mine")
        out.mkdir()  # the other import, renamed into place first
        (out / "theirs").write_text("theirs")
    assert [p.name for p in out.iterdir()] == ["theirs"]
    assert [p.name for p in tmp_path.iterdir()] == ["run"]  # no staging folder left behind


def test_an_empty_out_is_taken(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    with new_directory(out) as staging:
        (staging / "mine").write_text("mine")
    assert [p.name for p in out.iterdir()] == ["mine"]


def test_two_imports_into_one_out_at_once_one_wins_the_other_is_one_line(tmp_path):
    out = tmp_path / "run"
    code = "import sys; from cobe.cli.main import main; main(sys.argv[1:])"
    args = [sys.executable, "-c", code, "import", str(SITE), "--from", "cobe-site", "--out", str(out)]
    both = [subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    ends = sorted((p.returncode, err) for p in both for _, err in [p.communicate(timeout=120)])
    (won, _), (lost, said) = ends
    assert (won, lost) == (0, 2), ends
    assert "Traceback" not in said and said.startswith("error: ") and said.count("\n") == 1, said
    assert str(out) in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]
