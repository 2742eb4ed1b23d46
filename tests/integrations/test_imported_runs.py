"""An import from inspect or lm-eval is a run: its source's verdicts are a verdict set named for the source
(`inspect (imported)`, `lm-eval (imported)`), and it is listed, re-judged (here by the fake OpenAI-compatible
server), reported, compared and shown again like any run. Data: the site-shaped fixtures (our own stories)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cobe.integrations.site_results import import_site_results
from cobe.report import build_report
from cobe.report.load import read_results
from cobe.run.verdict_sets import list_verdict_sets
from support.cli import run_cobe

pytest.importorskip("inspect_ai")

from cobe.integrations.inspect_log import export_inspect  # noqa: E402

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
SAMPLES = (
    Path(__file__).parent
    / "data"
    / "lm_eval"
    / "EleutherAI__pythia-160m"
    / "samples_cobe_2026-11-30T10-15-42.512394.jsonl"
)
JUDGE = "openai-api/fake/judge-model"
MODEL = "gpt-5.4-pro"


def _statuses(run: Path) -> dict[tuple[str, str, str], str]:
    return {(r["model"], r["scenario_id"], r["template"]): r["status"] for r in read_results(run)}


def _judged_again(run: Path, set_name: str, server, tmp_path: Path) -> None:
    """Listed with its imported set; judged by the fake server beside it; reported; its own set shown again."""
    before = _statuses(run)
    listed = json.loads(run_cobe("runs", str(run.parent), "--json").stdout)["runs"]
    assert {Path(e["run_dir"]).name: e["judge"] for e in listed}[run.name] == set_name
    env = {"FAKE_BASE_URL": server.base_url, "FAKE_API_KEY": "test-key"}
    judged = run_cobe("judge", str(run), "--judge", JUDGE, env=env)
    assert judged.returncode == 0, judged.stderr
    rows = read_results(run)
    assert {r["judge"] for r in rows} == {JUDGE} and {r["status"] for r in rows} == {"passed"}  # the fake says T
    # at most three checks per response (a rewrite met twice is asked once), none of them for the imported set
    assert 0 < server.stats()["judge_requests"] <= 3 * len(rows)
    assert {v.ref.spec: v.responses for v in list_verdict_sets(run)} == {JUDGE: len(rows), set_name: len(rows)}
    report = build_report([run], out=tmp_path / "report", formats="md", resamples=20)
    assert not report.leaderboard.empty and (tmp_path / "report" / "report.md").is_file()
    shown = run_cobe("judge", str(run), "--show", set_name)
    assert shown.returncode == 0, shown.stderr
    assert _statuses(run) == before  # the source's verdicts again, with no call


def test_an_inspect_import_keeps_the_logs_verdicts_as_a_set_and_judges_like_any_run(openai_server, tmp_path):
    site = import_site_results(SITE / "category-examples.json", tmp_path / "site").out
    log = export_inspect(site, tmp_path / "gpt.eval", model=MODEL)
    run = tmp_path / "runs" / "from-inspect"
    done = run_cobe("import", str(log), "--from", "inspect", "--out", str(run))
    assert done.returncode == 0, done.stderr
    assert "shown as the verdict set 'inspect (imported)'" in done.stdout
    site_statuses = {k: v for k, v in _statuses(site).items() if k[0] == MODEL}
    assert _statuses(run) == site_statuses  # the site's passes, fails and unknowns, through the inspect log
    assert {r["judge"] for r in read_results(run)} == {"inspect (imported)"}
    _judged_again(run, "inspect (imported)", openai_server, tmp_path)


def _samples(tmp_path: Path, passing: set[int]) -> Path:
    """The site-shaped lm-eval samples, `exact_match` 1 on the documents in `passing` and 0 on the rest."""
    folder = tmp_path / "lm-eval"
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for line in SAMPLES.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record["exact_match"] = 1.0 if record["doc_id"] in passing else 0.0
        lines.append(json.dumps(record))
    out = folder / SAMPLES.name
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_an_lm_eval_import_keeps_the_samples_metric_as_a_set_and_judges_like_any_run(openai_server, tmp_path):
    samples = _samples(tmp_path, passing={0, 3})
    run = tmp_path / "runs" / "from-lm-eval"
    done = run_cobe("import", str(samples), "--from", "lm-eval", "--out", str(run), "--model", "a/model")
    assert done.returncode == 0, done.stderr
    assert "shown as the verdict set 'lm-eval (imported)'" in done.stdout and "exact_match" in done.stderr
    by_doc = {
        (json.loads(line)["doc"]["example_id"], "ABC"[json.loads(line)["doc"]["query_idx"]]): json.loads(line)["doc_id"]
        for line in samples.read_text(encoding="utf-8").splitlines()
    }
    expected = {("a/model", sid, t): "passed" if doc in (0, 3) else "failed" for (sid, t), doc in by_doc.items()}
    assert _statuses(run) == expected
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary["judge"] == "lm-eval (imported)" and summary["metric"] == "exact_match"
    _judged_again(run, "lm-eval (imported)", openai_server, tmp_path)


def test_two_lm_eval_imports_compare_on_their_imported_verdicts(tmp_path):
    runs = tmp_path / "runs"
    for name, passing in (("a", {0, 1, 2, 3}), ("b", {0})):
        samples = _samples(tmp_path / name, passing)
        done = run_cobe("import", str(samples), "--from", "lm-eval", "--out", str(runs / name), "--model", f"{name}/m")
        assert done.returncode == 0, done.stderr
    compared = run_cobe("compare", str(runs / "a"), str(runs / "b"), "--json", "--resamples", "50")
    assert compared.returncode == 0, compared.stderr
    result = json.loads(compared.stdout)
    assert (result["items"], result["both_pass"], result["a_only"], result["b_only"]) == (6, 1, 3, 0)
    assert result["accuracy_a"] > result["accuracy_b"] and result["judges_differ"] is None


def test_samples_without_a_pass_or_fail_metric_import_unjudged(tmp_path):
    lines = []
    for line in SAMPLES.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record["exact_match"] = 0.37  # a graded metric (BLEU-like) is no verdict
        lines.append(json.dumps(record))
    samples = tmp_path / "lm-eval" / SAMPLES.name
    samples.parent.mkdir()
    samples.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_cobe("import", str(samples), "--from", "lm-eval", "--out", str(tmp_path / "run"), "--model", "m")
    assert done.returncode == 0, done.stderr
    assert "verdict set" not in done.stdout and not (tmp_path / "run" / "results.jsonl").exists()
