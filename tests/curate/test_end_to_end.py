"""Scripted end to end: contributions → augmentation → checks → review → audit → release → eval."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

from support.curate_project import CORES, SCRIPT, cobe


def test_build_a_small_dataset_into_a_release(tmp_path: Path) -> None:
    proj, out = tmp_path / "proj", tmp_path / "release"
    cobe("curate", "init", str(proj))
    assert "imported 3 candidate(s)" in cobe("curate", "import", str(proj), str(CORES)).stdout
    cobe("curate", "promote", str(proj), "1v0", "2v0", "3v0", "--to", "core")

    # the script holds one invalid JSON, one answer with two queries and one copied story
    done = cobe(
        "curate",
        "augment",
        str(proj),
        "--model",
        f"mock/file:{SCRIPT}",
        "--per-core",
        "2",
        "--concurrency",
        "1",
        "--max-attempts",
        "3",
    )
    assert "added 6 variation(s)" in done.stdout
    assert "invalid_json 1" in done.stdout and "near_duplicate 1" in done.stdout
    assert "wrong_query_count 1" in done.stdout

    db = sqlite3.connect(proj / "project.sqlite")
    stories = [json.loads(r[0])["story"] for r in db.execute("SELECT data FROM items")]
    assert len(stories) == len(set(stories)) == 9  # the copied story never entered the set
    lineage = db.execute("SELECT parent_id, model, prompt_fingerprint FROM items WHERE id = '2v1'").fetchone()
    assert lineage[0] == "2v0" and lineage[1].startswith("mock/file:") and len(lineage[2]) == 12

    checked = cobe("curate", "check", str(proj), check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    cobe("curate", "reviewers", str(proj), "--add", "alice", "--add", "bob", "--admin", "boss")
    ids = [r[0] for r in db.execute("SELECT id FROM items ORDER BY core_id, variation")]
    for item_id in ids:
        cobe("curate", "review", str(proj), item_id, "--reviewer", "alice", "--approve", "--comment", "fine")
    for item_id in ids[:-1]:
        assert "approved" in cobe("curate", "review", str(proj), item_id, "--reviewer", "bob", "--approve").stdout
    last = ids[-1]
    assert (
        "disagreement"
        in cobe(
            "curate",
            "review",
            str(proj),
            last,
            "--reviewer",
            "bob",
            "--reject",
            "--comment",
            "the change facts are vague",
        ).stdout
    )
    assert last in cobe("curate", "disagreements", str(proj)).stdout
    cobe("curate", "resolve", str(proj), last, "--admin", "boss", "--reject", "--reason", "criteria too vague")

    audit = cobe("curate", "audit", str(proj), "--n", "4", "--seed", "0", "--experts", "2").stdout
    assert "audit 1: 4 item(s)" in audit
    sample = [r[0] for r in db.execute("SELECT item_id FROM audit_items WHERE audit_id = 1")]
    ratings = tmp_path / "ratings.csv"
    with ratings.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["expert", "item_id", "coherence", "grammar", "validity", "diversity", "feedback"])
        for k, expert in enumerate(["a1-expert1", "a1-expert2"]):
            for item_id in sample:
                writer.writerow([expert, item_id, 5 - k, 4, 3 + k, "", ""])
            writer.writerow([expert, "", "", "", "", 4, "good spread of domains"])
    cobe("curate", "audit-import", str(proj), str(ratings))
    summary = json.loads(cobe("curate", "audit-summary", str(proj), "--json").stdout)
    assert summary["scales"]["coherence"]["mean"] == 4.5
    assert summary["per_expert"]["a1-expert1"]["validity"] == {"n": 4, "mean": 3.0, "std": 0.0}

    released = cobe("curate", "release", str(proj), "--out", str(out), "--public-share", "0.1", "--seed", "0")
    assert "released 5 item(s)" in released.stdout
    # the paper releases variations only: the three approved core examples (v0) stay behind
    assert "not released: 3 core example(s) (v0): 1v0, 2v0, 3v0" in released.stdout

    sheet = json.loads((out / "datasheet.json").read_text())
    assert sheet["pipeline"]["augment_rejects"] == {
        "invalid_json": 1,
        "schema": 0,
        "wrong_query_count": 1,
        "near_duplicate": 1,
        "call_error": 0,
    }
    assert sheet["pipeline"]["candidates"] == 3 and sheet["pipeline"]["generated"] == 6
    assert sheet["pipeline"]["rejected_in_review"] == 1 and sheet["pipeline"]["released"] == 5
    assert sheet["stats"]["scenarios"] == 5 and sheet["stats"]["core_examples"] == 3
    markdown = (out / "datasheet.md").read_text()
    for line in (
        "| — invalid JSON | 1 |",
        "| — wrong number of queries | 1 |",
        "| — near-duplicate story | 1 |",
        "| released | 5 |",
        "good spread of domains",
    ):
        assert line in markdown

    split = json.loads((out / "split.json").read_text())
    side = {i: "public" for i in split["public"]} | {i: "private" for i in split["private"]}
    by_core: dict[str, set[str]] = {}
    for item_id, where in side.items():
        by_core.setdefault(item_id.split("v")[0], set()).add(where)
    assert all(len(sides) == 1 for sides in by_core.values()) and split["public"]

    for name in ("cobe.jsonl", "cobe.paper.json", "cobe.site.json", "public.jsonl", "private.jsonl"):
        result = cobe("data", "validate", "--strict", str(out / name), check=False)
        assert result.returncode == 0, result.stdout + result.stderr

    run = cobe(
        "eval",
        "--model",
        "baseline/illustrative",
        "--judge",
        "mock/judge-pass",
        "--data",
        str(out / "cobe.jsonl"),
        "--run-dir",
        str(tmp_path / "run"),
        cwd=tmp_path,
    )
    assert "100.0 ± 0.0" in run.stdout

    # after the release, the check finds no leakage and each released item carries its history
    assert "leakage" not in cobe("curate", "check", str(proj), check=False).stdout
    history = cobe("curate", "show", str(proj), "1v1").stdout
    assert "variation -> approved by review:alice+bob" in history and "approved -> released" in history
