"""Written files are private and whole; a killed writer's temp file is removed by the next writer, a live one's is not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cobe.core import files
from cobe.core.files import atomic_open, atomic_write, create_private, remove_stale_temps

SRC = Path(files.__file__).resolve().parents[2]
# a writer that stops half-way through results.jsonl: it says "writing" and then waits for a line on stdin
WRITER = """
import sys
from pathlib import Path
from cobe.core.files import atomic_open
with atomic_open(Path(sys.argv[1])) as handle:
    handle.write("half of a new file\\n")
    handle.flush()
    print("writing", flush=True)
    sys.stdin.readline()
    handle.write("and the rest\\n")
"""


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def python(*args: str) -> subprocess.Popen[str]:
    env = os.environ | {"PYTHONPATH": str(SRC)}
    return subprocess.Popen([sys.executable, *args], env=env, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def dead_pid() -> int:
    """The pid of a process that has finished and been reaped."""
    child = python("-c", "pass")
    child.communicate()
    return child.pid


def temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_written_files_are_0600_even_over_a_0644_one(tmp_path: Path, umask_022: None) -> None:
    path = tmp_path / "summary.json"
    path.write_text("old")
    assert path.stat().st_mode & 0o777 == 0o644
    atomic_write(path, "new")
    assert path.read_text() == "new" and path.stat().st_mode & 0o777 == 0o600
    create_private(tmp_path / "store.sqlite")
    assert (tmp_path / "store.sqlite").stat().st_mode & 0o777 == 0o600
    with pytest.raises(FileExistsError):
        create_private(tmp_path / "store.sqlite")


def test_a_failed_write_leaves_the_old_file_and_no_temp(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_open(path) as handle:
        handle.write("partial")
        raise RuntimeError("the export failed")
    assert path.read_text() == "old\n" and temps(tmp_path) == []


def test_only_temps_of_writers_that_are_gone_are_removed(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    before_start = files._STARTED - 60  # written before this process began
    gone, live = dead_pid(), os.getppid()
    made = {
        f".results.jsonl.{gone}.abcd1234.tmp": before_start,  # killed writer: removed
        ".results.jsonl.k3j4h5g6.tmp": before_start,  # named before pids were: old enough, removed
        f".results.jsonl.{live}.abcd1234.tmp": before_start,  # its writer still runs: kept
        f".results.jsonl.{gone}.fresh123.tmp": None,  # written after this process started: kept
        f".summary.json.{gone}.abcd1234.tmp": before_start,  # another file's temp: not this writer's business
    }
    for name, mtime in made.items():
        (tmp_path / name).write_text("partial")
        if mtime is not None:
            os.utime(tmp_path / name, (mtime, mtime))
    removed = remove_stale_temps(path)
    assert sorted(p.name for p in removed) == sorted(list(made)[:2])
    assert temps(tmp_path) == sorted(list(made)[2:])


def test_a_sigkilled_export_is_cleaned_by_the_next_process_but_a_paused_one_is_not(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text("the last complete export\n")
    killed = python("-c", WRITER, str(path))
    assert killed.stdout is not None and killed.stdout.readline() == "writing\n"
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    (left,) = temps(tmp_path)
    assert left.startswith(f".results.jsonl.{killed.pid}.")

    paused = python("-c", WRITER, str(path))  # a live writer, half-way through, older than the next process
    assert paused.stdout is not None and paused.stdout.readline() == "writing\n"
    nxt = python(
        "-c",
        "import sys; from pathlib import Path; from cobe.core.files import atomic_write;"
        " atomic_write(Path(sys.argv[1]), 'from the next run\\n')",
        str(path),
    )
    assert nxt.wait(timeout=60) == 0
    assert path.read_text() == "from the next run\n"
    (still,) = temps(tmp_path)  # the killed writer's temp is gone, the paused writer's is not
    assert still.startswith(f".results.jsonl.{paused.pid}.")

    paused.communicate("go on\n", timeout=60)
    assert paused.returncode == 0
    assert path.read_text() == "half of a new file\nand the rest\n" and temps(tmp_path) == []


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_a_shared_file_takes_the_users_umask(tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        atomic_write(tmp_path / "report.html", "<p>shared</p>", shared=True)
    finally:
        os.umask(old)
    assert (tmp_path / "report.html").stat().st_mode & 0o777 == mode
    assert temps(tmp_path) == []
