"""`cobe judge RUN --ids … --ids-file … --sample N --seed S --limit N --model SPEC`: a re-judge of a part of a
run. Only the part is judged; its verdict set records the part; `cobe runs --verdict-sets`, the exports and the
reports say so; `judges agree` and `compare` count the shared part (issue 44, item 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cobe.run import EvalConfig, evaluate
from cobe.run.judged_part import JudgedPart
from support.cli import run_cobe

MODELS = ["mock/echo", "baseline/illustrative"]


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """Two models on 12 starter scenarios, three phrasings each, judged by judge-pass: 72 responses."""
    summary = evaluate(EvalConfig(models=MODELS, judge="mock/judge-pass", limit=12, run_dir=tmp_path / "run"))
    return summary.run_dir


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def _judge_calls(run_dir: Path, judge: str) -> int:
    import sqlite3

    db = sqlite3.connect(run_dir / "cobe.sqlite")
    try:
        return int(db.execute("SELECT count(*) FROM verdicts WHERE judge = ?", (judge,)).fetchone()[0])
    finally:
        db.close()


def test_a_sample_of_one_models_responses_is_judged_and_recorded(run_dir: Path, tmp_path: Path) -> None:
    r = run_cobe("judge", str(run_dir), "--judge", "mock/judge-fail", "--sample", "4", "--seed", "3", "--model",
                 "mock/echo", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "judging a part of the run (--sample 4 --seed 3, --model mock/echo): 12 of 72 items" in r.stderr
    assert _judge_calls(run_dir, "mock/judge-fail") == 12 * 3  # three checks of each of the part's 12 responses
    rows = _rows(run_dir)
    judged = [row for row in rows if row["status"] != "pending"]
    assert len(rows) == 72 and len(judged) == 12  # every row kept; outside the part, pending under this judge
    assert {row["model"] for row in judged} == {"mock/echo"} and len({row["scenario_id"] for row in judged}) == 4
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["judged_part"]["part"] == "--sample 4 --seed 3, --model mock/echo"
    assert (summary["judged_part"]["judged"], summary["judged_part"]["rows"]) == (12, 72)

    r = run_cobe("runs", str(run_dir), "--verdict-sets", "--json", cwd=tmp_path)
    sets = {s["judge"]: s for s in json.loads(r.stdout)["verdict_sets"]}
    assert sets["mock/judge-fail"]["part"] == "--sample 4 --seed 3, --model mock/echo"
    assert sets["mock/judge-fail"]["responses"] == 12 and sets["mock/judge-pass"]["part"] is None
    r = run_cobe("runs", str(run_dir), "--verdict-sets", cwd=tmp_path)
    assert "--sample 4 --seed 3" in " ".join(r.stdout.split())

    # a report of the run says its figures are a part's, on every table
    r = run_cobe("report", str(run_dir), "--out", "rep", "--format", "md", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "covers a part of this run (--sample 4 --seed 3, --model mock/echo): 12 of 72 rows judged" in " ".join(
        r.stdout.split()
    )
    assert "covers a part of this run" in (tmp_path / "rep" / "report.md").read_text()

    # shown again later, the set keeps the part it covers
    assert run_cobe("judge", str(run_dir), "--show", "mock/judge-pass", cwd=tmp_path).returncode == 0
    assert "judged_part" not in json.loads((run_dir / "summary.json").read_text())
    assert run_cobe("judge", str(run_dir), "--show", "mock/judge-fail", cwd=tmp_path).returncode == 0
    assert json.loads((run_dir / "summary.json").read_text())["judged_part"]["judged"] == 12


def test_ids_a_file_of_ids_and_a_limit_choose_as_eval_chooses(run_dir: Path, tmp_path: Path) -> None:
    ids = sorted({row["scenario_id"] for row in _rows(run_dir)})
    (tmp_path / "ids.txt").write_text(f"# two more\n{ids[5]}\n{ids[6]}\n")
    r = run_cobe("judge", str(run_dir), "--judge", "mock/judge-fail", "--ids", f"{ids[0]},{ids[1]}", "--ids-file",
                 "ids.txt", "--limit", "3", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    judged = {row["scenario_id"] for row in _rows(run_dir) if row["status"] != "pending"}
    assert len(judged) == 3 and judged <= {ids[0], ids[1], ids[5], ids[6]}


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--ids", "999v9"), "--ids: 999v9 not in"),
        (("--model", "mock/nobody"), "--model: mock/nobody not in"),
        (("--show", "1", "--limit", "2"), "--show and a part"),
    ],
)
def test_a_part_the_run_does_not_hold_is_one_line(run_dir: Path, tmp_path: Path, args, needle: str) -> None:
    judge = () if "--show" in args else ("--judge", "mock/judge-fail")
    r = run_cobe("judge", str(run_dir), *judge, *args, cwd=tmp_path)
    assert r.returncode == 2 and needle in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert _judge_calls(run_dir, "mock/judge-fail") == 0


def test_a_part_reads_back_as_it_was_recorded() -> None:
    part = JudgedPart(ids=("1v1", "2v1"), sample=5, seed=2, limit=3, models=("m",))
    assert JudgedPart.from_json(part.to_json()) == part
    assert JudgedPart().to_json() is None and JudgedPart.from_json(None).whole
    assert JudgedPart.from_json("{bad").whole  # a damaged record reads as the whole run, never a crash


def test_judges_agree_and_compare_say_they_count_the_shared_part(run_dir: Path, tmp_path: Path) -> None:
    r = run_cobe("judge", str(run_dir), "--judge", "mock/judge-fail", "--limit", "2", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run_cobe("judges", "agree", str(run_dir), "--reference", "mock/judge-pass", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    said = " ".join(r.stdout.split())
    assert "covers a part of the run (--limit 2): compared on the rows both sets judged" in said
    assert "60 not yet judged" in said  # 72 rows, 12 in the part
    other = evaluate(EvalConfig(models=["mock/echo"], judge="mock/judge-fail", limit=12, run_dir=tmp_path / "o"))
    r = run_cobe("compare", str(run_dir), str(other.run_dir), "--model-a", "mock/echo", "--resamples", "0",
                 cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "covers a part of this run (--limit 2)" in r.stderr and "compared on the items both sides scored" in r.stderr
    assert "Paired comparison on 6 items" in r.stdout  # the part's 2 scenarios × 3 phrasings


def test_runs_lists_the_judge_whose_numbers_it_prints_while_another_judges(run_dir: Path, tmp_path: Path) -> None:
    from cobe.judge.judge_plan import JudgeRef
    from cobe.run.verdict_sets import make_current
    from cobe.store.store import Store

    # the moment a re-judge starts: the store names the new judge, summary.json still holds the old one's numbers
    store = Store(run_dir / "cobe.sqlite")
    try:
        row = store.latest_run()
        assert row is not None
        make_current(store, row.id, JudgeRef("mock/judge-fail", "paper", "f" * 12))
    finally:
        store.close()
    r = run_cobe("runs", str(tmp_path), cwd=tmp_path)
    (line,) = [line for line in r.stdout.splitlines() if line.startswith(str(run_dir))]
    assert "judge=mock/judge-pass\t" in line and "100.0%" in line  # the judge of the accuracy printed
    assert "judging=mock/judge-fail (its numbers not written yet)" in line
