"""Exit codes: 0 only when every item finished; failed calls, a refused key and bad input each have their own.

Against the real local server: 500 on every call leaves the run `incomplete` (exit 5) and the
same command finishes it; 401/403 stops the stage after three refusals in a row (exit 6) with one
line naming the provider and the variable holding its key.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from reliability_helpers import SPEC, cobe_at, eval_args

from cobe.calls.caller import AUTH_STOP_AFTER
from cobe.core.errors import (
    EXIT_CODES,
    AuthenticationFailed,
    BudgetExceeded,
    InputError,
    ProviderUnavailable,
    RunDirBusy,
    RunIncomplete,
)
from support.cli import assert_one_line_error, run_cobe
from support.run_data import write_dataset
from support.store_reads import stored_state

README = Path(__file__).resolve().parents[2] / "README.md"


def test_one_table_of_exit_codes_shown_in_help_and_readme():
    codes = [code for code, _ in EXIT_CODES]
    assert codes[0] == 0 and len(set(codes)) == len(codes)
    errors = (InputError, ProviderUnavailable, BudgetExceeded, RunIncomplete, AuthenticationFailed, RunDirBusy)
    assert {e.exit_code for e in errors} <= set(codes) and len({e.exit_code for e in errors}) == len(errors)
    for args in (["--help"], ["eval", "--help"], ["generate", "--help"], ["judge", "--help"]):
        shown = run_cobe(*args).stdout
        for code, meaning in EXIT_CODES:
            assert f"{code:>3}  {meaning}" in shown, (args, code)
    readme = README.read_text(encoding="utf-8")
    for code, _ in EXIT_CODES:
        assert f"\n| {code} | " in readme, code


def test_failed_calls_exit_5_as_incomplete_and_the_same_command_finishes(fake, data_file, tmp_path):
    fake.control(fail_status=500)
    run_dir = tmp_path / "run"
    args = eval_args(data_file, run_dir, "--max-retries", "0", "--concurrency", "2")
    failed = cobe_at(fake, *args)
    assert failed.returncode == RunIncomplete.exit_code
    assert failed.stdout.splitlines()[0].rstrip().endswith(": incomplete (9 of 9 items unfinished)")
    assert_one_line_error(
        type(failed)(failed.returncode, "", failed.stderr), "9 of 9 items unfinished", "run the same command again"
    )
    assert stored_state(run_dir) == "incomplete"
    assert json.loads((run_dir / "summary.json").read_text())["state"] == "incomplete"
    (listed,) = json.loads(cobe_at(fake, "runs", str(tmp_path), "--json").stdout)["runs"]
    assert listed["state"] == "incomplete"

    fake.control(fail_status=0)
    done = cobe_at(fake, *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].rstrip() == f"{run_dir}: complete" and stored_state(run_dir) == "complete"


def test_a_partly_failed_run_is_incomplete_not_complete(fake, data_file, tmp_path):
    fake.control(server_error=2)  # the first two calls fail; with no retry their items stay unfinished
    run_dir = tmp_path / "run"
    result = cobe_at(fake, *eval_args(data_file, run_dir, "--max-retries", "0", "--concurrency", "1"))
    assert result.returncode == RunIncomplete.exit_code
    assert "incomplete (2 of 9 items unfinished)" in result.stdout
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["state"] == "incomplete" and summary["models"][SPEC]["errors"] == 2


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_stops_after_three_calls_naming_the_variable(fake, data_file, tmp_path, status):
    fake.control(fail_status=status)
    run_dir = tmp_path / "run"
    result = cobe_at(fake, *eval_args(data_file, run_dir, "--concurrency", "1", "--max-retries", "3"))
    assert result.returncode == AuthenticationFailed.exit_code
    assert_one_line_error(result, SPEC, "FAKE_API_KEY", f"{AUTH_STOP_AFTER} calls in a row", str(run_dir))
    stats = fake.stats()
    assert stats["requests"] == AUTH_STOP_AFTER  # not retried, and nothing sent after the third
    assert stored_state(run_dir) == "stopped-auth"
    assert json.loads((run_dir / "summary.json").read_text())["state"] == "stopped-auth"


def test_with_many_calls_in_flight_the_stop_still_sends_almost_nothing(fake, tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 12)  # 36 respondent calls
    fake.control(fail_status=401)
    run_dir = tmp_path / "run"
    result = cobe_at(fake, *eval_args(data, run_dir, "--concurrency", "4"))
    assert result.returncode == AuthenticationFailed.exit_code
    # at most the calls already in flight when the third refusal came back: 3 + (4 - 1)
    assert fake.stats()["requests"] <= AUTH_STOP_AFTER + 3


def test_the_judge_stage_stops_on_a_refused_key_and_resumes_without_regenerating(fake, data_file, tmp_path):
    fake.control(fail_status=401)
    run_dir = tmp_path / "run"
    args = eval_args(data_file, run_dir, "--concurrency", "1", model="mock/echo")
    result = cobe_at(fake, *args)
    assert result.returncode == AuthenticationFailed.exit_code and "FAKE_API_KEY" in result.stderr
    db = sqlite3.connect(run_dir / "cobe.sqlite")
    assert db.execute("SELECT count(*) FROM responses WHERE error IS NULL").fetchone()[0] >= 1
    db.close()
    fake.control(reset=True)
    again = cobe_at(fake, *args)
    assert again.returncode == 0, again.stderr
    assert fake.stats()["requests"] == 27  # only judge calls: 9 items × 3 checks, no respondent call


def test_budget_stop_exits_4(fake, tmp_path, data_file):
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  fake-model: {input: 1000, output: 1000}\n")  # $0.001 a token
    run_dir = tmp_path / "run"
    result = cobe_at(fake, *eval_args(data_file, run_dir, "--max-cost", "0.5", "--prices", str(prices)))
    assert result.returncode == BudgetExceeded.exit_code
    assert_one_line_error(result, "max-cost", str(run_dir))
    assert stored_state(run_dir) == "stopped-budget"


def test_bad_input_exits_2(tmp_path, data_file):
    args = ["eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data_file)]
    result = run_cobe(*args, "--temperature", "nan")
    assert result.returncode == InputError.exit_code
    assert_one_line_error(result, "--temperature")


def test_a_refused_key_on_the_batch_api_is_exit_6_too(fake, data_file, tmp_path):
    fake.control(fail_status=401, echo_key=True)
    run_dir = tmp_path / "run"
    result = cobe_at(fake, *eval_args(data_file, run_dir, "--judge-batch", "--batch-poll", "0.01", model="mock/echo"))
    assert result.returncode == AuthenticationFailed.exit_code
    assert_one_line_error(result, SPEC, "batch API", "FAKE_API_KEY", "[redacted]")
    assert stored_state(run_dir) == "stopped-auth"


def test_rejudging_a_run_with_failed_responses_says_which_command_redoes_them(fake, data_file, tmp_path):
    fake.control(server_error=1)  # one respondent call fails for good
    run_dir = tmp_path / "run"
    first = cobe_at(fake, *eval_args(data_file, run_dir, "--max-retries", "0", "--concurrency", "1"))
    assert first.returncode == RunIncomplete.exit_code
    again = cobe_at(fake, "judge", str(run_dir), "--judge", "mock/judge-fail", "--no-report")
    assert again.returncode == RunIncomplete.exit_code
    assert_one_line_error(again, "1 of 9 items unfinished", "`cobe eval`")


# ---- issue 23, item 16: the table and a store cobe cannot use agree -------------------------------
def _readme_code_for(words: str) -> int:
    """The exit code of the README table's row whose meaning mentions `words`."""
    rows = [line for line in README.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]
    (code,) = [int(line.split("|")[1]) for line in rows if words in line]
    return code


@pytest.mark.parametrize("kind", ["damaged", "newer"])
def test_a_damaged_or_newer_store_exits_with_the_code_the_table_gives_it(data_file, tmp_path, kind):
    run_dir = tmp_path / "run"
    args = ["eval", "--model", "mock/echo", "--judge", "mock/judge-pass", "--data", str(data_file)]
    assert run_cobe(*args, "--run-dir", str(run_dir)).returncode == 0
    store = run_dir / "cobe.sqlite"
    if kind == "damaged":
        store.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4080)
    else:
        db = sqlite3.connect(store)
        db.execute("INSERT INTO schema_migrations (version, name, applied) VALUES (9999, '9999_future', 'now')")
        db.commit()
        db.close()
    result = run_cobe(*args, "--run-dir", str(run_dir))
    assert_one_line_error(result, str(store))
    expected = _readme_code_for("damaged store" if kind == "damaged" else "newer cobe")
    assert result.returncode == expected == InputError.exit_code
    assert "store" not in dict(EXIT_CODES)[1]  # the other row no longer claims stores


# ---- issue 23, item 12: a baseline cannot judge; a self-test or diff whose calls failed is incomplete --------
@pytest.mark.parametrize(
    "judges", [["baseline/identity"], [SPEC, "baseline/illustrative"]], ids=["baseline", "panel with a baseline"]
)
def test_a_baseline_as_judge_is_refused_before_any_call(fake, data_file, tmp_path, judges):
    run_dir = tmp_path / "run"
    args = ["eval", "--model", SPEC, *(x for j in judges for x in ("--judge", j)), "--data", str(data_file)]
    result = cobe_at(fake, *args, "--run-dir", str(run_dir))
    assert result.returncode == InputError.exit_code
    assert_one_line_error(result, "baseline/", "cannot judge")
    assert fake.stats()["requests"] == 0 and not run_dir.exists()
    check = cobe_at(fake, "judges", "check", *(x for j in judges for x in ("--judge", j)), "--data", str(data_file))
    assert check.returncode == InputError.exit_code
    assert_one_line_error(check, "cannot judge")
    assert fake.stats()["requests"] == 0


def test_judges_diff_with_a_baseline_judge_is_refused(fake, data_file, tmp_path):
    run_dir = tmp_path / "run"
    assert cobe_at(fake, *eval_args(data_file, run_dir, model="mock/echo")).returncode == 0
    before = fake.stats()["requests"]
    diff = cobe_at(fake, "judges", "diff", str(run_dir), "--judge", "baseline/swapped")
    assert diff.returncode == InputError.exit_code
    assert_one_line_error(diff, "baseline/swapped", "cannot judge")
    assert fake.stats()["requests"] == before


@pytest.fixture
def quick_retries(monkeypatch):
    """Retries after milliseconds, not seconds: `judges check` and `diff` have no --max-retries to shorten them."""
    from cobe.calls.scheduler import Scheduler

    original = Scheduler.__init__

    def quick(self, **options):
        original(self, **({"backoff": 0.01, "backoff_max": 0.02} | options))

    monkeypatch.setattr(Scheduler, "__init__", quick)


def _starter_like(tmp_path: Path) -> Path:
    """Six scenarios of three core examples, each with an illustrative answer: enough for a self-test."""
    return write_dataset(tmp_path / "probe.jsonl", 6)


def test_judges_check_exits_5_when_every_judge_call_failed(fake, tmp_path, quick_retries):
    fake.control(fail_status=500)
    data = _starter_like(tmp_path)
    args = ["judges", "check", "--judge", SPEC, "--data", str(data), "--n", "3", "--run-dir", str(tmp_path / "c")]
    result = cobe_at(fake, *args)
    assert result.returncode == RunIncomplete.exit_code
    made = re.search(r"judge calls: (\d+) made, (\d+) failed", result.stdout)  # the table is still shown
    assert made is not None and made[1] == made[2] and int(made[1]) >= 5 * 2
    assert_one_line_error(
        type(result)(result.returncode, "", result.stderr), f"every one of {made[1]} judge calls failed", "run the same"
    )
    fake.control(fail_status=0)
    again = cobe_at(fake, *args)
    assert again.returncode == 0, again.stderr
    assert f"judge calls: {made[1]} made, " in again.stdout  # failed calls are asked again, not answered from the store


def test_judges_diff_exits_5_when_its_judge_calls_failed(fake, data_file, tmp_path, quick_retries):
    run_dir = tmp_path / "run"
    assert cobe_at(fake, *eval_args(data_file, run_dir, model="mock/echo")).returncode == 0
    fake.control(fail_status=500)
    args = ["judges", "diff", str(run_dir), "--judge", SPEC, "--prompts", "paper,contextual"]
    result = cobe_at(fake, *args)
    assert result.returncode == RunIncomplete.exit_code
    assert_one_line_error(type(result)(result.returncode, "", result.stderr), "judge calls failed")
    assert "Traceback" not in result.stderr
    fake.control(fail_status=0)
    assert cobe_at(fake, *args).returncode == 0
