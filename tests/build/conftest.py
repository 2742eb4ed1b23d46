"""Shared helpers for the dataset-construction tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
CORES = DATA / "cores.jsonl"
SCRIPT = DATA / "augment_script.json"
COBE = Path(sys.executable).parent / "cobe"  # the installed console script


def cobe(*args: str, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real `cobe` command in a subprocess, as a user would."""
    done = subprocess.run([str(COBE), *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"cobe {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


@pytest.fixture
def project(tmp_path: Path):
    """A project with the three core examples imported and promoted."""
    from cobe.build import import_file, init_project, promote

    proj = init_project(tmp_path / "proj")
    import_file(proj, CORES)
    promote(proj, ["1v0", "2v0", "3v0"])
    yield proj
    proj.close()
