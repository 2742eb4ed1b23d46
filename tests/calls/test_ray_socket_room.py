"""Where a private Ray keeps its sockets: a folder whose socket paths fit in AF_UNIX's 107 bytes (issue 41, item 7).

Ray adds its session folder and a socket's name to its folder: with a $TMPDIR of 31 characters the tests' Ray
built a 109-byte path and could not start, and `cobe eval --executor ray` took Ray's default under $TMPDIR
whatever its length. The folder is chosen from the room Ray's suffix leaves: $RAY_TMPDIR where set, else
$TMPDIR where it fits, else /tmp; one line where none does.
"""

from __future__ import annotations

import os

import pytest

from cobe.calls.executor import RAY_FOLDER, RAY_SOCKET_TAIL, SOCKET_PATH_MAX, Executor, connect, ray_root
from cobe.core.errors import ProviderUnavailable
from support.cli import assert_one_line_error, run_cobe
from support.run_data import write_dataset

#: the longest socket path Ray builds, past its folder: a session started at a pid of 7 digits, a node's index
WORST_TAIL = "/session_2026-12-07_16-09-27_200452_4194303/sockets/plasma_store.99"


def folder_of(size: int) -> str:
    """A folder's path of `size` bytes (nothing is made: the room is a matter of the path's length)."""
    return "/" + "t" * (size - 1)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("RAY_TMPDIR", raising=False)
    monkeypatch.delenv("TMPDIR", raising=False)
    return monkeypatch


def room() -> int:
    return SOCKET_PATH_MAX - RAY_SOCKET_TAIL - len(os.sep + RAY_FOLDER)


def test_the_tail_is_rays_longest_socket_path_past_its_folder():
    assert len(WORST_TAIL) == RAY_SOCKET_TAIL
    assert SOCKET_PATH_MAX == 107 or (SOCKET_PATH_MAX == 103 and os.uname().sysname == "Darwin")


@pytest.mark.parametrize("size", [26, 31, 35, 36, 37, 40, 80])
def test_tmpdir_is_used_where_rays_longest_socket_path_fits_and_tmp_otherwise(env, size):
    tmpdir = folder_of(size)
    env.setenv("TMPDIR", tmpdir)
    chosen = ray_root()
    assert room() == 36 or SOCKET_PATH_MAX != 107
    assert chosen == (tmpdir if size <= room() else "/tmp")
    assert len(os.path.join(chosen, RAY_FOLDER) + WORST_TAIL) <= SOCKET_PATH_MAX
    if size == room():  # the boundary: the path fills every byte
        assert len(os.path.join(chosen, RAY_FOLDER) + WORST_TAIL) == SOCKET_PATH_MAX


def test_a_callers_own_folders_between_take_their_share_of_the_room(env):
    tmpdir = folder_of(room() - 10)
    env.setenv("TMPDIR", tmpdir)
    assert ray_root(between=10) == tmpdir
    assert ray_root(between=11) == "/tmp"


def test_rays_own_variable_is_taken_as_it_is_or_refused_in_one_line(env):
    env.setenv("TMPDIR", "/tmp")
    short = folder_of(room())
    env.setenv("RAY_TMPDIR", short)
    assert ray_root() == short
    long = folder_of(room() + 1)
    env.setenv("RAY_TMPDIR", long)
    with pytest.raises(ProviderUnavailable) as refused:
        ray_root()
    line = str(refused.value)
    assert "\n" not in line and line.startswith("--executor ray: no folder leaves room for Ray's sockets")
    assert f"RAY_TMPDIR {long} ({room() + 1} bytes)" in line
    assert line.endswith(f"set RAY_TMPDIR to a folder of at most {room()} bytes")


def test_eval_on_a_private_ray_says_so_in_one_line_exit_3_before_ray_starts(env, tmp_path, monkeypatch):
    pytest.importorskip("ray")
    import ray

    if ray.is_initialized():  # a Ray this process already runs is joined, whatever its folder
        pytest.skip("Ray is already running in this process")
    started: list[object] = []
    monkeypatch.setattr(ray, "init", lambda *args, **kw: started.append(kw))
    data = write_dataset(tmp_path / "data.jsonl", 1)
    long = folder_of(room() + 1)
    args = ["eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data), "--executor", "ray"]
    done = run_cobe(*args, "--run-dir", str(tmp_path / "run"), env={"RAY_TMPDIR": long})
    assert done.returncode == 3
    assert_one_line_error(done, "--executor ray: no folder leaves room for Ray's sockets", "set RAY_TMPDIR")
    assert started == [] and not (tmp_path / "run").exists()


def test_a_private_ray_gets_the_chosen_folder_and_its_start_failing_is_one_line(env, tmp_path, monkeypatch):
    """With a $TMPDIR too long, the private Ray's folder is /tmp/ray (Ray's default would be $TMPDIR/ray, whose
    socket paths it refuses with an OSError, which reached the user as a traceback)."""
    pytest.importorskip("ray")
    import ray

    if ray.is_initialized():
        pytest.skip("Ray is already running in this process")
    env.setenv("TMPDIR", folder_of(room() + 4))
    started: list[dict[str, object]] = []

    def init(*args: object, **options: object) -> None:
        started.append(options)
        raise OSError("validate_socket_filename failed: AF_UNIX path length cannot exceed 107 bytes: /x")

    monkeypatch.setattr(ray, "init", init)
    with pytest.raises(ProviderUnavailable) as refused:
        connect(Executor("ray"))
    assert started[0]["_temp_dir"] == os.path.join("/tmp", RAY_FOLDER)
    assert str(refused.value) == (
        "--executor ray: no Ray cluster could be started "
        "(validate_socket_filename failed: AF_UNIX path length cannot exceed 107 bytes: /x)"
    )
