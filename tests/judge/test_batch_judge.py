"""--judge-batch: judge calls answered through the OpenAI Batch API of the local fake server."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cobe.cli.main import main
from cobe.run import EvalConfig, evaluate, generate, judge_run
from cobe.store.store import STORE_NAME
from support.cli import run_cobe

SPEC = "openai-api/fake/fake-model"


@pytest.fixture
def fake(openai_server, monkeypatch):
    """The fake server answering judge prompts T or F by a hash of the request (order-free)."""
    monkeypatch.setenv("FAKE_BASE_URL", openai_server.base_url)
    openai_server.control(verdict="hash", batch_polls=2)
    return openai_server


def config(data: Path, run_dir: Path, batch: bool, **extra) -> EvalConfig:
    return EvalConfig(
        data=str(data), models=[SPEC], judge=SPEC, run_dir=run_dir, judge_batch=batch, batch_poll=0.01, **extra
    )


def results(run_dir: Path) -> list[tuple]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return sorted(
        (
            r["scenario_id"],
            r["template"],
            r["status"],
            json.dumps(r["verdicts"], sort_keys=True),
            json.dumps(r.get("p_true"), sort_keys=True),
        )
        for r in rows
    )


def test_batch_gives_the_normal_verdicts_without_judge_chat_calls(fake, data_file, tmp_path):
    normal = evaluate(config(data_file, tmp_path / "normal", False))
    before = fake.stats()
    assert before["judge_requests"] == 36 and before["batches"] == 0
    batch = evaluate(config(data_file, tmp_path / "batch", True))
    after = fake.stats()
    assert after["judge_requests"] == 36, "no judge call went through chat.completions"
    assert after["batches"] == 1 and after["files"] == 1 and after["batch_lines"] == 36
    # the respondent calls, and the new run's preflight: one call with the respondent's settings, one with the judge's
    assert after["requests"] - before["requests"] == 12 + 2
    assert batch.state == "complete"
    assert results(batch.run_dir) == results(normal.run_dir)
    assert {r[2] for r in results(batch.run_dir)} == {"passed", "failed"}  # the hash gives both verdicts
    assert batch.stats["judge"]["calls_made"] == 0 and batch.stats["judge"]["calls_cached"] == 36
    assert batch.stats["judge-batch"]["calls_made"] == 36
    db = sqlite3.connect(batch.run_dir / STORE_NAME)
    assert db.execute("SELECT state, request_count FROM batches").fetchall() == [("completed", 36)]
    assert db.execute("SELECT count(*) FROM batch_calls").fetchone()[0] == 36

    again = evaluate(config(data_file, tmp_path / "batch", True))
    assert fake.stats() == after, "a finished batch run makes no call of any kind when repeated"
    assert again.stats["respondent"]["calls_made"] == 0 and again.stats["judge"]["calls_made"] == 0
    assert again.stats["judge-batch"]["calls_made"] == 0


def test_judging_pairs_goes_through_one_batch_too(fake, tmp_path):
    """judge_responses builds its judge like a run does, so --judge-batch's path serves it as well."""
    from cobe.dataset.schema import Scenario
    from cobe.judge.pairs import judge_responses
    from support.run_data import scenario

    pairs = [(Scenario.model_validate(scenario(i)), f"Rewrite {i}.") for i in range(1, 4)]
    normal = judge_responses(pairs, SPEC, store_path=tmp_path / "normal.sqlite")
    before = fake.stats()
    batched = judge_responses(pairs, SPEC, store_path=tmp_path / "batch.sqlite", batch_poll_s=0.01)
    after = fake.stats()
    assert [i.verdicts for i in batched] == [i.verdicts for i in normal]
    assert {v for i in normal for v in i.verdicts.values()} == {"T", "F"}  # the hash gives both verdicts
    assert after["judge_requests"] == before["judge_requests"], "no judge call went through chat.completions"
    assert after["batches"] - before["batches"] == 1 and after["batch_lines"] - before["batch_lines"] == 9
    assert batched.totals["calls"]["calls_made"] == 0 and batched.totals["calls"]["calls_cached"] == 9


def test_batch_costs_half_of_the_normal_judge_cost(fake, data_file, tmp_path):
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  fake-model: {input: 3.0, output: 15.0}\n")
    normal = evaluate(config(data_file, tmp_path / "normal", False, prices=prices))
    batch = evaluate(config(data_file, tmp_path / "batch", True, prices=prices))
    usage = [json.loads((s.run_dir / "summary.json").read_text())["models"][SPEC]["usage"] for s in (normal, batch)]
    assert usage[0]["judge"]["input_tokens"] == usage[1]["judge"]["input_tokens"] > 0
    assert usage[1]["judge"]["cost_usd"] == pytest.approx(usage[0]["judge"]["cost_usd"] / 2)
    assert usage[1]["respondent"]["cost_usd"] == pytest.approx(usage[0]["respondent"]["cost_usd"])
    assert batch.stats["judge-batch"]["cost_usd"] == pytest.approx(usage[0]["judge"]["cost_usd"] / 2)


def test_failed_batch_falls_back_to_the_normal_path(fake, data_file, tmp_path):
    run_dir = tmp_path / "run"
    generate(config(data_file, run_dir, False))
    fake.control(verdict="hash", batch_status="failed")
    s = judge_run(run_dir, SPEC, judge_batch=True, batch_poll=0.01)
    assert s.state == "complete" and fake.stats()["judge_requests"] == 36
    assert any("ended failed" in n for n in s.notices)
    db = sqlite3.connect(run_dir / STORE_NAME)
    assert db.execute("SELECT state FROM batches").fetchall() == [("failed",)]
    assert len(results(run_dir)) == 12


def test_non_openai_judge_with_judge_batch_is_one_line_error(data_file, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data_file), "--judge-batch"])
    err = capsys.readouterr().err.strip()
    assert exit_.value.code != 0
    assert len(err.splitlines()) == 1 and err.startswith("error: --judge-batch") and "mock/judge-pass" in err
    assert not Path("runs").exists(), "nothing ran before the error"


def test_sigkill_while_waiting_then_rerun_resumes_the_same_batch(tmp_path, openai_server):
    from support.run_data import write_dataset

    data = write_dataset(tmp_path / "data.jsonl", 4)
    run_dir = tmp_path / "run"
    server = openai_server
    server.control(verdict="hash", batch_polls=10**6)  # the batch stays in progress until released
    args = [
        "eval",
        *("--model", SPEC, "--judge", SPEC, "--data", str(data), "--run-dir", str(run_dir)),
        *("--judge-batch", "--batch-poll", "0.05", "--no-preflight"),
    ]
    env = os.environ | {"FAKE_BASE_URL": server.base_url}
    proc = subprocess.Popen([sys.executable, "-c", "from cobe.cli.main import main; main()", *args], env=env)
    try:
        # each poll's status is stored before the next poll: at the second, the store says in_progress
        server.wait_for(lambda s: s.batch_polls >= 2)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    db = sqlite3.connect(run_dir / STORE_NAME)
    assert db.execute("SELECT state, request_count FROM batches").fetchall() == [("in_progress", 36)]
    assert db.execute("SELECT count(*) FROM calls WHERE role = 'judge'").fetchone()[0] == 0
    db.close()

    server.control(verdict="hash", batch_polls=0)
    done = run_cobe(*args, env={"FAKE_BASE_URL": server.base_url})
    assert done.returncode == 0, done.stderr
    assert "complete" in done.stdout and "judge batch batch_" in done.stderr  # the plain poll line
    stats = server.stats()
    assert stats["batches"] == 1 and stats["files"] == 1, "the re-run resumed the batch instead of submitting again"
    assert stats["judge_requests"] == 0 and stats["requests"] == 12
    db = sqlite3.connect(run_dir / STORE_NAME)
    assert db.execute("SELECT state FROM batches").fetchall() == [("completed",)]
    assert db.execute("SELECT count(*) FROM verdicts WHERE error IS NULL").fetchone()[0] == 36
    assert db.execute("SELECT state FROM runs").fetchone()[0] == "complete"
    db.close()


def test_an_unknown_open_batch_is_a_one_line_error(fake, data_file, tmp_path):
    from cobe.core.errors import ProviderUnavailable
    from cobe.store.store import Store, now

    run_dir = tmp_path / "run"
    generate(config(data_file, run_dir, False))
    store = Store(run_dir / STORE_NAME)
    store.put_batch(
        {
            "id": "batch_gone",
            "spec": SPEC,
            "state": "in_progress",
            "created": now(),
            "request_count": 1,
            "input_file_id": "file-gone",
        },
        [("k", "{}")],
    )
    store.close()
    with pytest.raises(ProviderUnavailable, match="run the same command again to resume") as exc:
        judge_run(run_dir, SPEC, judge_batch=True, batch_poll=0.01)
    assert "\n" not in str(exc.value) and fake.stats()["batches"] == 0


def test_killed_between_creating_a_batch_and_noting_its_id_pays_once(fake, data_file, tmp_path, monkeypatch):
    from cobe.store.store import Store

    real_adopt = Store.adopt_batch

    def killed(self, pending_id, batch_id, state):
        raise KeyboardInterrupt  # the process dies right after the provider created the batch

    monkeypatch.setattr(Store, "adopt_batch", killed)
    with pytest.raises(KeyboardInterrupt):
        evaluate(config(data_file, tmp_path / "run", True))
    assert fake.stats()["batches"] == 1
    monkeypatch.setattr(Store, "adopt_batch", real_adopt)
    done = evaluate(config(data_file, tmp_path / "run", True))
    assert done.state == "complete"
    stats = fake.stats()
    assert stats["batches"] == 1 and stats["files"] == 1, "the batch was found again, not submitted twice"
    assert stats["judge_requests"] == 0 and stats["batch_lines"] == 36


def test_a_submission_the_provider_never_received_is_sent_again(fake, data_file, tmp_path, monkeypatch):
    import openai

    real_create = openai.resources.batches.AsyncBatches.create

    async def lost(self, **kwargs):
        raise KeyboardInterrupt  # killed after the upload, before the batch was created

    monkeypatch.setattr(openai.resources.batches.AsyncBatches, "create", lost)
    with pytest.raises(KeyboardInterrupt):
        evaluate(config(data_file, tmp_path / "run", True))
    monkeypatch.setattr(openai.resources.batches.AsyncBatches, "create", real_create)
    assert evaluate(config(data_file, tmp_path / "run", True)).state == "complete"
    stats = fake.stats()
    assert stats["batches"] == 1 and stats["batch_lines"] == 36 and stats["judge_requests"] == 0


def test_a_panel_with_samples_sends_one_batch_per_judge(fake, data_file, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE2_BASE_URL", fake.base_url)
    panel = [SPEC, "openai-api/fake2/fake-model"]
    normal = evaluate(
        config(data_file, tmp_path / "normal", False).model_copy(update={"judge": panel, "judge_samples": 2})
    )
    before = fake.stats()
    batch = evaluate(
        config(data_file, tmp_path / "batch", True).model_copy(update={"judge": panel, "judge_samples": 2})
    )
    after = fake.stats()
    assert after["judge_requests"] == before["judge_requests"], "no judge call went through chat.completions"
    assert after["batches"] - before["batches"] == 2 and after["batch_lines"] - before["batch_lines"] == 144
    assert batch.stats["judge-batch"]["calls_made"] == 144 and batch.stats["judge"]["calls_made"] == 0
    assert results(batch.run_dir) == results(normal.run_dir)


def test_a_connection_error_stops_the_batch_incomplete_exit_5_and_the_same_command_resumes(fake, data_file, tmp_path):
    import socket

    run_dir = tmp_path / "run"
    generate(config(data_file, run_dir, False))
    with socket.socket() as probe:  # a loopback port nothing listens on: the connection is refused
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    args = ["judge", str(run_dir), "--judge", SPEC, "--judge-batch", "--batch-poll", "0.01", "--no-preflight"]
    down = run_cobe(*args, env={"FAKE_BASE_URL": closed})
    assert down.returncode == 5, down.stderr
    line = down.stderr.strip().splitlines()[-1]
    assert line.startswith("error: judge batch on") and "run the same command again to resume" in line
    assert "package" not in down.stderr
    db = sqlite3.connect(run_dir / STORE_NAME)
    assert db.execute("SELECT state FROM runs").fetchone()[0] == "incomplete"
    db.close()
    up = run_cobe(*args, env={"FAKE_BASE_URL": fake.base_url})
    assert up.returncode == 0, up.stderr
    assert fake.stats()["batches"] == 1
    db = sqlite3.connect(run_dir / STORE_NAME)
    assert db.execute("SELECT state FROM runs").fetchone()[0] == "complete"
    db.close()
