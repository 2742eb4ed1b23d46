"""The embedded model as respondent and judge, end to end (slow: real llama.cpp inference)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow


def test_embedded_model_end_to_end(tmp_path):
    try:
        import llama_cpp  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"llama-cpp-python is not installed ({exc}); pip install 'cobe[local]'")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COBE_")}
    cmd = [sys.executable, "-c", "from cobe.cli.main import main; main()", "eval", "--limit", "2", "--templates", "A"]
    r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stderr
    assert "local/gemma-3-270m" in r.stderr and "smoke" in r.stderr
    run_dir = tmp_path / "runs" / "local_gemma-3-270m__starter__tpl-A__limit-2"
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(r["response"] is not None and r["status"] != "pending" for r in rows)
    assert all(set(r["judge_raw"]) == {"connectors", "preserve", "change"} for r in rows)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["command"]["calls"]["respondent"]["calls_made"] == 2
    assert "smoke" in (run_dir / "report.md").read_text()
    again = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert "respondent 0 calls" in again.stdout and "judge 0 calls" in again.stdout
