"""`Retry-After: 3600` no longer stalls a run: past --max-retry-wait the call is recorded as rate-limited.

The command runs in its own process so that, were the cap ignored, the test could end it: the
timeout below bounds a failure, it is not waited on. The run ends incomplete (exit 5) with each
call tried once, and the same command later finishes it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from reliability_helpers import cobe_at, eval_args, provider_env

from cobe.core.errors import RunIncomplete

# every behaviour here holds on both HTTP transports (support.http_transport)
pytestmark = pytest.mark.usefixtures("http_transport")


CODE = "from cobe.cli.main import main; main()"


@pytest.mark.parametrize("how", ["flag", "env"])
def test_a_long_retry_after_is_given_up_and_redone_on_resume(fake, data_file, tmp_path, how):
    fake.control(rate_limit=10_000, retry_after="3600")
    run_dir = tmp_path / "run"
    args = eval_args(data_file, run_dir, "--max-retries", "5", "--concurrency", "3")
    env = os.environ | provider_env(fake)
    if how == "flag":
        args += ["--max-retry-wait", "2"]
    else:
        env["COBE_MAX_RETRY_WAIT"] = "2"
    proc = subprocess.run([sys.executable, "-c", CODE, *args], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == RunIncomplete.exit_code, proc.stderr
    assert "Traceback" not in proc.stderr and "9 of 9 items unfinished" in proc.stderr
    stats = fake.stats()
    assert stats["requests"] == stats["rate_limited"] == 9  # each respondent call asked once, never retried
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert {r["status"] for r in rows} == {"error"}
    assert all(
        r["response_error"].startswith("rate-limited: the server asked to wait 3600 s, more than --max-retry-wait 2 s")
        for r in rows
    )

    fake.control(reset=True)
    done = cobe_at(fake, *eval_args(data_file, run_dir))
    assert done.returncode == 0, done.stderr
    assert fake.stats()["requests"] == 9 + 27


def test_a_retry_after_within_the_cap_is_still_waited(fake, data_file, tmp_path):
    fake.control(rate_limit=1, retry_after="0.2")
    result = cobe_at(fake, *eval_args(data_file, tmp_path / "run", "--max-retry-wait", "5"))
    assert result.returncode == 0, result.stderr
    assert fake.stats()["rate_limited"] == 1 and fake.stats()["requests"] == 9 + 27 + 1


def test_max_retry_wait_must_be_a_finite_number(data_file):
    from support.cli import assert_one_line_error, run_cobe

    for bad in ("nan", "inf", "-1"):
        result = run_cobe(*eval_args(data_file, "run", "--max-retry-wait", bad))
        assert result.returncode == 2
        assert_one_line_error(result, "--max-retry-wait")
