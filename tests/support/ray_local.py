"""A private Ray instance for a test module: started once, shut down with it, never another user's.

Ray takes seconds to start, so each module that needs it starts one (module-scoped fixture) with two
CPUs, no dashboard and no usage report, in a temporary folder of its own; `address="local"` never
joins a cluster someone else started on this machine. The executor finds it initialised and runs on it.

Ray also writes outside its `_temp_dir`: the address file `ray_current_cluster` goes to
`$RAY_TMPDIR/ray` (else `$TMPDIR/ray`, else `/tmp/ray`), which only a machine that ran Ray before has.
`private_temp` points RAY_TMPDIR at the test's own folder and creates what Ray expects in it. That folder is
made where Ray's socket paths fit in AF_UNIX's 107 bytes (`cobe.calls.executor.ray_root`, as for the private
Ray of `--executor ray`): under $TMPDIR where it is short enough, else under /tmp. Every node binds to
127.0.0.1: never to the machine's other interfaces.
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
#: the test's own folder between the root and Ray's `ray/`: a separator and mkdtemp's "r" and 8 characters
OWN_FOLDER = len(os.sep) + 1 + 8


def private_temp() -> str:
    """A new short temporary folder that RAY_TMPDIR now points at, its `ray/` (the address file's) made: under
    the first of $TMPDIR and /tmp where Ray's socket paths fit, or one line saying none does."""
    from cobe.calls.executor import ray_root

    temp = tempfile.mkdtemp(prefix="r", dir=ray_root(between=OWN_FOLDER, label="a test's private Ray"))
    assert len(os.fsencode(temp)) == len(os.fsencode(os.path.dirname(temp))) + OWN_FOLDER, temp
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
