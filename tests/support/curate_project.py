"""Paths and the real `cobe` command for the dataset-construction tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "curate" / "data"
CORES = DATA / "cores.jsonl"
SCRIPT = DATA / "augment_script.json"
COBE = Path(sys.executable).parent / "cobe"  # the installed console script


def cobe(*args: str, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real `cobe` command in a subprocess, as a user would."""
    done = subprocess.run([str(COBE), *args], capture_output=True, text=True, cwd=cwd, timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"cobe {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done
