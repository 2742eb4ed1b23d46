"""The suite runs in a HOME of its own, and a test that writes into the real one fails the run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.home import REAL_HOME

TESTS = Path(__file__).resolve().parent

INNER = """
import os
from pathlib import Path


def test_home_is_the_suites():
    real = os.environ["COBE_TESTS_REAL_HOME"]
    assert os.environ["HOME"] != real
    assert all(os.environ[name].startswith(os.environ["HOME"]) for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME"))


def test_writes_into_the_real_home():
    cache = Path(os.environ["COBE_TESTS_REAL_HOME"]) / ".cache" / "cobe" / "judge-check" / "cobe.sqlite"
    cache.parent.mkdir(parents=True)
    cache.write_text("verdicts of a fake server")
"""


def _inner_run(tmp_path: Path, *select: str) -> subprocess.CompletedProcess[str]:
    """pytest on INNER with the suite's home plugin, started from a home that already holds cobe's wheel cache."""
    real = tmp_path / "home"
    (real / ".cache" / "cobe" / "wheels").mkdir(parents=True, exist_ok=True)  # an install's, not a test's
    (tmp_path / "inner").mkdir(exist_ok=True)
    test = tmp_path / "inner" / "test_inner.py"
    test.write_text(INNER)
    env = {k: v for k, v in os.environ.items() if k != REAL_HOME and not k.startswith("XDG_")}
    env |= {"HOME": str(real), "PYTHONPATH": str(TESTS)}
    command = [sys.executable, "-m", "pytest", "-p", "support.home", "-p", "no:cacheprovider", "-q", str(test), *select]
    return subprocess.run(command, cwd=tmp_path / "inner", env=env, capture_output=True, text=True, timeout=120)


def test_this_session_runs_in_a_home_of_its_own():
    assert os.environ[REAL_HOME] != os.environ["HOME"]
    assert Path(os.environ["XDG_CACHE_HOME"]).is_relative_to(os.environ["HOME"])


def test_a_test_that_writes_into_the_real_home_fails_the_run_naming_what_it_wrote(tmp_path):
    result = _inner_run(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "2 passed" in result.stdout  # every test passed: the home check alone fails the run
    assert "wrote into the home they were started with" in result.stdout
    assert "judge-check" in result.stdout and "wheels" not in result.stdout.split("started with")[1]


def test_a_run_that_leaves_the_real_home_alone_passes(tmp_path):
    result = _inner_run(tmp_path, "-k", "home_is_the_suites")
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (tmp_path / "home" / ".cache" / "cobe" / "judge-check").exists()
