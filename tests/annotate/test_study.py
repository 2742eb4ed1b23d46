"""Study creation: stratified, seeded sampling; per-rater shuffles; tokens stored only as hashes."""

from __future__ import annotations

import sqlite3

import pytest

from cobe.annotate.store import StudyStore
from cobe.annotate.study import allocate, create_study, rotate_links, sample_rows
from cobe.core.errors import InputError
from cobe.core.results import ResultRow

from .synthetic import make_row, write_run


def rows_for(counts: dict[str, int]) -> list[ResultRow]:
    rows, index = [], 0
    for model, count in counts.items():
        for _ in range(count):
            rows.append(ResultRow.model_validate(make_row(index, model)))
            index += 1
    return rows


def test_allocation_is_proportional_and_exact():
    assert allocate({"a": 60, "b": 30, "c": 10}, 10) == {"a": 6, "b": 3, "c": 1}
    assert sum(allocate({"a": 7, "b": 7, "c": 7}, 10).values()) == 10
    assert allocate({"a": 2, "b": 1}, 50) == {"a": 2, "b": 1}


def test_sample_is_stratified_seeded_and_order_free():
    rows = rows_for({"m/a": 120, "m/b": 60, "m/c": 20})
    sample = sample_rows(rows, 50, seed=0)
    per_model = {m: sum(r.model == m for r in sample) for m in ("m/a", "m/b", "m/c")}
    assert per_model == {"m/a": 30, "m/b": 15, "m/c": 5}
    assert [r.scenario_id for r in sample] == [r.scenario_id for r in sample_rows(list(reversed(rows)), 50, seed=0)]
    assert [r.scenario_id for r in sample] != [r.scenario_id for r in sample_rows(rows, 50, seed=1)]


def test_rows_without_response_are_never_sampled(small_run):
    from cobe.annotate.study import read_results

    sample = sample_rows(read_results(small_run), 100, seed=0)
    assert len(sample) == 6 and all(r.response for r in sample)


def test_study_stores_hashes_only_and_shuffles_per_rater(small_run, tmp_path):
    links = create_study(small_run, n=6, seed=0, raters=3, models="all")
    assert links.path == small_run / "study" / "study.sqlite"
    tokens = [url.rsplit("/", 1)[1] for url in [*links.raters.values(), links.admin]]
    assert len(set(tokens)) == 4 and all(len(t) >= 43 for t in tokens)
    raw = b"".join(p.read_bytes() for p in links.path.parent.glob("study.sqlite*"))
    assert not any(t.encode() in raw for t in tokens)
    store = StudyStore(links.path)
    orders = [store.assignment(p.id) for p in store.principals() if p.role == "rater"]
    assert all(sorted(o) == sorted(orders[0]) for o in orders) and len({tuple(o) for o in orders}) > 1
    with pytest.raises(InputError, match="a study already exists here"):
        create_study(small_run, n=6, seed=0, raters=3, models="all")


def test_rotate_unknown_person_and_bad_inputs(small_study, tmp_path):
    with pytest.raises(InputError, match="no such rater or admin in this study: rater-9"):
        rotate_links(small_study.path, who=["rater-9"])
    with pytest.raises(InputError, match="no results file"):
        create_study(tmp_path, tmp_path / "s2")
    with pytest.raises(InputError, match="no rating study found"):
        StudyStore(tmp_path / "nowhere")
    bad = write_run(tmp_path / "bad", [])
    (bad / "results.jsonl").write_text('{"run_id": "x"}\n')
    with pytest.raises(InputError, match=r"results.jsonl:1: field model"):
        create_study(bad)


def test_concurrent_writers_never_lose_answers(small_study):
    """Two raters saving at once from many threads: every answer lands, in its own row."""
    from concurrent.futures import ThreadPoolExecutor

    store = StudyStore(small_study.path)
    raters = [p for p in store.principals() if p.role == "rater"]
    jobs = [(r.id, item, label) for r in raters for item in store.assignment(r.id) for label in ("Yes", "No")]
    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(lambda job: store.save_rating(job[0], job[1], job[2], f"by {job[0]}"), jobs))
    ratings = store.all_ratings()
    assert len(ratings) == 12 and all(r.comment == f"by {1 if r.rater == 'rater-1' else 2}" for r in ratings)
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def tiered_run(tmp_path):
    """Two models, each answering tier 1 (A) and tier 2 (D) on eight scenarios."""
    rows = []
    for model in ("mock/a", "mock/b"):
        for template, tier in (("A", 1), ("D", 2)):
            for i in range(8):
                row = make_row(i, model, template=template)
                row["tier"] = tier
                rows.append(row)
    return write_run(tmp_path / "run", rows)


def test_study_can_be_one_model_and_tier_one(tmp_path):
    """The paper's design: responses of one model to the dataset's own queries."""
    links = create_study(tiered_run(tmp_path), tmp_path / "s", n=5, seed=0, raters=3, models=["mock/b"], tier=1)
    items = StudyStore(links.path).items()
    assert links.per_model == {"mock/b": 5} and len(items) == 5
    assert {item.model for item in items} == {"mock/b"} and {item.template for item in items} == {"A"}
    store = StudyStore(links.path)
    assert (store.meta("models"), store.meta("tier")) == ("mock/b", "1")
    # every model (asked for) and every tier is in the pool without the restrictions
    everything = create_study(tiered_run(tmp_path / "all"), tmp_path / "s2", n=32, seed=0, models="all")
    assert everything.per_model == {"mock/a": 16, "mock/b": 16}
    assert StudyStore(everything.path).meta("models") == "all"


def test_a_run_of_several_models_asks_for_one_unless_all(tmp_path):
    """The paper rates 250 responses of one model: a mixed sample must be asked for by name."""
    run = tiered_run(tmp_path)
    with pytest.raises(InputError, match=r"the run holds 2 models \(mock/a, mock/b\); .*choose one with --model, or "):
        create_study(run, tmp_path / "s")
    assert not (tmp_path / "s").exists()  # refused before any study file is written
    one = write_run(tmp_path / "one", [make_row(i, "mock/a") for i in range(4)])
    assert create_study(one, tmp_path / "s1", n=4, seed=0).per_model == {"mock/a": 4}  # one model: no flag needed


def test_restriction_that_matches_nothing_is_one_clear_error(tmp_path):
    run = tiered_run(tmp_path)
    with pytest.raises(InputError, match=r"--model mock/z: not in the run \(models in the run: mock/a, mock/b\)"):
        create_study(run, tmp_path / "s", models=["mock/z"])
    with pytest.raises(InputError, match=r"--tier 3: the run has no responses of that tier .*\(tiers: 1, 2\)"):
        create_study(run, tmp_path / "s", models=["mock/a"], tier=3)
