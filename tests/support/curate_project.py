"""Paths and the `cobe` command for the dataset-construction tests."""

from __future__ import annotations

import sys
from pathlib import Path

from support.cli import CliResult, run_cobe

DATA = Path(__file__).resolve().parents[1] / "curate" / "data"
CORES = DATA / "cores.jsonl"
SCRIPT = DATA / "augment_script.json"
COBE = Path(sys.executable).parent / "cobe"  # the installed console script, for tests that start a server


def cobe(*args: str, check: bool = True, cwd: Path | None = None) -> CliResult:
    """Run `cobe ARGS` in-process as the console script would; `check` fails the test on a non-zero exit."""
    done = run_cobe(*args, cwd=cwd)
    if check and done.returncode != 0:
        raise AssertionError(f"cobe {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def add_variation(project, core_id: str, variation: int = 1) -> str:
    """A variation of a project's core example, as augmentation would add it (its story told apart)."""
    core = project.item(core_id).scenario
    scenario = core.model_copy(
        update={
            "id": f"{core.core_id}v{variation}",
            "variation": variation,
            "story": f"{core.story} It happened on day {variation}.",
        }
    )
    project.add_item(scenario, status="variation", source="augment", actor="test", parent_id=core_id)
    return scenario.id
