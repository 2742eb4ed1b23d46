"""Private links and the sessions they open, kept in an app's own SQLite tables: one policy for both web apps.

The policy (docs/WEB.md says the same for operators):
- a private link is the long-lived credential. It works until it is rotated (a new link replaces it) or
  revoked (no link at all until the next rotation); either ends every session it opened, at once;
- a session (the cookie a link sets) ends after SESSION_IDLE without a request and SESSION_ABSOLUTE after
  sign-in, whichever comes first. Opening the link again starts a fresh session, so short limits cost a
  rater one click, while a cookie left on a shared computer stops working within a week.

Standard library only: the CLI rotates and revokes links without loading the web framework.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from cobe.core.clock import parse, stamp
from cobe.core.errors import InputError
from cobe.web.tokens import hash_token, new_token, token_matches

SESSION_IDLE = timedelta(days=7)  # a week without a request: a rater pausing over a weekend is not signed out
SESSION_ABSOLUTE = timedelta(days=30)  # long enough for one study or review round, never forever
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")

Key = int | str  # a principal's key: the rating study's principals.id, the review app's reviewers.name
Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The current time in UTC (the default clock; tests pass their own)."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class SessionPolicy:
    """How long a session lives: `idle` since its last request, `absolute` since sign-in."""

    idle: timedelta = SESSION_IDLE
    absolute: timedelta = SESSION_ABSOLUTE
    # last_seen_at is rewritten at most this often, so browsing does not write to the database on every page
    touch_every: timedelta = timedelta(minutes=1)

    def __post_init__(self) -> None:
        if not timedelta(0) < self.idle <= self.absolute:
            raise ValueError(
                f"session limits: expected 0 < idle <= absolute, got idle {self.idle}, absolute {self.absolute}"
            )

    def alive(self, created: datetime, last_seen: datetime, now: datetime) -> bool:
        """Whether a session signed in at `created` and last used at `last_seen` is still valid at `now`."""
        return now - created < self.absolute and now - last_seen < self.idle


@dataclass(frozen=True)
class AccessTables:
    """Where an app keeps its people and their sessions. The columns the tables must have:
    `<principals>(<key>, token_hash TEXT NOT NULL, revoked_at TEXT)` and
    `<sessions>(id_hash TEXT PRIMARY KEY, <owner> REFERENCES <principals>(<key>), created_at TEXT, last_seen_at TEXT)`.
    """

    principals: str
    key: str
    owner: str
    sessions: str = "sessions"

    def __post_init__(self) -> None:
        # the names are pasted into SQL, so only plain identifiers written in code are accepted
        for name in (self.principals, self.key, self.owner, self.sessions):
            if not _IDENTIFIER.fullmatch(name):
                raise ValueError(f"{name!r} is not a plain SQL identifier")


class Access:
    """Link rotation and revocation, and sessions with expiry, over one app's tables.

    Every method takes the caller's connection; the two-statement ones (`issue_link`, `revoke_link`)
    belong inside the caller's transaction so a link and its sessions change together.
    """

    def __init__(self, tables: AccessTables, policy: SessionPolicy | None = None, clock: Clock = utc_now) -> None:
        self.tables = tables
        self.policy = policy or SessionPolicy()
        self.clock = clock

    # ---- links -------------------------------------------------------------------------
    def issue_link(self, conn: sqlite3.Connection, key: Key) -> str:
        """A new token for `key` (shown once, stored as a hash); the old link and all its sessions stop working."""
        t = self.tables
        token = new_token()
        updated = conn.execute(
            f"UPDATE {t.principals} SET token_hash = ?, revoked_at = NULL WHERE {t.key} = ?", (hash_token(token), key)
        )
        if updated.rowcount != 1:
            raise InputError(f"no one with {t.key} {key!r} in {t.principals}")
        self.end_sessions(conn, key)
        return token

    def revoke_link(self, conn: sqlite3.Connection, key: Key) -> None:
        """Disable `key`'s link and end its sessions; only `issue_link` lets them in again."""
        t = self.tables
        # the hash of a token nobody is given: token_hash stays NOT NULL and UNIQUE, and nothing matches it
        updated = conn.execute(
            f"UPDATE {t.principals} SET token_hash = ?, revoked_at = ? WHERE {t.key} = ?",
            (hash_token(new_token()), stamp(self.clock()), key),
        )
        if updated.rowcount != 1:
            raise InputError(f"no one with {t.key} {key!r} in {t.principals}")
        self.end_sessions(conn, key)

    def holder(self, conn: sqlite3.Connection, token: str) -> Key | None:
        """Whose link this token is (None for unknown or revoked links); every stored hash is compared."""
        t = self.tables
        rows = conn.execute(f"SELECT {t.key}, token_hash FROM {t.principals} WHERE revoked_at IS NULL").fetchall()
        found: Key | None = None
        for key, token_hash in rows:  # no early exit: the time taken does not depend on which row matched
            if token_matches(token, token_hash):
                found = key
        return found

    def revoked(self, conn: sqlite3.Connection) -> dict[Key, str]:
        """Keys whose link is revoked, with when."""
        t = self.tables
        rows = conn.execute(f"SELECT {t.key}, revoked_at FROM {t.principals} WHERE revoked_at IS NOT NULL")
        return {key: at for key, at in rows.fetchall()}

    # ---- sessions ----------------------------------------------------------------------
    def start_session(self, conn: sqlite3.Connection, key: Key) -> str:
        """A fresh session id for a cookie (only its hash is stored); expired sessions are swept first."""
        t = self.tables
        now = self.clock()
        self._sweep(conn, now)
        session_id = new_token()
        conn.execute(
            f"INSERT INTO {t.sessions} (id_hash, {t.owner}, created_at, last_seen_at) VALUES (?, ?, ?, ?)",
            (hash_token(session_id), key, stamp(now), stamp(now)),
        )
        return session_id

    def session_holder(self, conn: sqlite3.Connection, session_id: str) -> Key | None:
        """Whose live session this is; an expired one is deleted and gives None, a live one is marked as used."""
        t = self.tables
        id_hash = hash_token(session_id)
        row = conn.execute(
            f"SELECT s.{t.owner}, s.created_at, s.last_seen_at FROM {t.sessions} s"
            f" JOIN {t.principals} p ON p.{t.key} = s.{t.owner} WHERE s.id_hash = ? AND p.revoked_at IS NULL",
            (id_hash,),
        ).fetchone()
        if row is None:
            return None
        key: Key = row[0]
        created_text, seen_text = row[1], row[2]
        now = self.clock()
        # an unreadable stamp can only end a session, never keep one alive
        created, seen = parse(created_text), parse(seen_text or created_text)
        if created is None or seen is None or not self.policy.alive(created, seen, now):
            conn.execute(f"DELETE FROM {t.sessions} WHERE id_hash = ?", (id_hash,))
            return None
        if now - seen >= self.policy.touch_every:
            conn.execute(f"UPDATE {t.sessions} SET last_seen_at = ? WHERE id_hash = ?", (stamp(now), id_hash))
        return key

    def end_session(self, conn: sqlite3.Connection, session_id: str) -> None:
        """Forget one session (sign out)."""
        conn.execute(f"DELETE FROM {self.tables.sessions} WHERE id_hash = ?", (hash_token(session_id),))

    def end_sessions(self, conn: sqlite3.Connection, key: Key) -> None:
        """Forget every session of one person."""
        t = self.tables
        conn.execute(f"DELETE FROM {t.sessions} WHERE {t.owner} = ?", (key,))

    def _sweep(self, conn: sqlite3.Connection, now: datetime) -> None:
        t = self.tables
        rows = conn.execute(f"SELECT id_hash, created_at, last_seen_at FROM {t.sessions}").fetchall()
        dead = []
        for id_hash, created_text, seen_text in rows:
            created, seen = parse(created_text), parse(seen_text or created_text)
            if created is None or seen is None or not self.policy.alive(created, seen, now):
                dead.append((id_hash,))
        conn.executemany(f"DELETE FROM {t.sessions} WHERE id_hash = ?", dead)
