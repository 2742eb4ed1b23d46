"""The project database: migrations, statuses, lineage and events."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cobe.core.errors import InputError
from cobe.curate import init_project, open_project, promote
from cobe.curate.contributions import submit_contribution


def test_init_creates_a_wal_database_with_all_migrations(tmp_path: Path) -> None:
    init_project(tmp_path / "p").close()
    db = sqlite3.connect(tmp_path / "p" / "project.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # 0003_access.sql: session expiry and revocable links; 0004: unanswered audit questions stay missing
    assert [r[0] for r in db.execute("SELECT version FROM schema_migrations ORDER BY version")] == [1, 2, 3, 4]
    with pytest.raises(InputError, match="already a dataset project"):
        init_project(tmp_path / "p")
    with pytest.raises(InputError, match="not a dataset project"):
        open_project(tmp_path / "elsewhere")


def test_promotion_records_events_and_forbids_skipping_stages(project) -> None:
    events = project.events("1v0")
    assert [(e["from_status"], e["to_status"]) for e in events] == [(None, "candidate"), ("candidate", "core")]
    assert project.item("1v0").is_core
    with pytest.raises(InputError, match="only candidates can be promoted"):
        promote(project, ["1v0"])
    with pytest.raises(InputError, match="cannot move from core to released"):
        project.set_status("1v0", "released", actor="test")
    with pytest.raises(InputError, match="no item with id '9v9'"):
        project.item("9v9")


def test_form_contribution_uses_the_validator_messages(project) -> None:
    added, problems = submit_contribution(project, {"domain": "x", "intervention": "Maya had left early"}, "form:t")
    assert added is None
    assert "form: 4v0: story: required field is empty" in [str(p) for p in problems]
    added, problems = submit_contribution(project, {"domain": "x", "intervention": "left early"}, "form:t")
    assert added is None and problems[0].field == "intervention"
    added, problems = submit_contribution(
        project,
        {
            "domain": "work",
            "story": "Maya left early. She caught the bus home.",
            "intervention": "Maya had stayed late",
            "illustrative_answer": "Maya stayed late. She took a taxi home.",
            "preserve": "Maya went home.",
            "change": "Maya caught the bus home.",
            "graph": "{not json",
        },
        "form:t",
    )
    assert added is None and problems[0].field == "graph" and "invalid JSON" in problems[0].message
    added, problems = submit_contribution(
        project,
        {
            "domain": "work",
            "story": "Maya left early. She caught the bus home.",
            "intervention": "Maya had stayed late",
            "illustrative_answer": "Maya stayed late. She took a taxi home.",
            "preserve": "Maya went home.",
            "change": "Maya caught the bus home.",
        },
        "form:t",
    )
    assert added == "4v0" and problems == []
    item = project.item("4v0")
    assert item.status == "candidate" and item.scenario.queries[0].endswith("had Maya stayed late.")
