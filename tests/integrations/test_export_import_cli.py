"""`cobe export` and `cobe import --from` as a user runs them: one line out, one line per error, no traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from integration_runs import JUDGE, MODEL_A

from cobe.cli.main import main
from support.cli import CliResult, run_cobe

LM_EVAL = Path(__file__).parent / "data" / "lm_eval" / "EleutherAI__pythia-160m"


def cobe(*args: str, cwd: Path) -> CliResult:
    """`cobe ARGS` as the console script runs it."""
    return run_cobe(*args, cwd=cwd)


def test_help_lists_export_and_the_import_sources(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "export" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    assert "--from [verdicts|cobe-site|inspect|lm-eval]" in capsys.readouterr().out


def test_inspect_round_trip_judge_and_report_from_the_command_line(cobe_run, workdir, tmp_path):
    pytest.importorskip("inspect_ai")
    log = tmp_path / "a.eval"
    done = cobe("export", str(cobe_run), "--to", "inspect", str(log), "--model", MODEL_A, cwd=workdir)
    assert done.returncode == 0 and done.stdout.startswith(f"Wrote {log}"), done.stderr
    back = tmp_path / "back"
    done = cobe("import", str(log), "--from", "inspect", "--out", str(back), cwd=workdir)
    assert done.returncode == 0 and "Imported 12 responses" in done.stdout, done.stderr
    assert cobe("judge", str(back), "--judge", JUDGE, "-q", "--no-report", cwd=workdir).returncode == 0
    done = cobe("report", str(back), "--format", "md", "--resamples", "0", cwd=workdir)
    assert done.returncode == 0 and (back / "report.md").is_file(), done.stderr


def test_lm_eval_samples_import_from_the_command_line(workdir, tmp_path):
    samples = next(LM_EVAL.glob("samples_*.jsonl"))
    done = cobe("import", str(samples), "--from", "lm-eval", "--out", str(tmp_path / "run"), cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert "Imported 6 responses (EleutherAI/pythia-160m; 2 scenarios, templates A,B,C)" in done.stdout


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """`cobe ARGS` in this process: (exit code, stderr)."""
    with pytest.raises(SystemExit) as stopped:
        main(list(args))
    return int(stopped.value.code or 0), capsys.readouterr().err


def one_line(result: tuple[int, str], code: int, needle: str) -> None:
    exit_code, err = result
    lines = err.strip().splitlines()
    assert exit_code == code and len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], err


def test_bad_input_is_one_line_each(cobe_run, tmp_path, capsys):
    one_line(
        run_main(capsys, "export", str(cobe_run), str(cobe_run), "--to", "eee", str(tmp_path / "x")),
        2,
        "--to eee exports one run; got 2",
    )
    one_line(
        run_main(capsys, "export", str(cobe_run), "--to", "inspect", str(tmp_path / "x.eval")),
        2,
        "choose one with --model, or give a folder for OUT",
    )
    mapping = tmp_path / "map.yaml"
    mapping.write_text("columns: {}\n", encoding="utf-8")
    samples = str(next(LM_EVAL.glob("samples_*.jsonl")))
    out = str(tmp_path / "r")
    one_line(
        run_main(capsys, "import", samples, "--from", "lm-eval", "--out", out, "--map", str(mapping)),
        2,
        "--map and --col apply to --from verdicts only",
    )
    one_line(
        run_main(capsys, "import", str(cobe_run / "results.jsonl"), "--from", "lm-eval", "--out", out),
        2,
        "not an lm-evaluation-harness --log_samples record",
    )
    one_line(run_main(capsys, "import", samples, "--from", "inspect", "--out", out), 2, "not a readable inspect log")


def test_a_missing_extra_is_one_line_naming_it(cobe_run, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # importing it now fails as if it were not installed
    export = ("export", str(cobe_run), "--to", "inspect", str(tmp_path / "x.eval"), "--model", MODEL_A)
    one_line(run_main(capsys, *export), 3, "pip install 'cobe[inspect]'")
    monkeypatch.setitem(sys.modules, "datasets", None)
    one_line(run_main(capsys, "export", str(cobe_run), "--to", "hf", str(tmp_path / "hf")), 3, "pip install 'cobe[hf]'")
    one_line(run_main(capsys, "data", "validate", "hf:org/name"), 3, "pip install 'cobe[hf]'")


def test_eee_says_whether_it_validated(cobe_run, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "every_eval_ever.validator.validate", None)
    code, err = run_main(capsys, "export", str(cobe_run), "--to", "eee", str(tmp_path / "eee"))
    assert code == 0 and "note: not validated" in err
