"""Under --json every exit prints exactly one JSON object on stdout: its state, exit code and message.

Issue 30, item 10: only exits 0 and 5 printed JSON; a bad flag, missing data, a model's 404, `--show nope`,
a refused comparison (2), no Ray cluster (3), --max-cost (4), a refused key (6), a busy run directory (7)
and Ctrl-C (130) printed nothing on stdout, and exit 5 printed the table with no exit code in it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from reliability_helpers import SPEC, cobe_at, eval_args

from cobe.core.errors import INTERRUPTED
from support.cli import CliResult, run_cobe

MOCK = ["--model", "mock/echo", "--judge", "mock/judge-pass"]


def ended(result: CliResult, code: int, state: str, *words: str) -> dict:
    """The one JSON object on stdout, with the exit code, state and message expected; stderr keeps its line."""
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    obj = json.loads(result.stdout)  # exactly one document: a second one would not parse
    assert isinstance(obj, dict) and obj["exit_code"] == code and obj["state"] == state, obj
    for word in words:
        assert word in (obj["message"] or ""), obj
    return obj


def test_exit_0_holds_the_table_state_and_code(data_file, tmp_path):
    result = run_cobe("eval", *MOCK, "--data", str(data_file), "--run-dir", str(tmp_path / "r"), "--json")
    obj = ended(result, 0, "complete")
    assert obj["message"] is None and obj["models"][0]["model"] == "mock/echo"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["eval", *MOCK, "--limit", "nope"], ["--limit"]),  # click refuses the value
        (["eval", *MOCK, "--no-such-flag"], ["--no-such-flag"]),  # click stops parsing at it
        (["eval", *MOCK, "--data", "missing.jsonl"], ["missing.jsonl"]),
        (["runs", "--json", "--verdict-sets", "nope"], ["nope"]),
    ],
    ids=["bad value", "unknown flag", "missing data", "runs of no run"],
)
def test_exit_2_for_bad_input(tmp_path, args, words):
    result = run_cobe(*args, *([] if "--json" in args else ["--json"]), cwd=tmp_path)
    ended(result, 2, "error", *words)


def test_exit_2_for_a_usage_error_given_by_the_variable(tmp_path):
    result = run_cobe("eval", *MOCK, "--limit", "nope", cwd=tmp_path, env={"COBE_EVAL_AS_JSON": "1"})
    ended(result, 2, "error", "--limit")


def test_no_json_object_without_json(tmp_path):
    assert run_cobe("eval", *MOCK, "--limit", "nope", cwd=tmp_path).stdout == ""


def test_exit_2_for_a_model_404_a_verdict_set_it_lacks_and_a_refused_comparison(fake, data_file, tmp_path):
    fake.control(unknown_models=["fake-model"])
    args = eval_args(data_file, tmp_path / "404", "--json", "--concurrency", "1")
    ended(cobe_at(fake, *args), 2, "incomplete", "fake-model")
    fake.control(reset=True)

    a, b = tmp_path / "a", tmp_path / "b"
    for run_dir, judge in ((a, "mock/judge-pass"), (b, "mock/judge-fail")):
        done = run_cobe(
            "eval", "--model", "mock/echo", "--judge", judge, "--data", str(data_file), "--run-dir", str(run_dir)
        )
        assert done.returncode == 0, done.stderr
    ended(run_cobe("judge", str(a), "--show", "nope", "--json"), 2, "error", "nope")
    ended(run_cobe("compare", str(a), str(b), "--json"), 2, "error", "--across-judges")


def test_exit_3_for_no_ray_cluster(data_file, tmp_path):
    result = run_cobe("eval", *MOCK, "--data", str(data_file), "--executor", "ray:127.0.0.1:9", "--json", cwd=tmp_path)
    ended(result, 3, "error", "no Ray cluster")


def test_exit_4_for_the_budget(fake, data_file, tmp_path):
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  fake-model: {input: 1000, output: 1000}\n")
    run_dir = tmp_path / "run"
    args = eval_args(data_file, run_dir, "--max-cost", "0.5", "--prices", str(prices), "--json")
    obj = ended(cobe_at(fake, *args), 4, "stopped-budget", "max-cost")
    assert obj["run_dir"] == str(run_dir)


def test_exit_5_is_the_table_with_its_code(fake, data_file, tmp_path):
    fake.control(fail_status=500)
    result = cobe_at(fake, *eval_args(data_file, tmp_path / "run", "--max-retries", "0", "--json"))
    obj = ended(result, 5, "incomplete", "9 of 9 items unfinished")
    assert obj["unfinished"] == 9 and obj["models"]


def test_exit_6_for_a_refused_key(fake, data_file, tmp_path):
    fake.control(fail_status=401)
    result = cobe_at(fake, *eval_args(data_file, tmp_path / "run", "--concurrency", "1", "--json"))
    ended(result, 6, "stopped-auth", "FAKE_API_KEY", SPEC)


HOLD = "import sys; from cobe.core.lock import directory_lock\nwith directory_lock(sys.argv[1], 'eval'):\n    print('held', flush=True); sys.stdin.read()"


def test_exit_7_for_a_busy_run_dir(data_file, tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run_dir)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        result = run_cobe("eval", *MOCK, "--data", str(data_file), "--run-dir", str(run_dir), "--json")
    finally:
        holder.communicate("")
    ended(result, 7, "error", "in use by")


def test_exit_130_for_ctrl_c(data_file, tmp_path, monkeypatch):
    import cobe.run.engine

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cobe.run.engine, "evaluate", interrupted)
    run_dir = tmp_path / "run"
    result = run_cobe("eval", *MOCK, "--data", str(data_file), "--run-dir", str(run_dir), "--json")
    ended(result, INTERRUPTED, "interrupted", "finished work is saved", str(run_dir))


def test_judges_check_ends_with_one_object_too(data_file):
    result = run_cobe("judges", "check", "--judge", "mock/judge-pass", "--data", str(data_file), "--n", "2", "--json")
    obj = ended(result, 0, "complete")
    assert obj["judge"] == "mock/judge-pass" and obj["checks"]


def test_the_interrupt_that_ends_at_once_prints_its_object(capfd):
    from cobe.cli import interrupt

    pid = os.fork()
    if pid == 0:
        interrupt.stop_now(interrupt.AGAIN, as_json=True)
    _, status = os.waitpid(pid, 0)
    out, err = capfd.readouterr()
    assert os.waitstatus_to_exitcode(status) == INTERRUPTED
    obj = json.loads(out)
    assert obj == {"state": "interrupted", "exit_code": INTERRUPTED, "message": interrupt.AGAIN}


# ---- issue 43, item 15: the environment, unknown commands, and the commands that printed an array -------------
def test_json_by_the_environment_ends_a_failure_with_its_object(tmp_path):
    for env in ({"COBE_JSON": "1"}, {"COBE_EVAL_JSON": "1"}, {"COBE_EVAL_AS_JSON": "true"}):
        result = run_cobe("eval", *MOCK, "--data", "missing.jsonl", cwd=tmp_path, env=env)
        ended(result, 2, "error", "missing.jsonl")


@pytest.mark.parametrize("args", [["nope", "--json"], ["--json"], ["data", "nope", "--json"]])
def test_an_unknown_command_or_option_under_json_prints_its_object(tmp_path, args):
    ended(run_cobe(*args, cwd=tmp_path), 2, "error")


def test_an_unknown_command_under_the_shared_variable_prints_its_object(tmp_path):
    ended(run_cobe("nope", cwd=tmp_path, env={"COBE_JSON": "yes"}), 2, "error", "nope")


def test_listings_print_one_object_holding_their_list(data_file, tmp_path):
    run_dir = tmp_path / "runs" / "r"
    assert run_cobe("eval", *MOCK, "--data", str(data_file), "--run-dir", str(run_dir), "--no-report").returncode == 0
    runs = ended(run_cobe("runs", str(tmp_path / "runs"), "--json"), 0, "complete")
    assert [entry["run_dir"] for entry in runs["runs"]] == [str(run_dir)]
    (tmp_path / "empty").mkdir()
    assert ended(run_cobe("runs", str(tmp_path / "empty"), "--json"), 0, "complete")["runs"] == []
    sets = ended(run_cobe("runs", str(run_dir), "--verdict-sets", "--json"), 0, "complete")
    assert [s["judge"] for s in sets["verdict_sets"]] == ["mock/judge-pass"]
    sources = ended(run_cobe("data", "sources", "--json"), 0, "complete")
    assert any(source["name"] == "builtin:starter" for source in sources["sources"])
    assert run_cobe("curate", "init", str(tmp_path / "project")).returncode == 0
    items = ended(run_cobe("curate", "list", str(tmp_path / "project"), "--json"), 0, "complete")
    assert items["items"] == []


@pytest.mark.parametrize(
    "args",
    [
        ["plan", "--pass-rate", "0.5"],
        ["data", "stats", "builtin:starter"],
        ["data", "validate", "builtin:starter"],
        ["prompts", "show", "--id", "1v1", "--template", "A"],
    ],
)
def test_a_command_that_finished_says_so_in_its_object(args):
    ended(run_cobe(*args, "--json"), 0, "complete")
