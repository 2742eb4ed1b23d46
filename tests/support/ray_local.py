"""A private Ray instance for a test module: started once, shut down with it, never another user's.

Ray takes seconds to start, so each module that needs it starts one (module-scoped fixture) with two
CPUs, no dashboard and no usage report, in a temporary folder of its own; `address="local"` never
joins a cluster someone else started on this machine. The executor finds it initialised and runs on it.

Ray also writes outside its `_temp_dir`: the address file `ray_current_cluster` goes to
`$RAY_TMPDIR/ray` (else `$TMPDIR/ray`, else `/tmp/ray`), which only a machine that ran Ray before has.
`private_temp` points RAY_TMPDIR at the test's own folder and creates what Ray expects in it. Every node
binds to 127.0.0.1: never to the machine's other interfaces.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

QUIET = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
LOOPBACK = "127.0.0.1"
#: Ray's socket paths (temp dir + session folder + socket name) must stay under the OS's 107 bytes
SHORT_BASE = 40


def private_temp() -> str:
    """A new short temporary folder that RAY_TMPDIR now points at, its `ray/` (the address file's) made."""
    base = tempfile.gettempdir()
    temp = tempfile.mkdtemp(prefix="r", dir=base if len(base) <= SHORT_BASE else "/tmp")
    os.makedirs(os.path.join(temp, "ray"))
    os.environ["RAY_TMPDIR"] = temp
    return temp


def release_temp(temp: str) -> None:
    """Remove a folder of `private_temp` and the RAY_TMPDIR that pointed at it."""
    if os.environ.get("RAY_TMPDIR") == temp:
        del os.environ["RAY_TMPDIR"]
    shutil.rmtree(temp, ignore_errors=True)


def start_ray(num_cpus: int = 2) -> tuple[Any, str]:
    """`ray` initialised on a new private instance, and its temporary folder (short: Ray's socket paths are bounded)."""
    os.environ.update(QUIET)
    import ray

    from cobe.calls.executor import loopback_only

    loopback_only(ray)
    temp = private_temp()
    ray.init(
        address="local",
        num_cpus=num_cpus,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        _temp_dir=os.path.join(temp, "ray"),
        _node_ip_address=LOOPBACK,
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
        release_temp(temp)
