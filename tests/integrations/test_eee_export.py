"""`cobe export --to eee`: Every Eval Ever records, checked by the every-eval-ever package's own validator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from integration_runs import JUDGE, MODEL_A, MODEL_B, read_jsonl

from cobe.core.errors import InputError
from cobe.report.load import read_results

checker = pytest.importorskip("every_eval_ever.validator.validate")

from cobe.integrations.eee import ACCURACY_ID, export_eee, model_dirs, model_id  # noqa: E402


@pytest.fixture(scope="module")
def exported(cobe_run: Path, tmp_path_factory: pytest.TempPathFactory):
    return export_eee(cobe_run, tmp_path_factory.mktemp("eee"), organization="Test Lab")


def validate(root: Path, path: Path):
    """every-eval-ever's validator as its own command runs it: schema, datastore path and companion checks."""
    present = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    return checker.validate_file(
        path,
        repo_path=path.relative_to(root).as_posix(),
        available_files=present,
        read_repo_file=lambda name: (root / name).read_text(encoding="utf-8"),
        run_semantic_checks=True,
    )


def aggregate_of(exported, model: str) -> tuple[Path, dict]:
    developer, name = model_dirs(model_id(model))
    [path] = (exported.out / "data" / "cobe" / developer / name).glob("*[0-9a-f].json")
    return path, json.loads(path.read_text(encoding="utf-8"))


def test_every_file_passes_the_packages_validator_without_a_warning(exported):
    assert exported.validated and len(exported.files) == 4
    for path in exported.files:
        report = validate(exported.out, path)
        assert (report.valid, report.errors, report.warnings) == (True, [], []), path


def test_the_validator_catches_a_broken_record(exported, tmp_path):
    # the check above can fail: the same validator rejects an aggregate missing a required field
    path, data = aggregate_of(exported, MODEL_A)
    broken_root = tmp_path / "broken"
    copy = broken_root / path.relative_to(exported.out)
    copy.parent.mkdir(parents=True)
    del data["model_info"]
    copy.write_text(json.dumps(data), encoding="utf-8")
    assert not validate(broken_root, copy).valid


def test_the_aggregate_holds_accuracy_ci_and_the_judge(exported, cobe_run):
    summary = json.loads((cobe_run / "summary.json").read_text(encoding="utf-8"))["models"][MODEL_B]
    _, data = aggregate_of(exported, MODEL_B)
    result = next(r for r in data["evaluation_results"] if r["evaluation_result_id"] == ACCURACY_ID)
    assert result["score_details"]["score"] == pytest.approx(summary["accuracy"])
    assert float(result["score_details"]["details"]["std_across_phrasings"]) == pytest.approx(summary["std"])
    interval = result["score_details"]["uncertainty"]["confidence_interval"]
    assert interval["lower"] <= summary["accuracy"] <= interval["upper"] and interval["confidence_level"] == 0.95
    judge = result["metric_config"]["llm_scoring"]["judges"][0]
    assert judge["model_info"]["name"] == JUDGE and judge["additional_details"]["prompt_fingerprint"]
    assert "[preserve]" in result["metric_config"]["llm_scoring"]["input_prompt"]
    assert data["model_info"]["name"] == MODEL_B and data["source_metadata"]["source_organization_name"] == "Test Lab"
    assert {r["evaluation_result_id"] for r in data["evaluation_results"]} == {
        ACCURACY_ID,
        "cobe.connectors",
        "cobe.preserve",
        "cobe.change",
    }


def test_instances_carry_the_three_checks(exported, cobe_run):
    path, data = aggregate_of(exported, MODEL_A)
    instances = read_jsonl(path.with_name(path.stem + "_samples.jsonl"))
    rows = {f"{r['scenario_id']}-{r['template']}": r for r in read_results(cobe_run) if r["model"] == MODEL_A}
    assert data["detailed_evaluation_results"]["total_rows"] == len(instances)
    accuracy = [i for i in instances if i["evaluation_result_id"] == ACCURACY_ID]
    assert len(accuracy) == 11  # the unscored response counts in no accuracy record
    for record in instances:
        row = rows[record["sample_id"]]
        assert record["metadata"]["verdicts"] == row["verdicts"]
        assert record["output"]["raw"] == [row["response"]]
        check = record["evaluation_result_id"].removeprefix("cobe.")
        expected = row["status"] == "passed" if check == "accuracy" else row["verdicts"][check] == "T"
        assert record["evaluation"]["is_correct"] is expected
    change = [i for i in instances if i["evaluation_result_id"] == "cobe.change"]
    assert sum(i["evaluation"]["score"] for i in change) == 6  # change holds on scenario 3 and on 1B, 4C


def test_a_run_not_yet_judged_is_refused(tmp_path, workdir):
    from cobe.run import EvalConfig, generate

    generate(EvalConfig(data="data.jsonl", models=[MODEL_A], run_dir=tmp_path / "unjudged"))
    with pytest.raises(InputError, match="nothing is judged yet"):
        export_eee(tmp_path / "unjudged", tmp_path / "out")


def test_model_ids_become_the_datastores_folders():
    assert model_id("openai-api/vllm/org/model") == "openai-api/vllm/org/model"
    assert model_dirs("openai-api/vllm/org/model") == ("openai-api", "vllm_org_model")
    assert model_dirs(model_id("llamacpp//models/x:q4.gguf")) == ("llamacpp", "models_x_q4.gguf")


def test_the_export_says_where_the_validator_runs_from_and_that_command_passes(cobe_run, tmp_path):
    import os
    import subprocess
    import sys

    from support.cli import run_cobe

    out = tmp_path / "my eee"  # a space: the printed command quotes the folder
    done = run_cobe("export", str(cobe_run), "--to", "eee", str(out))
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("To check it with"))
    assert f"run it from {out}, the folder holding data/" in line
    command = line.split("runs in): ", 1)[1]
    assert command.startswith(f"cd '{out}' && python -m every_eval_ever validate ")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    ran = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.count("PASS") == 4 and "FAIL" not in ran.stdout
    # from any other folder the same files fail its datastore-path check: hence the line above
    elsewhere = command.split(" && ", 1)[1].replace("'data/", "'my eee/data/")
    moved = subprocess.run(
        ["bash", "-c", elsewhere], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert moved.returncode != 0
