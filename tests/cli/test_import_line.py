"""The line an import ends with names at most ten models and counts the rest: a site file of 100,000 models
printed every name on it (1.2 MB of one line; issue 43, item 19)."""

from __future__ import annotations

import json

from support.cli import run_cobe


def test_an_import_of_many_models_names_ten_and_counts_the_rest(tmp_path):
    outputs = {f"model-{i:02d}": {"response": f"answer {i}", "verdict": "correct"} for i in range(12)}
    example = {
        "example_id": "501v1",
        "coreset_id": 501,
        "variation_id": 1,
        "query_idx": 2,
        "original": "Miller 501 ground the wheat at dawn because the river ran high. The flour sold out.",
        "query": "Rewrite the original text, based on what would have happened instead had the river run low.",
        "gold_answer": "The river ran low, so the mill stood still and there was no flour to sell.",
        "should_not_change": ["Miller 501 owned a mill."],
        "should_change": ["The flour sold out."],
        "model_outputs": outputs,
    }
    source = tmp_path / "site.jsonl"
    source.write_text(json.dumps(example) + "\n", encoding="utf-8")
    result = run_cobe("import", str(source), "--from", "cobe-site", "--out", str(tmp_path / "run"))
    assert result.returncode == 0, result.stderr
    last = result.stdout.strip().splitlines()[-1]
    named = ", ".join(f"model-{i:02d}" for i in range(10))
    assert last == f"Imported 12 rows ({named} and 2 more models) into {tmp_path / 'run'}"
