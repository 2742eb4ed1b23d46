"""--executor ray: an address whose port is no TCP port is one line (exit 2) at once, not minutes of Ray's C++
retries; a ray:// address without Ray Client installed names the package (exit 3); `cobe[ray]` brings Ray Client;
and a run on Ray under -q prints nothing of Ray's own (its C++ core's lines included)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cobe.calls import executor
from support.cli import assert_one_line_error, run_cobe
from support.run_data import write_dataset

ROOT = Path(__file__).resolve().parents[2]
RUN = ("eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--limit", "1", "--no-report")


@pytest.mark.parametrize(
    "address", ["127.0.0.1:-1", "127.0.0.1:0", "127.0.0.1:65536", "10.0.0.5:x", "ray://127.0.0.1:-1", "[::1]:99999"]
)
def test_a_port_that_is_no_tcp_port_is_one_line_before_ray_starts(
    tmp_path: Path, address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 1)
    joined: list[object] = []  # Ray's C++ core retries such an address for minutes: it must never be asked
    monkeypatch.setattr(executor, "connect", lambda *args, **kw: joined.append(args) or (None, False))
    result = run_cobe(*RUN, "--data", str(data), "--run-dir", str(tmp_path / "run"), "--executor", f"ray:{address}")
    assert joined == []
    assert result.returncode == 2
    assert_one_line_error(result, f"--executor ray:{address}", "is not a TCP port; expected 1-65535")
    assert not (tmp_path / "run").exists()


def test_a_ray_client_address_without_ray_client_names_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("ray.data")
    monkeypatch.setitem(sys.modules, "grpc", None)  # as on a machine with ray[data] but not ray[client]
    data = write_dataset(tmp_path / "data.jsonl", 1)
    result = run_cobe(*RUN, "--data", str(data), "--run-dir", str(tmp_path / "run"), "--executor", "ray:ray://h:10001")
    assert result.returncode == 3
    assert_one_line_error(result, "ray:ray://h:10001", "ray[client]", "pip install 'cobe[ray]'")
    assert not (tmp_path / "run").exists()


def test_the_ray_extra_brings_ray_client() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    (ray,) = [spec for spec in extras["ray"] if spec.startswith("ray[")]
    assert {"data", "client"} <= set(ray.partition("[")[2].partition("]")[0].split(","))


def test_a_quiet_run_on_ray_prints_nothing_of_rays_own(tmp_path: Path) -> None:
    pytest.importorskip("ray.data")
    from support.ray_local import QUIET, private_temp, release_temp

    data = write_dataset(tmp_path / "data.jsonl", 1)
    temp = private_temp()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_BACKEND")} | QUIET | {"RAY_TMPDIR": temp}
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "from cobe.cli.main import main; main()",
                *RUN,
                *("--data", str(data), "--run-dir", str(tmp_path / "run"), "--executor", "ray", "-q"),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        release_temp(temp)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr  # no core_worker.cc, logging.cc or any other line of Ray's
