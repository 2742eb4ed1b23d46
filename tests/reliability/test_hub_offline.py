"""`--data hf:ORG/NAME` without a network: one line, and no retry from the hub client.

Issue 23, item 11: with no route to the Hub, `datasets` printed 11 lines of "Retrying in 8s" and took
25 s before the one error line. Offline (HF_HUB_OFFLINE, or the Hub's address unreachable) only the
local cache is asked. The Hub here is a closed port on this machine, so no test needs the internet. The
hub client announces each retry on stderr ("Retrying in 8s [Retry 1/5]"), so the one line and nothing
else on stderr is what says none was made; how long the command took is no test (a busy machine's).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

pytest.importorskip("datasets")

_CLI = "import sys; from cobe.cli.main import main; main(sys.argv[1:])"
HUNG_S = 120  # reached only by a command that hangs


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cobe(tmp_path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.upper().endswith("_PROXY") and not k.startswith("HF_")}
    clean |= {"HF_HOME": str(tmp_path / "hf-home")} | env  # an empty local cache
    return subprocess.run(
        [sys.executable, "-c", _CLI, *args], env=clean, cwd=tmp_path, capture_output=True, text=True, timeout=HUNG_S
    )


@pytest.mark.parametrize(
    "env",
    [{"HF_HUB_OFFLINE": "1"}, {"HF_ENDPOINT": f"http://127.0.0.1:{closed_port()}"}],
    ids=["HF_HUB_OFFLINE", "no route to the Hub"],
)
def test_validate_offline_is_one_line_and_no_retry(tmp_path, env):
    done = cobe(tmp_path, "data", "validate", "hf:nobody/no-such-cobe", **env)
    assert done.returncode == 1
    assert done.stderr == ""  # no retry noise
    error, summary = done.stdout.strip().splitlines()
    assert error.startswith("error: hf:nobody/no-such-cobe: -: -: the Hub cannot be reached (")
    assert "not in the local cache" in error and summary.startswith("1 error")


def test_eval_offline_is_one_line_before_any_call(tmp_path):
    port = closed_port()
    args = ["eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", "hf:nobody/no-such-cobe"]
    done = cobe(tmp_path, *args, HF_ENDPOINT=f"http://127.0.0.1:{port}")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: hf:nobody/no-such-cobe: the Hub cannot be reached (no connection to 127.0.0.1")
