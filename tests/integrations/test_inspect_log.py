"""`cobe export --to inspect` and `cobe import --from inspect`: a run and an inspect log, both ways."""

from __future__ import annotations

import json
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from integration_runs import JUDGE, MODEL_A, MODEL_B

from cobe.core.errors import InputError, ProviderUnavailable
from cobe.report.load import read_results
from cobe.run import judge_run
from cobe.score.accuracy import mean_and_std

pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log, write_eval_log  # noqa: E402

from cobe.integrations.inspect_log import export_inspect, import_inspect  # noqa: E402
from cobe.integrations.inspect_task import SCORER_NAME  # noqa: E402


@pytest.fixture(scope="module")
def exported(cobe_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_inspect(cobe_run, tmp_path_factory.mktemp("inspect") / "model_a.eval", model=MODEL_A)


def accuracy_from_samples(log) -> tuple[float, float]:
    """The paper's accuracy recomputed from the samples alone: mean over templates of passes / scored."""
    by_template: dict[str, list[float]] = defaultdict(list)
    for sample in log.samples:
        value = sample.scores[SCORER_NAME].value["passed"]
        if not math.isnan(value):
            by_template[sample.metadata["template"]].append(value)
    return mean_and_std([100 * sum(v) / len(v) for _, v in sorted(by_template.items())])


def test_the_log_reads_back_with_the_runs_accuracy(exported, cobe_run):
    log = read_eval_log(str(exported))
    summary = json.loads((cobe_run / "summary.json").read_text(encoding="utf-8"))["models"][MODEL_A]
    assert (log.status, log.eval.model, len(log.samples)) == ("success", MODEL_A, 12)
    assert accuracy_from_samples(log) == pytest.approx((summary["accuracy"], summary["std"]))
    passed = next(s for s in log.results.scores if s.name == "passed")
    shown = {key.split("/")[-1]: m.value for key, m in passed.metrics.items()}
    assert shown == pytest.approx({"cobe_accuracy": summary["accuracy"], "phrasing_std": summary["std"]})
    assert (passed.scored_samples, passed.unscored_samples) == (summary["scored"], summary["unscored"])


def test_each_sample_holds_one_response_its_verdicts_metadata_and_usage(exported, cobe_run):
    log = read_eval_log(str(exported))
    rows = {f"{r['scenario_id']}-{r['template']}": r for r in read_results(cobe_run) if r["model"] == MODEL_A}
    for sample in log.samples:
        row = rows[sample.id]
        score = sample.scores[SCORER_NAME]
        assert sample.output.completion == row["response"]
        assert sample.input[-1].text == row["prompt"]
        assert score.metadata["verdicts"] == row["verdicts"]
        expected = {c: (math.nan if v is None else float(v == "T")) for c, v in row["verdicts"].items()}
        assert {c: score.value[c] for c in expected} == pytest.approx(expected, nan_ok=True)
        assert sample.metadata["template"] == row["template"] and sample.metadata["domain"] == row["domain"]
        assert sample.metadata["graph_type"] == row["graph_type"]
        usage = sample.model_usage[MODEL_A]
        assert usage.input_tokens > 0 and usage.output_tokens > 0
        assert score.metadata["judge"] == JUDGE and score.metadata["judge_fingerprint"]
    assert log.stats.model_usage[MODEL_A].output_tokens == sum(
        s.model_usage[MODEL_A].output_tokens for s in log.samples
    )


def test_a_run_of_two_models_needs_model(cobe_run, tmp_path):
    with pytest.raises(InputError, match="choose one with --model"):
        export_inspect(cobe_run, tmp_path / "x.eval")


def test_an_exported_log_imports_as_a_run_that_judges_to_the_same_verdicts(exported, cobe_run, tmp_path):
    imported = import_inspect(exported, tmp_path / "back")
    assert (imported.responses, imported.models, imported.templates) == (12, [MODEL_A], ["A", "B", "C"])
    original = {
        (r["scenario_id"], r["template"]): (r["response"], r["status"], r["verdicts"])
        for r in read_results(cobe_run)
        if r["model"] == MODEL_A
    }

    def back() -> dict:
        rows = read_results(tmp_path / "back")
        return {(r["scenario_id"], r["template"]): (r["response"], r["status"], r["verdicts"]) for r in rows}

    # the log's own per-check verdicts are the run's verdict set 'inspect (imported)' before any judge is asked
    assert imported.verdict_set == "inspect (imported)" and back() == original
    assert {r["judge"] for r in read_results(tmp_path / "back")} == {"inspect (imported)"}
    judge_run(tmp_path / "back", JUDGE)
    assert back() == original and {r["judge"] for r in read_results(tmp_path / "back")} == {JUDGE}


def test_a_log_scored_by_another_scorer_imports_its_c_and_i_as_overall_verdicts(exported, tmp_path):
    from inspect_ai.scorer import Score

    log = read_eval_log(str(exported))
    letters = {}
    for i, sample in enumerate(log.samples):
        letters[sample.id] = "CIN"[i % 3]  # correct, incorrect, no answer
        sample.scores = {"match": Score(value=letters[sample.id])}
    other = tmp_path / "other.eval"
    write_eval_log(log, str(other))
    imported = import_inspect(other, tmp_path / "run")
    assert imported.verdict_set == "inspect (imported)"
    statuses = {f"{r['scenario_id']}-{r['template']}": r["status"] for r in read_results(tmp_path / "run")}
    assert statuses == {sid: {"C": "passed", "I": "failed", "N": "unscored"}[v] for sid, v in letters.items()}


def test_a_log_without_scenarios_takes_them_from_data(exported, tmp_path, workdir):
    log = read_eval_log(str(exported))
    for sample in log.samples:
        sample.metadata.pop("scenario")
    bare = tmp_path / "bare.eval"
    write_eval_log(log, str(bare))
    with pytest.raises(InputError, match="give the dataset with --data"):
        import_inspect(bare, tmp_path / "no-data")
    assert import_inspect(bare, tmp_path / "with-data", data="data.jsonl").scenarios == 4


def test_a_log_of_another_benchmark_is_one_line(exported, tmp_path):
    log = read_eval_log(str(exported))
    log.eval.task = "inspect_evals/gsm8k"
    other = tmp_path / "gsm8k.eval"
    write_eval_log(log, str(other))
    with pytest.raises(InputError, match="task 'inspect_evals/gsm8k', not of CoBe"):
        import_inspect(other, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_file_that_is_no_log_is_one_line(tmp_path):
    junk = tmp_path / "junk.eval"
    junk.write_text("not a zip", encoding="utf-8")
    with pytest.raises(InputError, match="not a readable inspect log"):
        import_inspect(junk, tmp_path / "out")


def test_the_import_refuses_an_out_that_holds_something(exported, tmp_path):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "file").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="not empty"):
        import_inspect(exported, tmp_path / "busy")


def test_without_inspect_installed_both_ways_name_the_extra(cobe_run, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # import inspect_ai now raises ImportError
    with pytest.raises(ProviderUnavailable, match=r"pip install 'cobe\[inspect\]'"):
        export_inspect(cobe_run, tmp_path / "x.eval", model=MODEL_B)
    with pytest.raises(ProviderUnavailable, match=r"pip install 'cobe\[inspect\]'"):
        import_inspect(tmp_path / "x.eval", tmp_path / "out")


def test_a_log_whose_scenarios_hold_no_query_is_refused_in_one_line(exported, tmp_path):
    # no template can be asked of a scenario with no query, so no judge could score its rows (issue 43, item 3)
    log = read_eval_log(str(exported))
    for sample in log.samples:
        sample.metadata["scenario"]["queries"] = []
    bare = tmp_path / "no-queries.eval"
    write_eval_log(log, str(bare))
    with pytest.raises(InputError, match=r"no-queries\.eval: scenario \w+: has no query in phrasing [ABC]"):
        import_inspect(bare, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_every_model_of_a_run_at_once_one_log_each(cobe_run, tmp_path):
    from inspect_ai.log import read_eval_log

    from cobe.integrations.inspect_log import export_inspect_all
    from cobe.integrations.source import load_run

    run = load_run(cobe_run)
    paths = export_inspect_all(cobe_run, tmp_path / "logs")
    assert [p.parent for p in paths] == [tmp_path / "logs"] * len(run.models) and len(paths) == 2
    for path, model in zip(paths, run.models):
        log = read_eval_log(str(path))
        assert log.eval.model == model and path.name == re.sub(r"[^A-Za-z0-9._-]+", "_", model) + ".eval"
        assert len(log.samples) == sum(1 for row in run.rows if row["model"] == model)
        # the same log as one model's export on its own
        alone = export_inspect(cobe_run, tmp_path / f"alone-{path.name}", model=model)
        one = read_eval_log(str(alone))
        assert [s.id for s in one.samples] == [s.id for s in log.samples]
        assert [s.scores for s in one.samples] == [s.scores for s in log.samples]


def test_log_names_stay_short_and_apart():
    from cobe.integrations.inspect_log import log_names

    names = log_names(["openai/gpt-5.4", "openai:gpt-5.4", "x" * 5000])
    assert names[0] == "openai_gpt-5.4.eval" and names[1] == "openai_gpt-5.4-2.eval"
    assert len(names[2]) < 100
