"""Hostile flags, environment values and paths: one line, exit 2, and a finished run beside them untouched.

Numbers are checked against what providers accept (temperature 0-2 and finite, max tokens >= 1,
pacing, timeouts and money finite and positive) in EvalConfig, so the CLI and the API share the
rule; paths through a file, into /dev, or into a read-only directory are named as such.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from reliability_helpers import run_cobe_unprivileged

from support.cli import CliResult, assert_one_line_error, run_cobe
from support.run_data import write_dataset

MOCKS = ("-m", "mock/echo", "-j", "mock/judge-pass")
HUGE = "1" + "0" * 30

EVAL_FLAGS = [
    ("--temperature", "nan"),
    ("--temperature", "1e309"),
    ("--temperature", "-0.5"),
    ("--temperature", "2.5"),
    ("--judge-temperature", "inf"),
    ("--judge-temperature", "-1"),
    ("--max-tokens", "0"),
    ("--max-tokens", HUGE),
    ("--concurrency", "0"),
    ("--concurrency", HUGE),
    ("--rpm", "0"),
    ("--rpm", "inf"),
    ("--tpm", "nan"),
    ("--timeout", "0"),
    ("--timeout", "inf"),
    ("--max-cost", "-1"),
    ("--max-cost", "nan"),
    ("--max-retries", "-1"),
    ("--max-retries", HUGE),
    ("--max-retry-wait", "nan"),
    ("--max-retry-wait", "-5"),
    ("--batch-poll", "nan"),
    ("--limit", "0"),
    ("--tier", "9"),
    ("--templates", "Z"),
    ("--templates", ","),
    ("--judge-prompts", "no-such-set"),
    ("--data", "builtin:no-such-set"),
    ("--model", "no-slash"),
    ("--model", "openai-api/only-service"),
    ("--model", "unknown-provider/x"),
    ("--judge", "mock/unknown-form"),
]
ENV_VALUES = [  # (variable, value, what the error line names)
    ("COBE_TEMPERATURE", "nan", "--temperature"),
    ("COBE_MAX_TOKENS", "-3", "--max-tokens"),
    ("COBE_MAX_RETRY_WAIT", "inf", "--max-retry-wait"),
    ("COBE_MOCK_LATENCY", "-1", "COBE_MOCK_LATENCY"),
    ("COBE_REQUEST_TIMEOUT", "nan", "COBE_REQUEST_TIMEOUT"),  # read by the SDK providers
    ("COBE_HTTP_TRANSPORT", "curl", "COBE_HTTP_TRANSPORT"),  # read by the SDK providers
]
SDK_ENV = ("COBE_REQUEST_TIMEOUT", "COBE_HTTP_TRANSPORT")


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def finished(tmp_path: Path) -> tuple[Path, Path]:
    """(dataset, run directory of a finished mock run on it)."""
    data = write_dataset(tmp_path / "data.jsonl", 2)
    run_dir = tmp_path / "run"
    done = run_cobe("eval", *MOCKS, "--data", str(data), "--run-dir", str(run_dir), "--no-report", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return data, run_dir


def assert_usage_or_input_error(result: CliResult, needle: str) -> None:
    """Exit 2 with one line: cobe's `error: ...` or click's usage `Error: ...`, naming `needle`."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    if lines[0].startswith("error: "):
        assert_one_line_error(result, needle)
    else:
        assert lines[-1].startswith("Error: ") and needle.split("/")[0] in result.stderr, result.stderr


@pytest.mark.parametrize(("flag", "value"), EVAL_FLAGS, ids=[f"{f}={v[:12]}" for f, v in EVAL_FLAGS])
def test_a_hostile_eval_flag_is_refused_and_the_run_is_untouched(finished, tmp_path, flag, value):
    data, run_dir = finished
    before = snapshot(run_dir)
    args = ["eval", *MOCKS, "--data", str(data), "--run-dir", str(run_dir), flag, value]
    result = run_cobe(*args, cwd=tmp_path)
    needle = flag if flag not in ("--templates", "--judge-prompts", "--data", "--model", "--judge") else value
    assert_usage_or_input_error(result, needle.strip(","))
    assert snapshot(run_dir) == before


@pytest.mark.parametrize(("name", "value", "needle"), ENV_VALUES, ids=[n for n, _, _ in ENV_VALUES])
def test_a_hostile_environment_value_is_refused(finished, tmp_path, name, value, needle):
    data, run_dir = finished
    before = snapshot(run_dir)
    fresh = tmp_path / "fresh"  # a new run dir, so cached answers cannot hide the provider's check
    models = ("-m", "openai-api/fake/x", "-j", "mock/judge-pass") if name in SDK_ENV else MOCKS
    env = {name: value, "FAKE_BASE_URL": "http://127.0.0.1:9/v1"}
    result = run_cobe("eval", *models, "--data", str(data), "--run-dir", str(fresh), cwd=tmp_path, env=env)
    assert_usage_or_input_error(result, needle)
    assert snapshot(run_dir) == before and not fresh.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["judge", "{run}", "-j", "mock/judge-fail", "--judge-temperature", "nan"],
        ["judge", "{run}", "-j", "mock/judge-fail", "--max-retry-wait", "inf"],
        ["judge", "{run}", "-j", "mock/judge-fail", "--prices", "{run}/cobe.sqlite"],
        ["judge", "{tmp}/nowhere", "-j", "mock/judge-fail"],
        ["report", "{run}", "--resamples", "-1"],
        ["report", "{run}", "--resamples", HUGE],
        ["report", "{run}", "--seed", "-1"],
        ["report", "{run}", "--format", "nope"],
        ["compare", "{run}", "{run}", "--resamples", "-3"],
        ["compare", "{run}", "{run}", "--seed", "-1"],
        ["compare", "{run}", "{run}", "--alpha", "nan"],
        ["compare", "{run}", "{run}", "--alpha", "1.5"],
        ["annotate", "create", "{run}", "--n", "0", "--out", "{tmp}/study"],
        ["annotate", "create", "{run}", "--raters", "0", "--out", "{tmp}/study"],
        ["data", "sample", "--n", "-5", "--data", "{data}"],
        ["runs", "{data}"],
    ],
    ids=lambda a: " ".join(a[:1] + a[2:] if a[0] != "data" else a[:2] + a[2:4]),
)
def test_hostile_options_of_other_commands(finished, tmp_path, args):
    data, run_dir = finished
    before = snapshot(run_dir)
    filled = [a.format(run=run_dir, tmp=tmp_path, data=data) for a in args]
    result = run_cobe(*filled, cwd=tmp_path)
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    assert snapshot(run_dir) == before


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["eval", *MOCKS, "--data", "{data}", "--run-dir", "{file}/sub"], "a part of the path is a file"),
        (["eval", *MOCKS, "--data", "{data}", "--run-dir", "{file}"], "is a file"),
        (["data", "convert", "{data}", "{file}/x.jsonl"], "a part of the path is a file"),
        (["data", "convert", "{data}", "/dev/null"], "is a character device"),
        (["data", "convert", "{data}", "{tmp}/no/such/x.jsonl"], "no such directory"),
        (["data", "sample", "--n", "1", "--data", "{data}", "--out", "{file}/x.jsonl"], "a part of the path is a file"),
        (["import", "{csv}", "--out", "{file}/sub"], "is a regular file, not a directory"),
        (["report", "{run}", "--out", "{file}/sub"], "a part of the path is a file"),
        (["curate", "init", "{file}/sub"], "a part of the path is a file"),
        (["annotate", "create", "{run}", "--out", "/dev/null"], "is a character device, not a directory"),
        (["import", "{binary}", "--out", "{tmp}/imported"], "binary"),
    ],
    ids=lambda v: " ".join(v[:2]) if isinstance(v, list) else None,
)
def test_paths_through_files_into_devices_or_nowhere_are_named(finished, tmp_path, args, needle):
    data, run_dir = finished
    file = tmp_path / "somefile"
    file.write_text("keep me\n")
    csv = tmp_path / "good.csv"
    csv.write_text("scenario_id,template,model,verdict\n1v0,A,m,T\n")
    binary = tmp_path / "verdicts.jsonl"
    binary.write_bytes(bytes(range(256)) * 8)
    values = {"data": data, "file": file, "tmp": tmp_path, "csv": csv, "run": run_dir, "binary": binary}
    result = run_cobe(*[a.format(**values) for a in args], cwd=tmp_path)
    if "--run-dir" in args and args[-1] == "{file}":
        assert result.returncode == 2 and "Traceback" not in result.stderr  # click refuses a file for a directory
    else:
        assert_one_line_error(result, needle)
    assert file.read_text() == "keep me\n" and Path("/dev/null").is_char_device()


@pytest.mark.parametrize(
    ("command", "needle"),
    [
        (["eval", *MOCKS, "--data", "{data}", "--run-dir", "{run}"], "read-only"),
        (["report", "{run}"], "read-only"),
        (["annotate", "create", "{run}"], "permission denied"),
        (["judge", "{run}", "-j", "mock/judge-fail"], "read-only"),
    ],
    ids=["eval", "report", "annotate create", "judge"],
)
def test_a_read_only_run_directory_is_named_read_only(finished, tmp_path, command, needle):
    data, run_dir = finished
    before = snapshot(run_dir)
    os.chmod(run_dir, 0o555)
    try:
        result = run_cobe_unprivileged(*[a.format(data=data, run=run_dir) for a in command], cwd=tmp_path)
    finally:
        os.chmod(run_dir, 0o755)
    assert_one_line_error(result, needle)
    assert "not a usable cobe store" not in result.stderr
    assert snapshot(run_dir) == before
