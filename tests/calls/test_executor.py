"""--executor: its values, what reaches the workers, and the one line (exit 3) when Ray cannot be had."""

from __future__ import annotations

import sys

import pytest

from cobe.calls.executor import LOOPBACK, RAY, Executor, connect, forwarded_env, parse_executor
from cobe.core.errors import InputError
from support.cli import run_cobe

RUN = ("eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--limit", "1", "--run-dir", "run")


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        (None, Executor()),
        ("local", Executor()),
        ("ray", Executor("ray")),
        ("ray:auto", Executor("ray", "auto")),
        ("ray:10.0.0.5:6379", Executor("ray", "10.0.0.5:6379")),
        ("ray:ray://head:10001", Executor("ray", "ray://head:10001")),
    ],
)
def test_executor_values(value, parsed):
    assert parse_executor(value) == parsed
    assert str(parse_executor(str(parsed))) == str(parsed)


@pytest.mark.parametrize("value", ["spark", "ray:", "local:x", "Ray"])
def test_an_unknown_executor_is_one_line_naming_the_flag(value):
    with pytest.raises(InputError, match=r"^--executor .*: expected local, ray or ray:ADDRESS"):
        parse_executor(value)


def test_workers_get_cobe_settings_keys_and_base_urls_only():
    env = {"COBE_MOCK_LATENCY": "0.1", "OPENAI_API_KEY": "k", "FAKE_BASE_URL": "u", "HOME": "/root", "PATH": "/bin"}
    assert forwarded_env(env) == {"COBE_MOCK_LATENCY": "0.1", "OPENAI_API_KEY": "k", "FAKE_BASE_URL": "u"}


def test_no_cluster_at_the_address_is_exit_3_before_the_run_directory(tmp_path):
    done = run_cobe(*RUN, "--executor", "ray:127.0.0.1:9", cwd=tmp_path)
    assert done.returncode == 3
    assert done.stderr.strip() == "error: --executor ray:127.0.0.1:9: no Ray cluster answers at 127.0.0.1:9"
    assert not (tmp_path / "run").exists()


def test_ray_missing_is_exit_3_naming_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as on a machine without it
    done = run_cobe(*RUN, cwd=tmp_path, env={"COBE_EXECUTOR": "ray"})
    assert done.returncode == 3
    assert done.stderr.strip() == "error: --executor ray: Ray is not installed; run pip install 'cobe[ray]'"
    assert not (tmp_path / "run").exists()


def test_a_bad_executor_is_exit_2(tmp_path):
    done = run_cobe(*RUN, "--executor", "spark", cwd=tmp_path)
    assert done.returncode == 2 and "--executor spark: expected local, ray or ray:ADDRESS" in done.stderr


def test_ray_started_without_an_address_binds_to_loopback_only(monkeypatch):
    """`--executor ray` with no address starts Ray on this machine: its node and GCS on 127.0.0.1."""
    pytest.importorskip("ray.data")
    from support.ray_local import QUIET, private_temp, release_temp

    for name, value in QUIET.items():
        monkeypatch.setenv(name, value)
    temp = private_temp()
    try:
        ray, started = connect(Executor(RAY), num_cpus=1)
        try:
            assert started
            nodes = ray.nodes()
            assert [node["NodeManagerAddress"] for node in nodes] == [LOOPBACK]
            assert ray.get_runtime_context().gcs_address.startswith(f"{LOOPBACK}:")
        finally:
            ray.shutdown()
    finally:
        release_temp(temp)
