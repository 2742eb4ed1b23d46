"""`make test` spreads files over xdist workers but runs every file with real inference on one worker, first."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from support.home import REAL_HOME

TESTS = Path(__file__).resolve().parent
MAKEFILE = TESTS.parent / "Makefile"

INNER = """
import os
from pathlib import Path

import pytest

{mark}


@pytest.mark.parametrize("n", range({count}))
def test_records_its_worker(n):
    with Path(os.environ["WORKERS_LOG"]).open("a") as log:
        log.write(f"{{os.environ['PYTEST_XDIST_WORKER']}} {{Path(__file__).name}}\\n")
"""
#: without the plugin, loadfile's first hand-out sends the first two files to different workers
FILES = {"test_a_model.py": True, "test_b_model.py": True, "test_c_plain.py": False, "test_d_plain.py": False}


def make_test_flags() -> list[str]:
    """The xdist flags `make test` passes to pytest, read from the Makefile."""
    recipe = re.search(r"^test:.*?\n((?:\t.*\n)+)", MAKEFILE.read_text(), re.M)
    assert recipe, "the Makefile has no test target"
    command = next(line for line in recipe.group(1).splitlines() if "-m pytest" in line)
    return shlex.split(command.split("-m pytest", 1)[1])


def inner_pytest(folder: Path, files: dict[str, bool], *flags: str) -> subprocess.CompletedProcess[str]:
    """pytest with the suite's worker plugin on test files that each log which worker ran them."""
    for name, slow in files.items():
        mark = "pytestmark = pytest.mark.slow" if slow else ""
        (folder / name).write_text(INNER.format(mark=mark, count=6))
    # PYTEST_ADDOPTS too: a -v meant for the outer run would change the inner one's output
    env = {k: v for k, v in os.environ.items() if k not in (REAL_HOME, "PYTEST_ADDOPTS") and not k.startswith("XDG_")}
    env |= {"PYTHONPATH": str(TESTS), "WORKERS_LOG": str(folder / "workers.log")}
    command = [sys.executable, "-m", "pytest", "-p", "support.workers", "-p", "no:cacheprovider", "-q", *flags]
    command += ["-o", "markers=slow: real inference", str(folder)]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def test_make_test_keeps_each_file_on_one_worker_and_every_inference_file_on_the_same_one(tmp_path):
    flags = [flag if flag != "auto" else "2" for flag in make_test_flags()]  # two workers wherever it runs
    result = inner_pytest(tmp_path, FILES, *flags)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "24 passed" in result.stdout, result.stdout

    workers_of: dict[str, set[str]] = defaultdict(set)
    for line in (tmp_path / "workers.log").read_text().splitlines():
        worker, name = line.split()
        workers_of[name].add(worker)
    assert all(len(workers) == 1 for workers in workers_of.values()), workers_of
    assert workers_of["test_a_model.py"] == workers_of["test_b_model.py"], workers_of


def test_the_inference_files_come_first_in_each_file_s_own_order(tmp_path):
    files = {"test_a_plain.py": False, "test_b_model.py": True, "test_c_plain.py": False, "test_d_model.py": True}
    result = inner_pytest(tmp_path, files, "--collect-only")
    listed = [line.split("::")[0].rsplit("/", 1)[-1] for line in result.stdout.splitlines() if "::" in line]
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        listed == ["test_b_model.py"] * 6 + ["test_d_model.py"] * 6 + ["test_a_plain.py"] * 6 + ["test_c_plain.py"] * 6
    )
