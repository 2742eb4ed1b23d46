"""`cobe compare RUN...` with more than two models: every pair in one table, and in --json with discordant ids."""

from __future__ import annotations

import json

from support.cli import run_cobe
from support.results import make_rows, write_run

NINE = {f"mock/m{i}": 0.8 - 0.06 * i for i in range(9)}


def _nine(tmp_path, n: int = 24):
    return write_run(tmp_path / "nine", [row for m, rate in NINE.items() for row in make_rows(m, n, rate)])


def test_nine_models_in_one_run_give_36_pairs_with_holm_p(tmp_path):
    run = _nine(tmp_path)
    done = run_cobe("compare", str(run), "--resamples", "50")
    assert done.returncode == 0, done.stderr
    assert "All 36 pairs of 9 models" in done.stdout
    for column in ("A − B", "95% CI", "McNemar p", "Holm p"):
        assert column in done.stdout
    rows = [line for line in done.stdout.splitlines() if line.count("mock/m") == 2]
    assert len(rows) == 36
    assert "after Holm's adjustment" in done.stdout and "core examples" in done.stdout

    data = json.loads(run_cobe("compare", str(run), "--resamples", "50", "--json").stdout)
    assert data["adjustment"] == "holm" and len(data["models"]) == 9 and len(data["pairs"]) == 36
    for pair in data["pairs"]:
        assert len(pair["a_only_items"]) == pair["a_only"] and len(pair["b_only_items"]) == pair["b_only"]
        assert pair["p_holm"] >= pair["p_value"]
        assert all(":" in item for item in pair["a_only_items"] + pair["b_only_items"])
    assert data["different_pairs"] == sum(p["significant_holm"] for p in data["pairs"])


def test_nine_runs_of_one_model_each_give_the_same_pairs(tmp_path):
    runs = [str(write_run(tmp_path / m.split("/")[1], make_rows(m, 12, rate, run_id=m))) for m, rate in NINE.items()]
    data = json.loads(run_cobe("compare", *runs, "--resamples", "20", "--json").stdout)
    assert len(data["pairs"]) == 36 and {m["label"] for m in data["models"]} == set(NINE)


def test_two_runs_of_one_model_each_keep_the_two_run_comparison(tmp_path):
    a = write_run(tmp_path / "a", make_rows("mock/a", 20, 0.2, run_id="a"))
    b = write_run(tmp_path / "b", make_rows("mock/b", 20, 0.8, run_id="b"))
    data = json.loads(run_cobe("compare", str(a), str(b), "--resamples", "20", "--json").stdout)
    assert data["label_a"] == "mock/a" and "verdict" in data
    assert len(data["b_only_items"]) == data["b_only"] > 0


def test_model_choices_need_two_runs(tmp_path):
    run = _nine(tmp_path, 6)
    done = run_cobe("compare", str(run), "--model-a", "mock/m1")
    assert done.returncode == 2 and "two runs" in done.stderr
