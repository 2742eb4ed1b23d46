"""Fixtures for the integration tests: a module-wide working directory and a real judged run."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration_runs import JUDGE, MODEL_A, MODEL_B, write_inputs

from cobe.run import EvalConfig, evaluate


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A working directory for the whole test module, holding the dataset and the mock scripts (their
    specs are relative to it); tests write what they make under their own tmp_path."""
    root = tmp_path_factory.mktemp("integrations")
    write_inputs(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        for name in [n for n in os.environ if n.startswith("COBE_")]:
            patch.delenv(name)
        yield root


@pytest.fixture(scope="module")
def cobe_run(workdir: Path) -> Path:
    """A finished two-model run directory judged by the scripted judge (read it, do not change it)."""
    run_dir = workdir / "run"
    evaluate(EvalConfig(data="data.jsonl", models=[MODEL_A, MODEL_B], judge=JUDGE, run_dir=run_dir))
    return run_dir
