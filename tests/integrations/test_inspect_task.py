"""The inspect task `cobe/cobe`: found through inspect's entry point, and agreeing with `cobe eval`.

Scripted outputs are the same on both sides: inspect's mockllm answers from the script that
`mock/file:` reads for `cobe eval`, and both judge with the same scripted cobe judge.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tomllib
from importlib.metadata import distribution
from pathlib import Path

import pytest
from integration_runs import JUDGE, MODEL_A, respondent_script

from cobe.core.errors import InputError
from cobe.report.load import read_results

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import EvalLog  # noqa: E402
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model  # noqa: E402

from cobe.integrations.inspect_task import SCORER_NAME, cobe  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def scripted(model: str) -> Model:
    """inspect's mock model answering from the same script `cobe eval` gives `model`."""
    script = respondent_script(model)

    def respond(messages, tools, tool_choice, config) -> ModelOutput:
        prompt = messages[-1].text
        text = next(answer for needle, answer in script.items() if needle in prompt)
        output = ModelOutput.from_content("mockllm/model", text)
        # usage given here keeps mockllm from counting tokens with tiktoken, whose tables it would download
        i, o = len(prompt.split()), len(text.split())
        output.usage = ModelUsage(input_tokens=i, output_tokens=o, total_tokens=i + o)
        return output

    return get_model("mockllm/model", custom_outputs=respond)


def metric(log: EvalLog, score: str, name: str) -> float:
    """A metric of the log's results, whatever package prefix inspect gave its name."""
    block = next(s for s in log.results.scores if s.name == score)
    return next(m.value for key, m in block.metrics.items() if key.split("/")[-1] == name)


@pytest.fixture(scope="module")
def task_log(workdir: Path) -> EvalLog:
    task = cobe(data="data.jsonl", judge=JUDGE, templates="A,B,C")
    [log] = inspect_eval(task, model=scripted(MODEL_A), log_dir=str(workdir / "inspect-logs"), display="none")
    assert log.status == "success", log.error
    return log


def test_the_same_scripted_outputs_get_the_same_verdicts_response_by_response(task_log, cobe_run):
    ours = {(r["scenario_id"], r["template"]): r for r in read_results(cobe_run) if r["model"] == MODEL_A}
    theirs = {(s.metadata["scenario_id"], s.metadata["template"]): s for s in task_log.samples}
    assert set(theirs) == set(ours) and len(ours) == 12
    for item, sample in theirs.items():
        score = sample.scores[SCORER_NAME]
        assert sample.output.completion == ours[item]["response"]
        assert score.metadata["verdicts"] == ours[item]["verdicts"], item
        assert score.metadata["status"] == ours[item]["status"], item
    statuses = {s.scores[SCORER_NAME].metadata["status"] for s in task_log.samples}
    assert statuses == {"passed", "failed", "unscored"}  # the comparison covered every outcome


def test_the_task_reports_the_accuracy_cobe_eval_reports(task_log, cobe_run):
    summary = json.loads((cobe_run / "summary.json").read_text(encoding="utf-8"))["models"][MODEL_A]
    assert metric(task_log, "passed", "cobe_accuracy") == pytest.approx(summary["accuracy"])
    assert metric(task_log, "passed", "phrasing_std") == pytest.approx(summary["std"])
    passed = next(s for s in task_log.results.scores if s.name == "passed")
    assert (passed.scored_samples, passed.unscored_samples) == (summary["scored"], summary["unscored"])
    failure = summary["check_failure_rates"]["change"]
    assert metric(task_log, "change", "mean") == pytest.approx(1 - failure["failure_rate"] / 100)


def test_an_unscored_verdict_is_left_out_never_a_fail(task_log):
    sample = next(s for s in task_log.samples if s.id == "1v0-C")
    score = sample.scores[SCORER_NAME]
    assert score.reason == "grader_failed" and math.isnan(score.value["passed"])


def test_samples_carry_the_metadata_reports_group_by(task_log):
    sample = next(s for s in task_log.samples if s.id == "3v0-B")
    assert {k: sample.metadata[k] for k in ("scenario_id", "template", "tier", "domain")} == {
        "scenario_id": "3v0",
        "template": "B",
        "tier": 1,
        "domain": "Daily life",
    }
    assert sample.metadata["scenario"]["change"] == ["Many visitors bought bread before noon."]


def test_the_task_needs_a_judge_it_knows(workdir):
    with pytest.raises(InputError, match="-T judge=SPEC"):
        cobe(data="data.jsonl")
    with pytest.raises(InputError, match="-T judge=nowhere/model: unknown provider"):
        cobe(data="data.jsonl", judge="nowhere/model")


def test_inspect_eval_finds_cobe_through_the_declared_entry_point(workdir, tmp_path, openai_server):
    # inspect finds the task through the installed distribution's entry point, which must be the declared one
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    installed = {ep.name: ep.value for ep in distribution("cobe").entry_points if ep.group == "inspect_ai"}
    assert installed == declared["inspect_ai"], "the installed cobe is older than pyproject.toml: run make install"
    env = {k: v for k, v in os.environ.items() if not k.startswith("COBE_")} | {
        "FAKE_BASE_URL": openai_server.base_url,
        "FAKE_API_KEY": "not-a-secret",
    }
    logs = tmp_path / "logs"
    command = [sys.executable, "-m", "inspect_ai", "eval", "cobe/cobe", "--model", "openai-api/fake/fake-model"]
    command += ["-T", "data=data.jsonl", "-T", f"judge={JUDGE}", "-T", "templates=A,B", "--log-dir", str(logs)]
    done = subprocess.run(
        [*command, "--display", "none"], cwd=workdir, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    from inspect_ai.log import read_eval_log

    [path] = logs.glob("*.eval")
    log = read_eval_log(str(path))
    assert (log.status, log.eval.task, len(log.samples)) == ("success", "cobe/cobe", 8)
    assert all(SCORER_NAME in s.scores for s in log.samples)
