"""`--data hf:ORG/NAME` without a network: one line, at once, and no retry noise from the hub client.

Issue 23, item 11: with no route to the Hub, `datasets` printed 11 lines of "Retrying in 8s" and took
25 s before the one error line. Offline (HF_HUB_OFFLINE, or the Hub's address unreachable) only the
local cache is asked. The Hub here is a closed port on this machine, so no test needs the internet.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("datasets")

_CLI = "import sys; from cobe.cli.main import main; main(sys.argv[1:])"
# generous for a busy machine; the retries alone took 25 s
LIMIT_S = 15.0


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cobe(tmp_path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess[str], float]:
    clean = {k: v for k, v in os.environ.items() if not k.upper().endswith("_PROXY") and not k.startswith("HF_")}
    clean |= {"HF_HOME": str(tmp_path / "hf-home")} | env  # an empty local cache
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _CLI, *args], env=clean, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    return done, time.monotonic() - start


@pytest.mark.parametrize(
    "env",
    [{"HF_HUB_OFFLINE": "1"}, {"HF_ENDPOINT": f"http://127.0.0.1:{closed_port()}"}],
    ids=["HF_HUB_OFFLINE", "no route to the Hub"],
)
def test_validate_offline_is_one_line_at_once(tmp_path, env):
    done, took = cobe(tmp_path, "data", "validate", "hf:nobody/no-such-cobe", **env)
    assert done.returncode == 1
    assert done.stderr == ""  # no retry noise
    error, summary = done.stdout.strip().splitlines()
    assert error.startswith("error: hf:nobody/no-such-cobe: -: -: the Hub cannot be reached (")
    assert "not in the local cache" in error and summary.startswith("1 error")
    assert took < LIMIT_S


def test_eval_offline_is_one_line_before_any_call(tmp_path):
    port = closed_port()
    args = ["eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", "hf:nobody/no-such-cobe"]
    done, took = cobe(tmp_path, *args, HF_ENDPOINT=f"http://127.0.0.1:{port}")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: hf:nobody/no-such-cobe: the Hub cannot be reached (no connection to 127.0.0.1")
    assert took < LIMIT_S
