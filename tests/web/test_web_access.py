"""Links and sessions over SQLite: idle and absolute expiry, rotation and revocation end sessions at once."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from cobe.core.errors import InputError
from cobe.web.access import SESSION_ABSOLUTE, SESSION_IDLE, Access, AccessTables, SessionPolicy
from cobe.web.tokens import hash_token


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript(
        "CREATE TABLE people (name TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, revoked_at TEXT);"
        "CREATE TABLE sessions (id_hash TEXT PRIMARY KEY, person TEXT NOT NULL, created_at TEXT NOT NULL,"
        " last_seen_at TEXT);"
        f"INSERT INTO people VALUES ('ann', '{hash_token('ann-token')}', NULL), ('bo', '{hash_token('bo-token')}', NULL);"
    )
    return conn


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def access(clock: Clock) -> Access:
    return Access(AccessTables(principals="people", key="name", owner="person"), clock=clock)


def test_the_documented_policy() -> None:
    assert [SESSION_IDLE.days, SESSION_ABSOLUTE.days] == [7, 30]
    with pytest.raises(ValueError, match="idle <= absolute"):
        SessionPolicy(idle=timedelta(days=2), absolute=timedelta(days=1))


def test_a_session_ends_after_a_quiet_week(db, clock, access) -> None:
    session = access.start_session(db, "ann")
    clock.advance(days=6, hours=23)
    assert access.session_holder(db, session) == "ann"  # used: the idle time starts again
    clock.advance(days=6, hours=23)
    assert access.session_holder(db, session) == "ann"
    clock.advance(days=7)
    assert access.session_holder(db, session) is None
    assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 0  # an expired session is deleted


def test_a_session_used_every_day_still_ends_after_thirty_days(db, clock, access) -> None:
    session = access.start_session(db, "ann")
    for _ in range(29):
        clock.advance(days=1)
        assert access.session_holder(db, session) == "ann"
    clock.advance(days=1)
    assert access.session_holder(db, session) is None


def test_browsing_writes_last_seen_at_most_once_a_minute(db, clock, access) -> None:
    session = access.start_session(db, "ann")
    first = db.execute("SELECT last_seen_at FROM sessions").fetchone()[0]
    clock.advance(seconds=30)
    access.session_holder(db, session)
    assert db.execute("SELECT last_seen_at FROM sessions").fetchone()[0] == first
    clock.advance(seconds=31)
    access.session_holder(db, session)
    assert db.execute("SELECT last_seen_at FROM sessions").fetchone()[0] == "2026-03-01T09:01:01Z"


def test_rotation_replaces_the_link_and_ends_its_sessions_only(db, access) -> None:
    ann, bo = access.start_session(db, "ann"), access.start_session(db, "bo")
    new = access.issue_link(db, "ann")
    assert access.holder(db, "ann-token") is None and access.holder(db, new) == "ann"
    assert access.session_holder(db, ann) is None and access.session_holder(db, bo) == "bo"
    with pytest.raises(InputError, match="no one with name 'zed'"):
        access.issue_link(db, "zed")


def test_revocation_disables_the_link_until_the_next_rotation(db, clock, access) -> None:
    session = access.start_session(db, "ann")
    access.revoke_link(db, "ann")
    access.revoke_link(db, "bo")  # two revoked rows still satisfy UNIQUE(token_hash)
    assert access.holder(db, "ann-token") is None and access.session_holder(db, session) is None
    assert access.revoked(db) == {"ann": "2026-03-01T09:00:00Z", "bo": "2026-03-01T09:00:00Z"}
    new = access.issue_link(db, "ann")
    assert access.holder(db, new) == "ann" and "ann" not in access.revoked(db)


def test_sessions_from_before_expiry_existed_follow_the_policy(db, clock, access) -> None:
    # rows written before the migration: another time format, no last_seen_at
    old, fresh = hash_token("old-session"), hash_token("fresh-session")
    db.execute("INSERT INTO sessions VALUES (?, 'ann', '2026-01-01T09:00:00+00:00', NULL)", (old,))
    db.execute("INSERT INTO sessions VALUES (?, 'bo', '2026-02-28T09:00:00+00:00', NULL)", (fresh,))
    db.execute("INSERT INTO sessions VALUES ('garbled', 'bo', 'yesterday', NULL)")
    assert access.session_holder(db, "old-session") is None
    assert access.session_holder(db, "fresh-session") == "bo"
    access.start_session(db, "ann")  # signing in sweeps what has expired
    assert {r[0] for r in db.execute("SELECT id_hash FROM sessions")} >= {fresh}
    assert db.execute("SELECT COUNT(*) FROM sessions WHERE id_hash = 'garbled'").fetchone()[0] == 0


def test_table_names_must_be_plain_identifiers() -> None:
    with pytest.raises(ValueError, match="plain SQL identifier"):
        AccessTables(principals="people; DROP TABLE people", key="name", owner="person")
