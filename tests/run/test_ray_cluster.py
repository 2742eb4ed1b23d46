"""A two-node Ray cluster on this machine (`ray.cluster_utils.Cluster`, one per module): the embedded model in
one actor per node with a node removed mid-run, and the driver SIGKILLed mid-run, both ending with every call
made once and the local executor's results."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cobe.run.config import EvalConfig
from cobe.run.engine import evaluate
from cobe.store.store import STORE_NAME
from run.test_pipeline import _masked
from support.cli import run_cobe
from support.ray_local import LOOPBACK, QUIET, private_temp, release_temp
from support.run_data import write_dataset
from support.store_reads import committed_calls

HUNG_S = 600  # reached only by a run that hangs
SPEC = "openai-api/fake/fake-model"


@pytest.fixture(scope="module")
def cluster():
    """A head node and a worker node of one CPU each; this process is connected to it."""
    pytest.importorskip("ray.data")
    os.environ.update(QUIET)
    import ray
    from ray.cluster_utils import Cluster

    from cobe.calls.executor import loopback_only

    loopback_only(ray)
    temp = private_temp()
    node = {"node_ip_address": LOOPBACK, "temp_dir": os.path.join(temp, "ray")}
    # connect=False: Cluster.connect would let the driver pick the machine's outward address
    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False, **node})
    try:
        nodes.worker = nodes.add_node(num_cpus=1, **node)
        nodes.wait_for_nodes()
        ray.init(address=nodes.address, _node_ip_address=LOOPBACK, log_to_driver=False)
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()
        release_temp(temp)


def stored_calls(run_dir: Path) -> int:
    """Calls committed in a run's store so far (0 before it exists)."""
    return committed_calls(run_dir, answered=True)


def wait_until(condition, timeout: float = HUNG_S) -> None:
    """Poll a condition another process makes true (a store it writes); the bound is reached only by a hang."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("the condition never held")
        time.sleep(0.05)


def test_every_node_binds_and_talks_to_loopback_only(cluster):
    """Head, worker node and this driver use 127.0.0.1: the GCS address, each raylet and object store."""
    import ray

    assert cluster.address.startswith(f"{LOOPBACK}:")
    nodes = [node for node in ray.nodes() if node["Alive"]]
    assert len(nodes) == 2
    assert {node["NodeManagerAddress"] for node in nodes} == {LOOPBACK}
    assert ray.util.get_node_ip_address() == LOOPBACK


def test_the_address_file_is_in_the_tests_own_folder(cluster):
    """Ray's `ray_current_cluster` went to the fixture's RAY_TMPDIR, not to a /tmp/ray an earlier run left."""
    written = Path(os.environ["RAY_TMPDIR"], "ray", "ray_current_cluster")
    assert written.read_text().strip() == cluster.address


@pytest.mark.parametrize("client", [False, True], ids=["driver-on-a-node", "ray-client-driver"])
def test_the_driver_anchor_lives_on_the_drivers_node(cluster, monkeypatch, client):
    """The actor whose end tells the workers their driver is gone runs where the driver does: placed on the
    worker node (a soft affinity put 1 in 4 there), that node's removal stopped every worker of a live driver
    and left the run below incomplete ("not sent: the command's driver is gone"). A driver that cannot name its
    node (Ray Client's) puts it on the head node, where the client's server runs (this driver's node here)."""
    import ray

    from cobe.calls import ray_waves
    from cobe.calls.ray_waves import WaveScheduler

    here = ray.get_runtime_context().get_node_id()
    assert here == cluster.head_node.node_id
    if client:
        monkeypatch.setattr(ray_waves, "_driver_node", lambda _ray: None)
    anchors = [WaveScheduler(ray, store=None)._driver_anchor() for _ in range(8)]
    assert ray.get([anchor.node.remote() for anchor in anchors]) == [here] * len(anchors)
    for anchor in anchors:
        ray.kill(anchor)


@pytest.mark.slow
def test_embedded_model_over_two_nodes_with_one_removed_gives_the_local_results(tmp_path, cluster, monkeypatch):
    """local/gemma-3-270m as respondent and judge, one single-threaded actor per node; the worker node is
    removed once the first answer is stored (a new one joins, as a fleet replaces a node); the run completes
    with each call once and results.jsonl, summary.json and report.md those of the local executor."""
    monkeypatch.setenv("COBE_RAY_BATCH", "1")  # one call per batch: both nodes get work, a lost one costs one call
    base = {"models": ["local/gemma-3-270m"], "judge": "local/gemma-3-270m", "templates": ["A"], "limit": 2}
    here = evaluate(EvalConfig(**base, run_dir=Path("local")))
    assert here.state == "complete"

    outcome: list[object] = []

    def run_on_ray() -> None:
        try:
            outcome.append(evaluate(EvalConfig(**base, run_dir=Path("ray"), executor=f"ray:{cluster.address}")))
        except BaseException as exc:  # handed to the test's thread
            outcome.append(exc)

    driver = threading.Thread(target=run_on_ray)
    driver.start()
    try:  # nodes are added and removed from the main thread, where Ray sets its signal handlers
        wait_until(lambda: stored_calls(tmp_path / "ray") >= 1 or bool(outcome))
        assert not outcome, "the run ended before a node could be removed"
        cluster.remove_node(cluster.worker)
        cluster.worker = cluster.add_node(num_cpus=1)
    finally:
        driver.join(timeout=HUNG_S)
    assert outcome, f"the run on Ray had not ended after {HUNG_S} s"  # a hang, or a machine far past its cores
    there = outcome[0]
    assert not isinstance(there, BaseException), there
    assert there.state == "complete" and there.unfinished == 0, there.failures
    db = sqlite3.connect(tmp_path / "ray" / STORE_NAME)
    assert db.execute("SELECT count(*) FROM calls").fetchone()[0] == 2 * 4  # a response and three checks each
    db.close()
    local, ray_side = _masked(tmp_path / "local", "run"), _masked(tmp_path / "ray", "run")
    assert {k: v.replace("ray", "local") for k, v in ray_side.items()} == local


def test_driver_killed_mid_run_resumes_with_no_repeated_call(tmp_path, cluster, openai_server):
    """SIGKILL the driver once 10 answers are stored (later requests held at the server): running the same
    command again asks only what was not answered."""
    data = write_dataset(tmp_path / "data.jsonl", 4)  # 12 items, 48 calls
    run_dir = tmp_path / "run"
    # no preflight: the counts below are of the items' calls alone
    args = ["eval", "--model", SPEC, "--judge", SPEC, "--data", str(data), "--run-dir", str(run_dir), "--no-preflight"]
    args += ["--no-report", "--executor", f"ray:{cluster.address}"]
    env = {"FAKE_BASE_URL": openai_server.base_url, "COBE_RAY_BATCH": "1", **QUIET}
    answered = 10
    openai_server.control(hold_after=answered)
    driver = subprocess.Popen(
        [sys.executable, "-c", "from cobe.cli.main import main; main()", *args],
        env=os.environ | env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        openai_server.wait_for(lambda s: s.held >= 1, timeout=HUNG_S)
        wait_until(lambda: stored_calls(run_dir) == answered)
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=HUNG_S)
    openai_server.control(hold_after=None)
    before = openai_server.stats()["requests"]
    done = run_cobe(*args, env=env)
    assert done.returncode == 0, done.stderr
    assert openai_server.stats()["requests"] - before == 48 - answered
    db = sqlite3.connect(run_dir / STORE_NAME)
    assert db.execute("SELECT count(*) FROM responses").fetchone()[0] == 12
    assert db.execute("SELECT count(*) FROM verdicts").fetchone()[0] == 36
    db.close()
