"""A private Ray instance for a test module: started once, shut down with it, never another user's.

Ray takes seconds to start, so each module that needs it starts one (module-scoped fixture) with two
CPUs, no dashboard and no usage report, in a temporary folder of its own; `address="local"` never
joins a cluster someone else started on this machine. The executor finds it initialised and runs on it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

QUIET = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


def start_ray(num_cpus: int = 2) -> tuple[Any, str]:
    """`ray` initialised on a new private instance, and its temporary folder (short: Ray's socket paths are bounded)."""
    os.environ.update(QUIET)
    import ray

    temp = tempfile.mkdtemp(prefix="r", dir="/tmp")
    ray.init(
        address="local",
        num_cpus=num_cpus,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        _temp_dir=temp,
    )
    return ray, temp


@pytest.fixture(scope="module")
def ray_local() -> Iterator[Any]:
    """Ray on this machine for the whole module (two CPUs); shut down when the module ends."""
    pytest.importorskip("ray.data")
    ray, temp = start_ray()
    try:
        yield ray
    finally:
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)
