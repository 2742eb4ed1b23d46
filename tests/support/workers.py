"""How `make test` spreads the suite over xdist workers: one file per work unit, real inference on one worker.

Under `--dist loadfile` each test file goes whole to one worker (its module fixtures load once). This plugin
adds one rule: the files that run the embedded model for real (any test marked `slow`) form a single unit,
run one after another on one worker, and go first (the longest unit, so nothing waits on it at the end).
Two llama.cpp processes on two workers of a 2-core machine each spin their threads at every barrier while
the other holds a core; beside two more CPU-bound processes a token took 20 times as long (35 → 700 ms)
and a Ray run on the embedded model overran its hang limit. Serialised, each sees at most one other busy
worker.

xdist's own `--dist loadgroup` would do this from `xdist_group` marks, but it tags node ids through an
attribute pytest 9.2 no longer reads, so every marked test became a unit of its own. Here the workers, which
see the marks, write the inference files down; the controller's scheduler, which sees only node ids, reads
them once every worker has collected.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

#: the one work unit that runs real llama.cpp inference
INFERENCE_GROUP = "embedded-model"
#: set by the controller before the workers start: the file they write the inference files into
HANDOFF = "COBE_TESTS_INFERENCE_FILES"


def file_of(nodeid: str) -> str:
    """The test file a node id belongs to."""
    return nodeid.split("::", 1)[0]


class InferenceOnOneWorker(LoadScopeScheduling):
    """`--dist loadfile`, except that every file running real inference is one unit."""

    def __init__(self, config: pytest.Config, handoff: Path, log: Any = None) -> None:
        super().__init__(config, log)
        self.handoff = handoff
        self._inference: frozenset[str] | None = None

    def inference_files(self) -> frozenset[str]:
        """The files the workers found a `slow` test in (read once: every worker has collected by now)."""
        if self._inference is None:
            self._inference = frozenset(json.loads(self.handoff.read_text())) if self.handoff.exists() else frozenset()
        return self._inference

    def _split_scope(self, nodeid: str) -> str:
        test_file = file_of(nodeid)
        return INFERENCE_GROUP if test_file in self.inference_files() else test_file


def pytest_configure(config: pytest.Config) -> None:
    """In the controller, choose where the workers will hand the inference files over."""
    if hasattr(config, "workerinput"):
        return
    folder = Path(tempfile.mkdtemp(prefix="cobe-workers-"))
    config.stash[_folder] = folder
    os.environ[HANDOFF] = str(folder / "inference.json")  # inherited by the workers, spawned after this


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the controller's handoff folder."""
    folder = config.stash.get(_folder, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(HANDOFF, None)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> LoadScopeScheduling | None:
    """Schedule `--dist loadfile` with the inference files as one unit; leave every other mode to xdist."""
    if config.getvalue("dist") != "loadfile" or not os.environ.get(HANDOFF):
        return None
    return InferenceOnOneWorker(config, Path(os.environ[HANDOFF]), log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the inference files first and, in a worker, write them down for the controller's scheduler."""
    inference = sorted({file_of(item.nodeid) for item in items if item.get_closest_marker("slow")})
    # a stable sort keeps each file's own order; the scheduler hands units out in collection order
    items.sort(key=lambda item: file_of(item.nodeid) not in inference)
    handoff = os.environ.get(HANDOFF)
    if hasattr(config, "workerinput") and handoff:
        # every worker collects the same files: each writes the same list, whole, in one rename
        staging = Path(f"{handoff}.{config.workerinput['workerid']}")
        staging.write_text(json.dumps(inference))
        staging.replace(handoff)


_folder = pytest.StashKey[Path]()
