"""The Ray executor on a private two-CPU Ray instance (one per module): the same answers as the local
executor, waves per stage, a stand-in vLLM stage, and a worker killed mid-run costing only its batch."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
from pathlib import Path

import pytest

from cobe.models import registry
from cobe.models.base import GenerateConfig, Message
from cobe.models.vllm_ray import VLLMOnCluster, postprocess, preprocess
from cobe.models.wire import ID, request_row
from cobe.run.config import EvalConfig
from cobe.run.engine import evaluate
from cobe.store.store import STORE_NAME
from run.test_pipeline import GOLDEN, golden_exports
from support.ray_local import ray_local  # noqa: F401  (the module's Ray instance)
from support.run_data import write_dataset

pytestmark = pytest.mark.usefixtures("ray_local")
SPEC = "openai-api/fake/fake-model"


def test_exports_through_ray_are_the_golden_files_byte_for_byte(tmp_path):
    """generate, eval (re-asks, unscored, cut-off replies, two respondents) and a re-judge on Ray write what the
    local executor wrote: responses, verdicts, summary.json with its call counts, report.md."""
    got = golden_exports(tmp_path, executor="ray")
    assert len(got) == 9
    for key, text in got.items():
        assert text == (GOLDEN / key).read_text(encoding="utf-8"), key


def test_eval_runs_in_waves_and_resumes_with_no_call(tmp_path, data_file, monkeypatch):
    """generate, judge and re-ask each leave as one wave whatever the number of items; a repeat calls nothing."""
    from cobe.calls import ray_waves

    waves: list[list[int]] = []
    carry = ray_waves.WaveScheduler.carry

    async def watched(self, work):  # the scheduler of each command, seen once it has carried the command
        try:
            return await carry(self, work)
        finally:
            waves.append(list(self.waves))

    monkeypatch.setattr(ray_waves.WaveScheduler, "carry", watched)
    script = tmp_path / "judge.json"  # an unparseable answer to every connectors check: one re-ask each
    script.write_text(json.dumps({"causal connector": "maybe", "default": "T"}), encoding="utf-8")
    config = EvalConfig(
        data=str(data_file), models=["mock/echo"], judge=f"mock/file:{script}", run_dir=tmp_path / "run", executor="ray"
    )
    first = evaluate(config)
    # every item finished, but every row's connectors check stayed unscored: nothing measured, not complete
    assert first.state == "unmeasured" and first.stats["respondent"]["calls_made"] == 12
    assert waves[0] == [12, 36, 12]  # respondents, then every check, then the connectors re-asks
    again = evaluate(config)
    assert again.stats["respondent"]["calls_made"] == again.stats["judge"]["calls_made"] == 0
    assert waves[1] == []


def fake_stage(spec, model, pool):
    """The pipeline `cobe.models.vllm_ray.llm_stage` builds, with the engine replaced: preprocess, a stand-in
    engine answering in the shape ray.data.llm's vLLM stage returns, postprocess."""
    import ray

    class FakeEngine:  # defined here: the workers unpickle it by value (the test module is not importable there)
        def __call__(self, batch):
            out = {"generated_text": [], "num_generated_tokens": [], "num_input_tokens": [], "time_taken_llm": []}
            for messages, params in zip(batch["messages"], batch["sampling_params"]):
                words = str(messages[-1]["content"]).split()[: int(params["max_tokens"])]
                out["generated_text"].append(" ".join(words))
                out["num_generated_tokens"].append(len(words))
                out["num_input_tokens"].append(sum(len(str(m["content"]).split()) for m in messages))
                out["time_taken_llm"].append(0.5)
            return {**batch, **out, "__inference_error__": [""] * len(out["generated_text"])}

    def apply(dataset):
        return (
            dataset.map(preprocess)
            .map_batches(FakeEngine, compute=ray.data.ActorPoolStrategy(size=pool.replicas), batch_size=pool.batch_size)
            .map(postprocess)
        )

    return apply


def test_a_vllm_model_runs_through_its_own_stage_with_a_stand_in_engine(tmp_path, data_file, monkeypatch):
    """The driver holds no engine (no GPU here); the rows reach the stage and its answers the store, a reply
    that used its whole token limit recorded as cut off."""
    monkeypatch.setitem(
        registry._PROVIDERS,
        "fakevllm",
        registry.Registration(
            lambda s, m: pytest.fail("the driver built an engine"), None, True, VLLMOnCluster, fake_stage
        ),
    )
    monkeypatch.setenv("COBE_RAY_GPUS", "0.01")  # the stand-in needs no GPU; the pool asks for a sliver of one
    summary = evaluate(
        EvalConfig(
            data=str(data_file),
            models=["fakevllm/tiny"],
            judge="mock/judge-pass",
            max_tokens=8,
            run_dir=tmp_path / "run",
            executor="ray",
        )
    )
    assert summary.items == 12
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert all(r["unjudged"] == "truncated" and len(r["response"].split()) == 8 for r in rows)


def test_processor_rows_carry_the_call_settings():
    """preprocess hands ray.data.llm OpenAI-style messages and per-row sampling parameters; postprocess maps an
    engine row (and an engine error) back to an answer row."""
    row = request_row(7, [Message(role="user", content="hi there")], GenerateConfig(temperature=0.0, max_tokens=5))
    ready = preprocess(row)
    assert ready[ID] == 7 and ready["messages"] == [{"role": "user", "content": "hi there"}]
    assert ready["sampling_params"] == {"max_tokens": 5, "temperature": 0.0}
    done = postprocess(
        {**ready, "generated_text": "ok", "num_generated_tokens": 1, "num_input_tokens": 2, "time_taken_llm": 0.1}
    )
    assert (done["text"], done["finish_reason"], done["output_tokens"], done["error"]) == ("ok", "stop", 1, "")
    failed = postprocess({**ready, "__inference_error__": "CUDA out of memory"})
    assert failed["error"] == "vLLM engine: CUDA out of memory"


def test_an_engine_error_is_scrubbed_whole_then_cut(monkeypatch):
    """A token near the 300th character of an engine's error leaves no part of itself (issue 43, item 5)."""
    token = "hf_Zq8rT5vW2xY7nB4mK9pL3sD6fG1hJ0aC"
    monkeypatch.setenv("HF_TOKEN", token)
    ready = preprocess(request_row(7, [Message(role="user", content="hi")], GenerateConfig(max_tokens=5)))
    failed = postprocess({**ready, "__inference_error__": "x" * 280 + f" token {token} refused"})
    assert token[:8] not in failed["error"] and len(failed["error"]) <= len("vLLM engine: ") + 300


def _worker_pids() -> list[int]:
    """The processes of this module's Ray instance that hold a CallWorker actor (descendants of this process:
    another user's Ray on the machine is never touched)."""
    import psutil

    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "CallWorker" in " ".join(child.cmdline()):
                found.append(child.pid)
        except psutil.Error:
            continue
    return found


def test_a_worker_killed_mid_run_costs_only_its_batch(tmp_path, openai_server, monkeypatch):
    """SIGKILL one actor while it answers: Ray restarts it and retries its batch, the store takes each call once,
    and the requests beyond the run's calls are at most that batch."""
    batch = 4
    monkeypatch.setenv("COBE_RAY_BATCH", str(batch))
    monkeypatch.setenv("FAKE_BASE_URL", openai_server.base_url)
    openai_server.control(delay_s=0.05)
    data = write_dataset(tmp_path / "data.jsonl", 8)
    # no preflight: its probes would be calls beside the 24 × 4 counted here
    config = EvalConfig(
        data=str(data), models=[SPEC], judge=SPEC, run_dir=tmp_path / "run", executor="ray", preflight=False
    )
    killed: list[int] = []

    def kill_one() -> None:
        openai_server.wait_for(lambda s: s.requests >= 6, timeout=600)
        pids = _worker_pids()
        os.kill(pids[0], signal.SIGKILL)
        killed.append(pids[0])

    killer = threading.Thread(target=kill_one)
    killer.start()
    summary = evaluate(config)
    killer.join()
    assert killed and summary.state == "complete" and summary.unfinished == 0
    db = sqlite3.connect(Path(summary.run_dir) / STORE_NAME)
    calls = db.execute("SELECT count(*) FROM calls").fetchone()[0]
    assert calls == 24 * 4 and db.execute("SELECT count(*) FROM responses").fetchone()[0] == 24
    db.close()
    assert 0 <= openai_server.stats()["requests"] - calls <= batch


class Recorder:
    """A Progress that keeps what the engine reports."""

    def __init__(self) -> None:
        self.started: list[tuple[str, int, int]] = []
        self.advanced: list[tuple[str, bool]] = []

    def start(self, stage: str, total: int, done: int) -> None:
        self.started.append((stage, total, done))

    def advance(self, stage: str, error: bool = False) -> None:
        self.advanced.append((stage, error))


def test_progress_is_reported_as_the_local_executor_reports_it(tmp_path, data_file):
    """The same stages, totals and advances (in another order, as answers arrive), and the same end-of-run table."""
    from cobe.report.run_table import run_table

    seen = {}
    for executor in ("local", "ray"):
        recorder = Recorder()
        config = EvalConfig(
            data=str(data_file),
            models=["mock/echo"],
            judge="mock/judge-fail",
            run_dir=tmp_path / executor,
            executor=executor,
        )
        summary = evaluate(config, recorder)
        table = run_table(summary).as_dict()
        ended = {k: v for k, v in table.items() if k not in ("run_dir", "wall_s")}
        seen[executor] = (recorder.started, sorted(recorder.advanced), ended)
    assert seen["ray"] == seen["local"]
    assert seen["ray"][0] == [("generate", 12, 0), ("judge", 12, 0)] and len(seen["ray"][1]) == 24
