"""Fail when a test file would silently never run: every tests/**/test_*.py must yield tests.

Runs pytest's collection in-process with every marker included and prints one line per
problem: a file that fails to import, is skipped whole at collection, or yields no test (as
`tests/build/` once did, hidden by pytest's default norecursedirs). Exit status 1 if any.

    python scripts/check_collected.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


class Collection:
    """A pytest plugin that keeps what collection found and what it failed or skipped."""

    def __init__(self) -> None:
        self.files_with_tests: set[str] = set()
        self.problems: dict[str, str] = {}  # nodeid → why it yields nothing

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.problems[report.nodeid] = f"collection failed: {_last_error_line(report)}"
        elif report.skipped and report.nodeid.endswith(".py"):
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            self.problems[report.nodeid] = f"skipped at collection: {reason}"

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.files_with_tests = {item.nodeid.split("::", 1)[0] for item in session.items}


def _last_error_line(report: pytest.CollectReport) -> str:
    """The exception line pytest shows last (`E   ModuleNotFoundError: ...`), without the `E`."""
    lines = [line.strip() for line in report.longreprtext.splitlines() if line.strip()]
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]
    return (errors or lines or ["no details"])[-1]


def problems() -> list[str]:
    """One line per test file (or collection node) that yields no test."""
    plugin = Collection()
    os.chdir(ROOT)  # the rootdir, so pyproject's pytest settings and node ids apply
    # a user's PYTEST_ADDOPTS (say -v) meant for the test run would be refused here, with no terminal plugin
    os.environ.pop("PYTEST_ADDOPTS", None)
    args = ["--collect-only", "-p", "no:cacheprovider", "-p", "no:terminal", "-o", "addopts=", str(TESTS)]
    code = pytest.main(args, plugins=[plugin])
    lines = [f"{nodeid or 'tests'}: {why}" for nodeid, why in sorted(plugin.problems.items())]
    reported = set(plugin.problems)
    for path in sorted(TESTS.rglob("test_*.py")):
        nodeid = path.relative_to(ROOT).as_posix()
        # a file under a folder whose conftest failed is already covered by that folder's line
        covered = any(nodeid == node or nodeid.startswith(node + "/") for node in reported)
        if nodeid not in plugin.files_with_tests and not covered:
            lines.append(f"{nodeid}: no test collected")
    if not lines and code not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        lines.append(f"tests: pytest collection ended with exit status {int(code)}")
    return lines


def main() -> int:
    """Print the problems, or a one-line count when there are none."""
    found = problems()
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} problem(s): the tests above would not run", file=sys.stderr)
        return 1
    print(f"every test file under {TESTS.relative_to(ROOT)}/ yields tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
