"""cobe report and cobe compare from the command line."""

from __future__ import annotations

import json

from support.cli import run_cobe
from support.results import make_rows, write_run


def _run(argv):
    done = run_cobe(*argv)
    return done.returncode, done.stdout, done.stderr


def test_report_defaults_to_the_run_directory(tmp_path):
    run = write_run(tmp_path / "r", make_rows("mock/m", 9, 0.5))
    code, out, _ = _run(["report", str(run), "--resamples", "20", "--format", "md,html,csv"])
    assert code == 0 and "Leaderboard" in out and "mock/m" in out
    assert (
        (run / "report.md").is_file()
        and (run / "report.html").is_file()
        and (run / "tables" / "leaderboard.csv").is_file()
    )
    assert not (run / "figures" / "phrasing.png").exists()


def test_report_over_several_runs_writes_to_out(tmp_path):
    a = write_run(tmp_path / "a", make_rows("mock/a", 9, 0.3, run_id="ra"))
    b = write_run(tmp_path / "b", make_rows("mock/b", 9, 0.8, run_id="rb"))
    code, _, _ = _run(
        ["report", str(a), str(b), "--out", str(tmp_path / "rep"), "--resamples", "10", "--format", "json,png"]
    )
    assert code == 0 and (tmp_path / "rep" / "figures" / "domain.png").is_file()
    board = json.loads((tmp_path / "rep" / "tables" / "leaderboard.json").read_text())
    assert [r["label"] for r in board] == ["mock/b", "mock/a"]


def test_report_errors_are_one_line(tmp_path):
    code, _, err = _run(["report", str(tmp_path)])
    assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1


def test_compare_identical_runs_is_not_significant(tmp_path):
    rows = make_rows("mock/m", 60, 0.6)
    a = write_run(tmp_path / "a", rows)
    b = write_run(tmp_path / "b", [{**r, "run_id": "run-2"} for r in rows])
    code, out, _ = _run(["compare", str(a), str(b), "--resamples", "200"])
    assert code == 0 and "No significant difference" in out
    code, out, _ = _run(["compare", str(a), str(b), "--resamples", "200", "--json"])
    result = json.loads(out)
    assert result["difference"] == 0 and result["p_value"] == 1.0 and result["significant"] is False


def test_compare_baseline_against_a_stronger_model_is_significant(tmp_path):
    a = write_run(tmp_path / "base", make_rows("mock/baseline", 60, 0.15, run_id="base"))
    b = write_run(tmp_path / "strong", make_rows("mock/strong", 60, 0.85, run_id="strong"))
    code, out, _ = _run(["compare", str(a), str(b), "--json", "--seed", "3"])
    result = json.loads(out)
    assert code == 0 and result["significant"] is True and result["p_value"] < 0.001
    assert result["ci_high"] < 0 and result["b_only"] > result["a_only"]
    assert "mock/strong beats mock/baseline" in result["verdict"]


def test_compare_of_a_run_holding_several_models_compares_every_pair_or_the_two_chosen(tmp_path):
    both = write_run(tmp_path / "ab", make_rows("m1", 9, 0.5) + make_rows("m2", 9, 0.5))
    code, out, _ = _run(["compare", str(both), str(both), "--resamples", "20"])  # the same run twice counts once
    assert code == 0 and "All 1 pair of 2 models" in out
    code, _, err = _run(["compare", str(both), str(both), "--model-a", "m1"])
    assert code == 2 and "--model-b" in err
    code, out, _ = _run(["compare", str(both), str(both), "--model-a", "m1", "--model-b", "m2", "--resamples", "50"])
    assert code == 0 and "m1" in out and "m2" in out


def test_piped_tables_keep_every_model_name_whole(tmp_path):
    # a pipe has no width; rich's guess of 80 (or any fixed width) squeezed long names to `mod…`
    models = [
        "openai-api/local2/Meta-Llama-3.1-70B-Instruct-Turbo",
        "google/gemini-3.1-pro-preview-long-context",
        "anthropic/claude-opus-4-7-20260101",
        "baseline/identity",
    ]
    rows = [row for i, m in enumerate(models) for row in make_rows(m, 12, 0.3 + 0.1 * i, run_id=f"r{i}")]
    run = write_run(tmp_path / "four", rows)
    code, out, _ = _run(["report", str(run), "--resamples", "20", "--format", "md"])
    assert code == 0
    assert "model" in out and "mod…" not in out
    for model in models:
        assert any(model in line for line in out.splitlines()), model
    a, b = (write_run(tmp_path / n, make_rows(m, 12, 0.5, run_id=n)) for n, m in zip("ab", models))
    code, out, _ = _run(["compare", str(a), str(b), "--resamples", "20"])
    assert code == 0 and all(any(m in line for line in out.splitlines()) for m in models[:2])
