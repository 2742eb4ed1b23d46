"""Names reach the terminal as text: rich markup in a model name (`mock/fixed:[/]`, `see [v2] notes`) is neither
read as markup (a MarkupError, exit 1) nor eaten (`see  notes`) by `report`, `compare`, `runs` or `data show`.

Issue 43, item 11. FORCE_COLOR makes rich draw for a terminal, as it does at one.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import run_cobe
from support.results import make_rows, write_run
from support.run_data import scenario, write_dataset

NAMES = ("mock/fixed:[/]", "mock/fixed:see [v2] notes", "mock/fixed:[bold]x[/bold]")
TERMINAL = {"FORCE_COLOR": "1", "COLUMNS": "250", "NO_COLOR": None}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """One run per hostile name."""
    root = tmp_path_factory.mktemp("runs")
    return [write_run(root / f"run{i}", make_rows(name, 6, 0.5, run_id=f"r{i}")) for i, name in enumerate(NAMES)]


def _shows_every_name(result, names=NAMES) -> None:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    for name in names:
        assert name in result.stdout, (name, result.stdout)


def test_report_prints_each_name_as_it_is(runs, tmp_path):
    _shows_every_name(run_cobe("report", *map(str, runs), "--out", str(tmp_path / "rep"), env=TERMINAL))


def test_compare_prints_each_name_as_it_is(runs):
    _shows_every_name(run_cobe("compare", *map(str, runs), "--resamples", "20", env=TERMINAL))


def test_runs_on_a_terminal_prints_each_name_as_it_is(tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 1)
    for i, name in enumerate(NAMES):
        args = ("--model", name, "--judge", "mock/judge-pass", "--data", str(data), "--no-report")
        assert run_cobe("eval", *args, "--run-dir", str(tmp_path / "runs" / str(i))).returncode == 0
    code, shown = _on_a_terminal("runs", str(tmp_path / "runs"))
    assert code == 0 and "Traceback" not in shown, shown
    for name in NAMES:
        assert name in shown, (name, shown)


def _on_a_terminal(*args: str) -> tuple[int, str]:
    """`cobe ARGS` in a process whose stdout and stderr are a terminal (a pseudo-terminal): its exit and output."""
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR")} | {"COLUMNS": "250"}
    code = "import sys; from cobe.cli.main import main; sys.argv[0] = 'cobe'; main(sys.argv[1:])"
    with subprocess.Popen([sys.executable, "-c", code, *args], stdout=follower, stderr=follower, env=env) as child:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: the process has ended
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        returncode = child.wait(timeout=60)
    return returncode, b"".join(chunks).decode(errors="replace")


def test_data_show_prints_stored_text_as_it_is(tmp_path):
    story = scenario(1) | {"story": "A [bold]baker[/bold] sold [/] bread.", "tags": ["[red]x"]}
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(story) + "\n", encoding="utf-8")
    result = run_cobe("data", "show", "1v0", "--data", str(data), env=TERMINAL)
    assert result.returncode == 0, result.stderr
    assert "[bold]baker[/bold] sold [/] bread." in result.stdout and "[red]x" in result.stdout
