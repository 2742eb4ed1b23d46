"""Exports of an imported run (the site-shaped fixtures, our own stories): each carries the imported verdicts and
the prompt, names where the verdicts came from, and names the interval method the numbers actually used."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from cobe.integrations.site_results import import_site_results
from cobe.integrations.source import load_run, scoreboard
from cobe.report.load import read_results
from support.cli import run_cobe

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
MODEL = "gpt-5.4-pro"
SOURCE = "published verdicts of the CoBe site"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site's showcase file imported as a run (read it, do not change it)."""
    return import_site_results(SITE / "category-examples.json", tmp_path_factory.mktemp("site") / "run").out


def test_the_inspect_export_of_a_site_run_scores_each_sample_with_the_sites_verdict(site, tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log

    from cobe.integrations.inspect_log import export_inspect

    log = read_eval_log(str(export_inspect(site, tmp_path / "gpt.eval", model=MODEL)))
    rows = {f"{r['scenario_id']}-{r['template']}": r for r in read_results(site) if r["model"] == MODEL}
    for sample in log.samples:
        score = sample.scores["cobe_judge"]
        passed, row = score.value["passed"], rows[sample.id]
        if row["passed"] is None:  # the site's unknown: unscored, as in the run
            assert math.isnan(passed)
        else:
            assert passed == float(row["passed"])
        assert score.metadata["verdicts_from"].startswith(SOURCE)
    scored = [s.scores["cobe_judge"].value["passed"] for s in log.samples]
    assert sum(not math.isnan(v) for v in scored) == sum(r["passed"] is not None for r in rows.values()) > 0
    assert log.eval.metadata["judge"]["verdicts_from"].startswith(SOURCE)
    passed_block = next(s for s in log.results.scores if s.name == "passed")
    assert passed_block.scored_samples > 0


def _verdicts_file(site: Path, path: Path) -> Path:
    """The site run's verdicts as a plain verdict file (`cobe import --from verdicts`): ids, template, words."""
    words = {"passed": "correct", "failed": "wrong"}
    rows = [
        {
            "example_id": r["scenario_id"],
            "template": r["template"],
            "model": r["model"],
            "response": r["response"],
            "verdict": words.get(r["status"], "unknown"),
        }
        for r in read_results(site)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_preference_pairs_of_an_imported_verdict_file_carry_the_prompt_asked(site, tmp_path):
    verdicts = _verdicts_file(site, tmp_path / "verdicts.jsonl")
    run = tmp_path / "run"
    done = run_cobe("import", str(verdicts), "--out", str(run), "--data", str(SITE / "category-examples.json"))
    assert done.returncode == 0, done.stderr
    out = tmp_path / "pairs.jsonl"
    exported = run_cobe("export", str(run), str(out), "--to", "preference")
    assert exported.returncode == 0, exported.stderr
    pairs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    asked = {(r["scenario_id"], r["template"]): f"{r['story']}\n\n{r['query']}" for r in read_results(site)}
    assert pairs and all(p["prompt"] == asked[(p["scenario_id"], p["template"])] for p in pairs)
    # the site run itself carries the same prompts
    site_out = tmp_path / "site-pairs.jsonl"
    assert run_cobe("export", str(site), str(site_out), "--to", "preference").returncode == 0
    site_pairs = [json.loads(line) for line in site_out.read_text(encoding="utf-8").splitlines()]
    assert all(p["prompt"] == asked[(p["scenario_id"], p["template"])] for p in site_pairs)


def test_pairs_with_no_prompt_to_carry_are_refused_in_one_line(site, tmp_path):
    verdicts = _verdicts_file(site, tmp_path / "verdicts.jsonl")
    run = tmp_path / "run"
    assert run_cobe("import", str(verdicts), "--out", str(run)).returncode == 0  # no --data: no story, no query
    done = run_cobe("export", str(run), str(tmp_path / "pairs.jsonl"), "--to", "preference")
    assert done.returncode == 2 and done.stderr.startswith("error: ") and "--data" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "pairs.jsonl").exists()


def test_the_hf_card_names_the_sites_verdicts_and_the_bootstrap_over_core_examples(site, tmp_path):
    pytest.importorskip("datasets")
    from cobe.integrations.hf import export_hf

    export_hf(site, tmp_path / "hf")
    card = (tmp_path / "hf" / "README.md").read_text(encoding="utf-8")
    assert SOURCE in card and "`None`" not in card and "judge prompts" not in card
    results = json.loads((tmp_path / "hf" / "results.json").read_text(encoding="utf-8"))
    assert results["judge"]["verdicts_from"].startswith(SOURCE)
    definition = results["accuracy_definition"]
    # five core examples are too few to bootstrap: the exact interval, over the same units
    assert "over scenarios" not in definition and "interval over core examples (5 clusters)" in definition
    assert {m["ci_unit"] for m in results["models"].values()} == {"core example"}


def test_eee_credits_the_sites_verdicts_to_the_site_and_names_the_interval_it_drew(site, tmp_path):
    from cobe.integrations.eee import export_eee

    written = export_eee(site, tmp_path / "eee", organization="My Lab")
    aggregates = [json.loads(p.read_text(encoding="utf-8")) for p in written.files if p.suffix == ".json"]
    assert len(aggregates) == 3
    for record in aggregates:
        meta = record["source_metadata"]
        assert "CoBe authors" in meta["source_organization_name"]  # the authors', not the exporter's
        assert meta["additional_details"]["exported_by"] == "My Lab"
        assert meta["additional_details"]["verdicts_from"].startswith(SOURCE)
        text = json.dumps(record)
        assert '"unknown"' not in text.replace('"deployment_type": "unknown"', "").replace(
            '"model_availability": "unknown"', ""
        )
        assert "prompt_set" not in text and '"None"' not in text
        accuracy = record["evaluation_results"][0]
        assert accuracy["metric_config"]["additional_details"]["verdicts_from"].startswith(SOURCE)
        method = accuracy["score_details"]["uncertainty"]["confidence_interval"]["method"]
        assert (
            "exact (Clopper–Pearson) interval over core examples (5 clusters)" in method and "scenarios" not in method
        )


def test_the_interval_method_names_scenarios_where_no_core_holds_several(site):
    run = load_run(site)
    # keep one variation per core: the bootstrap then draws scenarios, and the method must say so
    first: dict[int, str] = {}
    for row in run.rows:
        first.setdefault(row["core_id"], row["scenario_id"])
    run.rows = [r for r in run.rows if first[r["core_id"]] == r["scenario_id"]]
    board = scoreboard(run, resamples=20)
    assert {m["ci_unit"] for m in board.values()} == {"scenario"}
    assert all("interval over scenarios (5)" in m["ci_method"] for m in board.values())  # too few to bootstrap
    # every scenario its own core example: twelve units, enough to bootstrap, and the bootstrap names them
    spread = load_run(site)
    numbers = {sid: n for n, sid in enumerate(sorted({r["scenario_id"] for r in spread.rows}))}
    spread.rows = [r | {"core_id": 1000 + numbers[r["scenario_id"]]} for r in spread.rows]
    assert all("resampling scenarios (12)" in m["ci_method"] for m in scoreboard(spread, resamples=20).values())


def test_an_imported_verdict_file_exports_name_the_file_not_a_judge(site, tmp_path):
    pytest.importorskip("datasets")
    from cobe.integrations.eee import export_eee
    from cobe.integrations.hf import export_hf

    verdicts = _verdicts_file(site, tmp_path / "verdicts.jsonl")
    run = tmp_path / "run"
    assert run_cobe("import", str(verdicts), "--out", str(run)).returncode == 0
    export_hf(run, tmp_path / "hf")
    card = (tmp_path / "hf" / "README.md").read_text(encoding="utf-8")
    assert "verdicts imported from verdicts.jsonl" in card and "None" not in card
    written = export_eee(run, tmp_path / "eee", organization="My Lab")
    for path in written.files:
        text = path.read_text(encoding="utf-8")
        assert "None" not in text and "prompt_set" not in text
        if path.suffix == ".json":
            meta = json.loads(text)["source_metadata"]
            assert meta["source_organization_name"] != "My Lab"
            assert meta["additional_details"]["verdicts_from"].startswith("verdicts imported from verdicts.jsonl")


def test_eee_says_the_sites_verdict_decides_a_pass_not_the_three_checks(site, tmp_path):
    from cobe.integrations.eee import export_eee

    written = export_eee(site, tmp_path / "eee", organization="My Lab")
    record = json.loads(next(p for p in written.files if p.suffix == ".json").read_text(encoding="utf-8"))
    described = record["evaluation_results"][0]["metric_config"]["evaluation_description"]
    assert "a pass needs T on connectors" not in described and "the source's own verdict" in described


def test_eee_instances_name_the_sites_verdicts_not_an_llm_judge(site, tmp_path):
    from cobe.integrations.eee import export_eee

    written = export_eee(site, tmp_path / "eee", organization="My Lab")
    records = [json.loads(line) for p in written.files if p.suffix == ".jsonl" for line in p.read_text().splitlines()]
    assert records
    for record in records:
        (answer,) = record["answer_attribution"]
        assert answer["extraction_method"] == "source_verdict: cobe-site (published)"
        assert record["metadata"]["verdicts_from"].startswith(SOURCE)
