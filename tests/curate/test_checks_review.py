"""Automatic checks, the two-reviewer rule and the admin's resolution."""

from __future__ import annotations

import pytest

from cobe.core.errors import InputError
from cobe.curate import add_reviewer, disagreements, record_review, resolve, run_checks
from cobe.curate.checks import stored_results
from cobe.curate.neardup import NearDupIndex, near_duplicate_pairs
from cobe.dataset import load_dataset
from support.curate_project import CORES


def test_near_duplicates_by_fuzz_and_by_minhash() -> None:
    stories = {
        "a": "The cat sat on the warm mat by the door.",
        "b": "The cat sat on the warm mat by the door!",
        "c": "A storm closed the harbour for two days.",
    }
    assert [(x, y) for x, y, _ in near_duplicate_pairs(stories)] == [("a", "b")]
    index = NearDupIndex(use_lsh=True)
    for key, text in stories.items():
        if key != "b":
            index.add(key, text)
    assert index.find(stories["b"]).other_id == "a"
    assert index.find("Completely unrelated words about trains and tickets.") is None


def test_checks_report_schema_duplicates_and_leakage(project) -> None:
    core = load_dataset(CORES).get("1v0")
    copy = core.model_copy(update={"id": "1v1", "variation": 1, "queries": ["Rewrite it.", *core.queries[1:]]})
    short = core.model_copy(
        update={
            "id": "9v0",
            "core_id": 9,
            "variation": 0,
            "story": "Other words entirely here.",
            "queries": core.queries[:2],
        }
    )
    project.add_item(short, status="candidate", source="test", actor="test")
    project.add_item(copy, status="variation", source="test", actor="test", parent_id="1v0")
    with project.transaction() as conn:  # a split that put one core example on both sides
        conn.execute("INSERT INTO splits VALUES ('1v0', 'public', 1), ('1v1', 'private', 1)")
    found = {str(f) for f in run_checks(project)}
    assert "9v0: template: queries: expected 3 queries (phrasings A, B, C), found 2" in found
    assert (
        "1v1: template: queries[0]: query follows none of the phrasings A, B, C in its words; labelled A by its place"
        in found
    )
    assert any(f.startswith("1v1: near_duplicate: story 100% like item 1v0") for f in found)
    assert "1v0: leakage: core example 1 has items in both public and private" in found
    stored = {r["check_name"]: r for r in stored_results(project, "2v0")}
    assert stored["schema"]["ok"] == 1 and stored["leakage"]["reason"] == "ok"


def test_self_consistency_with_a_judge(project) -> None:
    found = [str(f) for f in run_checks(project, judge="mock/judge-pass") if f.check == "self_consistency"]
    assert found == [
        f"{i}: self_consistency: the unchanged story already satisfies the change criterion"
        for i in ("1v0", "2v0", "3v0")
    ]
    failing = [str(f) for f in run_checks(project, judge="mock/judge-fail") if f.item_id == "1v0"]
    assert "1v0: self_consistency: illustrative answer fails the preserve check" in failing


def test_two_reviewers_must_agree_and_the_admin_resolves(project) -> None:
    for name in ("alice", "bob", "carol"):
        add_reviewer(project, name)
    add_reviewer(project, "boss", role="admin")
    assert record_review(project, "1v0", "alice", "approve") == "pending"
    with pytest.raises(InputError, match="alice has already reviewed it"):
        record_review(project, "1v0", "alice", "reject")
    assert record_review(project, "1v0", "bob", "approve") == "approved"
    assert record_review(project, "2v0", "alice", "reject") == "pending"
    assert record_review(project, "2v0", "bob", "reject") == "rejected"
    record_review(project, "3v0", "alice", "approve")
    assert record_review(project, "3v0", "bob", "reject", "vague") == "disagreement"
    with pytest.raises(InputError, match="already has 2 reviews"):
        record_review(project, "3v0", "carol", "approve")
    assert [i.id for i in disagreements(project)] == ["3v0"]
    with pytest.raises(InputError, match="needs a reason"):
        resolve(project, "3v0", "boss", "approve", " ")
    assert resolve(project, "3v0", "boss", "approve", "clear enough") == "approved"
    assert disagreements(project) == []
    with pytest.raises(InputError, match="not an open disagreement"):
        resolve(project, "1v0", "boss", "reject", "changed my mind")
    with pytest.raises(InputError, match="already exists"):
        add_reviewer(project, "alice")


def test_nobody_reviews_or_resolves_their_own_contribution(project) -> None:
    from cobe.curate import submit_contribution
    from cobe.curate.review import contribution_actor

    for name in ("alice", "bob", "carol"):
        add_reviewer(project, name)
    add_reviewer(project, "boss", role="admin")
    core = load_dataset(CORES).get("1v0")
    form = {
        "domain": core.domain,
        "story": "A kettle boiled over on the stove. The floor got wet, so Ana mopped it.",
        "intervention": "the kettle had been switched off in time",
        "illustrative_answer": "The kettle was switched off in time. The floor stayed dry.",
        "preserve": "A kettle was on the stove.",
        "change": "The floor got wet.",
    }
    added, problems = submit_contribution(project, form, actor=contribution_actor("alice"))
    assert problems == [] and added == "4v0"
    project.set_status("4v0", "core", actor="test", is_core=True)
    variation = project.item("4v0").scenario.model_copy(update={"id": "4v1", "variation": 1})
    project.add_item(variation, status="variation", source="augment", actor="augment", parent_id="4v0")
    for item_id in ("4v0", "4v1"):
        with pytest.raises(InputError, match=f"item {item_id}: alice contributed it"):
            record_review(project, item_id, "alice", "approve")
    # a boss who contributed may not settle a disagreement on it either
    boss_form = form | {"story": "A bell rang at dawn. The monks woke, so the bread was baked early."}
    boss_form |= {"intervention": "the bell had stayed silent", "change": "The monks woke."}
    boss_item, _ = submit_contribution(project, boss_form, actor=contribution_actor("boss"))
    project.set_status(boss_item, "core", actor="test", is_core=True)
    record_review(project, boss_item, "bob", "approve")
    assert record_review(project, boss_item, "carol", "reject") == "disagreement"
    with pytest.raises(InputError, match="boss contributed it"):
        resolve(project, boss_item, "boss", "approve", "fine")
    assert record_review(project, "4v0", "bob", "approve") == "pending"


def test_only_reviewers_review_and_only_admins_resolve(project) -> None:
    add_reviewer(project, "alice")
    add_reviewer(project, "bob")
    add_reviewer(project, "boss", role="admin")
    with pytest.raises(InputError, match="boss is an admin, not a reviewer"):
        record_review(project, "1v0", "boss", "approve")
    record_review(project, "1v0", "alice", "approve")
    record_review(project, "1v0", "bob", "reject")
    for actor in ("alice", "nobody"):
        with pytest.raises(InputError, match=f"'{actor}' is not an admin"):
            resolve(project, "1v0", actor, "approve", "looks fine")


def test_the_cli_refuses_an_admin_reviewer_in_one_line(project, capsys) -> None:
    from cobe.cli.main import main

    add_reviewer(project, "boss", role="admin")
    with pytest.raises(SystemExit) as exit_info:
        main(["curate", "review", str(project.root), "1v0", "--reviewer", "boss", "--approve"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.startswith("error: boss is an admin, not a reviewer")
    assert len(err.strip().splitlines()) == 1
    assert project.conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0] == 0
