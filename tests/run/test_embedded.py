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
    cmd += ["--judge-check", "2"]
    r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stderr
    assert "local/gemma-3-270m" in r.stderr and "smoke" in r.stderr
    # the main job ends with the embedded judge's measured self-test, not only a notice
    out = r.stdout.strip().splitlines()
    start = next(i for i, line in enumerate(out) if line.startswith("Judge self-test of local/gemma-3-270m"))
    assert start == 1 and "on 2 scenarios" in out[start]  # the summary line, then the self-test to the end
    assert out[-1].startswith("Judge self-test verdict: ") and "judge calls: 10 made" in r.stdout
    assert any(line.startswith("  unchanged story → change F: ") for line in out[start:])
    run_dir = tmp_path / "runs" / "local_gemma-3-270m__starter__tpl-A__limit-2"
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(r["response"] is not None and r["status"] != "pending" for r in rows)
    assert all(r["prompt"].endswith("Rewritten story:") for r in rows)  # the base model's completion format
    assert all(set(r["judge_raw"]) == {"connectors", "preserve", "change"} for r in rows)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["command"]["calls"]["respondent"]["calls_made"] == 2
    assert summary["judge_check"]["judge"] == "local/gemma-3-270m" and summary["judge_check"]["verdict"]
    assert "smoke" in (run_dir / "report.md").read_text()
    again = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert "respondent 0 calls" in again.stdout and "judge 0 calls" in again.stdout
