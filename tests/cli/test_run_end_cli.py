"""How `cobe eval` ends (a table per model, the top reasons, retries, cost, time, the report; --json), and
choosing what it runs: --ids, --ids-file, --epochs, -v and -q."""

from __future__ import annotations

import json
import re
from pathlib import Path

from support.cli import CliResult, assert_one_line_error, run_cobe
from support.run_data import write_dataset

SPEC = "openai-api/fake/m"


def cobe(*args: str, cwd: Path, server=None) -> CliResult:
    env = {"FAKE_BASE_URL": server.base_url, "FAKE_API_KEY": None} if server is not None else None
    return run_cobe(*args, cwd=cwd, env=env)


def test_the_table_names_the_top_reasons_for_unscored_and_errored_rows(tmp_path, openai_server):
    data = write_dataset(tmp_path / "data.jsonl", 2)
    openai_server.control(server_error=2)  # two respondent calls fail, with no retry
    # no preflight: its probe would take one of the two failures
    args = ["eval", "-m", SPEC, "-j", "mock/fixed:perhaps", "--data", str(data), "--max-retries", "0", "--no-report"]
    args.append("--no-preflight")
    done = cobe(*args, "--run-dir", "r", cwd=tmp_path, server=openai_server)
    assert done.returncode == 5  # incomplete: the two failed responses are redone by the same command
    lines = done.stdout.splitlines()
    assert lines[0].rstrip() == "r: incomplete (2 of 6 items unfinished)"
    start = lines.index("Top reasons for unscored and errored rows:")
    reasons = [line.split(None, 2) for line in lines[start + 1 : start + 3]]
    assert reasons[0][:2] == ["4", "unscored"] and reasons[0][2].strip() == "no T/F verdict in: 'perhaps'"
    assert reasons[1][:2] == ["2", "error"] and reasons[1][2].startswith("InternalServerError")
    (row,) = [line for line in lines if line.strip().startswith(SPEC)]
    # accuracy – (nothing scored), passed 0, failed 0, unscored 4, errors 2, judge
    assert row.split()[1:8] == ["–", "–", "0", "0", "4", "2", "mock/fixed:perhaps"]
    assert "Calls: respondent 6 calls (0 from store, 2 failed); judge 24 calls" in done.stdout
    assert re.search(r"^Cost: \$0\.0000; wall time [0-9.]+ s$", done.stdout, re.M)

    again = cobe(*args, "--run-dir", "r", "--json", cwd=tmp_path, server=openai_server)
    table = json.loads(again.stdout)
    # every item finished, and not one row scored: unmeasured (exit 8), not complete
    assert again.returncode == 8 and table["state"] == "unmeasured" and table["unfinished"] == 0
    assert table["reasons"] == [
        {"status": "unscored", "reason": "no T/F verdict in: 'perhaps'", "count": 6, "others": 0}
    ]
    (model,) = table["models"]
    assert (model["model"], model["unscored"], model["errors"], model["accuracy"]) == (SPEC, 6, 0, None)
    assert table["judge"] == "mock/fixed:perhaps" and table["judge_prompts"] == "paper" and table["report"] is None
    assert table["judge_fingerprint"] == json.loads((tmp_path / "r" / "summary.json").read_text())["judge_fingerprint"]


def test_retries_and_rate_limit_waits_are_counted_and_shown_with_v(tmp_path, openai_server):
    data = write_dataset(tmp_path / "data.jsonl", 1)
    openai_server.control(rate_limit=2, retry_after="1")
    args = ["eval", "-m", SPEC, "-j", "mock/judge-pass", "--data", str(data), "--templates", "A", "--no-report"]
    done = cobe(*args, "-v", "--concurrency", "1", cwd=tmp_path, server=openai_server)
    assert done.returncode == 0, done.stderr
    retries = [line for line in done.stderr.splitlines() if line.startswith("progress: retry ")]
    assert len(retries) == 2 and all(
        "RateLimitError" in line and f"a call to {SPEC} in 1.0 s" in line for line in retries
    )
    assert "Retries: 2 (2 rate-limited answers; 2.0 s waited before retrying, summed over calls)" in done.stdout
    summary = json.loads((tmp_path / "runs" / "openai-api_fake_m__data__tpl-A" / "summary.json").read_text())
    calls = summary["command"]["calls"]
    assert (calls["retries"], calls["rate_limited"], calls["retry_wait_s"]) == (2, 2, 2.0)


def test_quiet_prints_only_the_table(tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 1)
    done = cobe("eval", "-m", "mock/echo", "-j", "mock/judge-pass", "--data", str(data), "-q", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == "" and done.stdout.startswith("runs/mock_echo__data: complete")
    loud = cobe("eval", "-m", "mock/echo", "-j", "mock/judge-pass", "--data", str(data), "--run-dir", "x", cwd=tmp_path)
    assert "progress: generate 0/3 done (0%)" in loud.stderr and "progress: judge 3/3 done (100%)" in loud.stderr
    assert_one_line_error(cobe("eval", "-m", "mock/echo", "-q", "-v", cwd=tmp_path), "--quiet and --verbose")


def test_ids_and_an_ids_file_choose_the_scenarios(tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 5)
    listed = tmp_path / "ids.txt"
    listed.write_text("# the two I care about\n4v0\n2v0, 2v0  # twice is once\n\n")
    base = ["eval", "-m", "mock/echo", "-j", "mock/judge-pass", "--data", str(data), "--templates", "A", "-q"]
    done = cobe(*base, "--ids-file", str(listed), "--ids", "5v0", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run_dir = tmp_path / "runs" / "mock_echo__data__tpl-A__ids-5v0-4v0-2v0"  # --ids first, then the file's
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert [r["scenario_id"] for r in rows] == ["2v0", "4v0", "5v0"]
    assert_one_line_error(cobe(*base, "--ids", "2v0,7v7", cwd=tmp_path), "--ids: 1 of 2 scenario ids", "7v7")
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    assert_one_line_error(cobe(*base, "--ids-file", str(empty), cwd=tmp_path), "--ids-file", "no scenario id")
    missing = cobe(*base, "--ids-file", str(tmp_path / "nope.txt"), cwd=tmp_path)
    assert_one_line_error(missing, "--ids-file", "nope.txt: file not found")


def test_epochs_end_to_end(tmp_path):
    data = write_dataset(tmp_path / "data.jsonl", 2)
    base = ["eval", "-m", "mock/echo", "-j", "mock/judge-pass", "--data", str(data), "--templates", "A,B"]
    assert_one_line_error(cobe(*base, "--epochs", "3", cwd=tmp_path), "--epochs 3", "--temperature 0", "above 0")
    done = cobe(*base, "--epochs", "3", "--temperature", "0.8", "--json", "-q", cwd=tmp_path)
    table = json.loads(done.stdout)
    assert done.returncode == 0 and table["items"] == 12
    (model,) = table["models"]
    assert (model["epochs"], model["epoch_std"], model["passed"], model["accuracy"]) == (3, 0.0, 12, 100.0)
    run_dir = Path(table["run_dir"])
    assert run_dir.name == "mock_echo__data__tpl-A-B__epochs-3"
    rows = [json.loads(line) for line in (tmp_path / run_dir / "results.jsonl").read_text().splitlines()]
    assert sorted({(r["epoch"], r["template"]) for r in rows}) == [(e, t) for e in (1, 2, 3) for t in "AB"]
    text = cobe(*base, "--epochs", "3", "--temperature", "0.8", cwd=tmp_path).stdout
    header = next(line for line in text.splitlines() if "accuracy %" in line).split()
    assert header[:6] == ["model", "accuracy", "%", "95%", "CI", "epochs"] and "spread" in header


def test_help_names_the_inspect_equivalents(tmp_path):
    shown = "".join(cobe("eval", "--help", cwd=tmp_path).stdout.split())  # help wraps anywhere, even in a flag
    for flag, equivalent in (
        ("--idsID,ID", "(inspect:--sample-id)"),
        ("--epochsK", "(inspect:--epochs)"),
        ("-v,--verbose", "(inspect:--log-levelinfo)"),
        ("-q,--quiet", "(inspect:--displaynone)"),
    ):
        assert flag in shown and equivalent in shown, flag
