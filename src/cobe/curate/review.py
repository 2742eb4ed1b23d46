"""Two-reviewer approval: reviewers, their decisions, disagreements and the admin's resolutions.

Nobody reviews or resolves their own contribution: an item sent through the web form records
`form:<name>` as the actor of its first event, and that person may neither review it nor any
variation generated from it. The rule lives here, so the web app and the CLI share it.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from cobe.core.errors import InputError
from cobe.curate.project import REVIEWABLE, Item, Project, now
from cobe.web.tokens import hash_token, new_token

REVIEWS_NEEDED = 2
DECISIONS = ("approve", "reject")
ROLES = ("reviewer", "admin", "expert")  # experts only rate audit samples
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")


@dataclass(frozen=True)
class Reviewer:
    """A person with a private link: a reviewer, or the admin who resolves disagreements."""

    name: str
    role: str  # reviewer | admin | expert


def add_reviewer(project: Project, name: str, role: str = "reviewer") -> str:
    """Register a reviewer (or admin) and return their token; only its hash is stored."""
    if not _NAME.match(name):
        raise InputError(f"reviewer name {name!r}: use 1-40 letters, digits, '.', '_' or '-'")
    if role not in ROLES:
        raise InputError(f"role {role!r}: expected one of {', '.join(ROLES)}")
    token = new_token()
    try:
        with project.transaction() as conn:
            conn.execute(
                "INSERT INTO reviewers (name, token_hash, role, created_at) VALUES (?,?,?,?)",
                (name, hash_token(token), role, now()),
            )
    except sqlite3.IntegrityError:
        raise InputError(f"{project.root}: reviewer {name!r} already exists") from None
    return token


def reviewers(project: Project) -> list[Reviewer]:
    """Everyone registered, admins included."""
    rows = project.conn.execute("SELECT name, role FROM reviewers ORDER BY name").fetchall()
    return [Reviewer(r["name"], r["role"]) for r in rows]


def reviewer_named(project: Project, name: str) -> Reviewer | None:
    """The registered person with this name, if any."""
    row = project.conn.execute("SELECT name, role FROM reviewers WHERE name = ?", (name,)).fetchone()
    return None if row is None else Reviewer(row["name"], row["role"])


def _reviewer(project: Project, name: str) -> Reviewer:
    found = reviewer_named(project, name)
    if found is None:
        raise InputError(
            f"{project.root}: no reviewer named {name!r}; add one with `cobe curate reviewers {project.root} --add {name}`"
        )
    return found


def contribution_actor(name: str) -> str:
    """The actor recorded on an item contributed through the web form by `name`."""
    return f"form:{name}"


def contributed_by(conn: sqlite3.Connection, name: str) -> set[str]:
    """Ids of the items `name` contributed, and of every variation generated from them."""
    rows = conn.execute(
        "WITH RECURSIVE own(id) AS ("
        " SELECT item_id FROM events WHERE actor = ? AND from_status IS NULL"
        " UNION SELECT i.id FROM items i JOIN own ON i.parent_id = own.id"
        ") SELECT id FROM own",
        (contribution_actor(name),),
    ).fetchall()
    return {row[0] for row in rows}


def _not_own(conn: sqlite3.Connection, item_id: str, name: str) -> None:
    if item_id in contributed_by(conn, name):
        raise InputError(
            f"item {item_id}: {name} contributed it (or the example it was generated from); someone else must decide on it"
        )


def reviews_of(project: Project, item_id: str) -> list[sqlite3.Row]:
    """The reviews of one item, oldest first."""
    return project.conn.execute("SELECT * FROM reviews WHERE item_id = ? ORDER BY at, reviewer", (item_id,)).fetchall()


def record_review(project: Project, item_id: str, reviewer: str, decision: str, comment: str = "") -> str:
    """Record one reviewer's decision; returns the outcome: pending, approved, rejected or disagreement."""
    if decision not in DECISIONS:
        raise InputError(f"decision {decision!r}: expected approve or reject")
    who = _reviewer(project, reviewer)
    if who.role == "expert":
        raise InputError(f"{who.name} is an audit expert, not a reviewer")
    if who.role == "admin":
        raise InputError(
            f"{who.name} is an admin, not a reviewer; admins resolve disagreements (`cobe curate resolve`)"
        )
    with project.transaction() as conn:
        _not_own(conn, item_id, who.name)
        row = conn.execute("SELECT status FROM items WHERE id = ?", (item_id,)).fetchone()
        if row is None:
            raise InputError(f"{project.root}: no item with id {item_id!r}")
        if row["status"] not in REVIEWABLE:
            raise InputError(f"item {item_id}: is {row['status']}; only core examples and variations are reviewed")
        done = conn.execute("SELECT reviewer, decision FROM reviews WHERE item_id = ?", (item_id,)).fetchall()
        if any(r["reviewer"] == who.name for r in done):
            raise InputError(f"item {item_id}: {who.name} has already reviewed it")
        if len(done) >= REVIEWS_NEEDED:
            raise InputError(f"item {item_id}: already has {REVIEWS_NEEDED} reviews")
        conn.execute(
            "INSERT INTO reviews (item_id, reviewer, decision, comment, at) VALUES (?,?,?,?,?)",
            (item_id, who.name, decision, comment, now()),
        )
        decisions = [r["decision"] for r in done] + [decision]
        if len(decisions) < REVIEWS_NEEDED:
            return "pending"
        names = "+".join(sorted([r["reviewer"] for r in done] + [who.name]))
        if all(d == "approve" for d in decisions):
            project._move(conn, item_id, "approved", actor=f"review:{names}", reason="both reviewers approved")
            return "approved"
        if all(d == "reject" for d in decisions):
            project._move(conn, item_id, "rejected", actor=f"review:{names}", reason="both reviewers rejected")
            return "rejected"
        return "disagreement"


def disagreements(project: Project) -> list[Item]:
    """Items whose two reviewers disagree and that no admin has resolved yet."""
    rows = project.conn.execute(
        "SELECT item_id FROM reviews GROUP BY item_id HAVING COUNT(*) >= ? AND COUNT(DISTINCT decision) > 1"
        " AND item_id NOT IN (SELECT item_id FROM resolutions)",
        (REVIEWS_NEEDED,),
    ).fetchall()
    return [project.item(r["item_id"]) for r in rows]


def resolve(project: Project, item_id: str, actor: str, decision: str, reason: str) -> str:
    """The admin's recorded decision on a disagreement; returns the new status."""
    admin = reviewer_named(project, actor)
    if admin is None or admin.role != "admin":
        raise InputError(
            f"{project.root}: {actor!r} is not an admin; only an admin resolves disagreements"
            f" (register one with `cobe curate reviewers {project.root} --admin {actor}`)"
        )
    if decision not in DECISIONS:
        raise InputError(f"decision {decision!r}: expected approve or reject")
    if not reason.strip():
        raise InputError(f"item {item_id}: a resolution needs a reason")
    status = "approved" if decision == "approve" else "rejected"
    # checked inside the write transaction: two admins resolving one item at once queue there, and the second
    # finds the first one's resolution, instead of both passing the check and the second's insert failing
    with project.transaction() as conn:
        done = conn.execute("SELECT actor, decision FROM resolutions WHERE item_id = ?", (item_id,)).fetchone()
        if done is not None:
            raise InputError(f"item {item_id}: already resolved by {done['actor']} ({done['decision']})")
        if item_id not in {i.id for i in disagreements(project)}:
            raise InputError(f"item {item_id}: is not an open disagreement")
        _not_own(conn, item_id, actor)
        conn.execute(
            "INSERT INTO resolutions (item_id, actor, decision, reason, at) VALUES (?,?,?,?,?)",
            (item_id, actor, decision, reason, now()),
        )
        project._move(conn, item_id, status, actor=f"admin:{actor}", reason=f"resolved disagreement: {reason}")
    return status


def queue(project: Project, reviewer: str) -> list[Item]:
    """Items this reviewer may still review: reviewable, not their own, not reviewed by them, fewer than two reviews."""
    rows = project.conn.execute(
        f"SELECT id FROM items WHERE status IN ({','.join('?' * len(REVIEWABLE))})"
        " AND id NOT IN (SELECT item_id FROM reviews WHERE reviewer = ?)"
        " AND id IN (SELECT id FROM items i WHERE (SELECT COUNT(*) FROM reviews r WHERE r.item_id = i.id) < ?)"
        " ORDER BY core_id, variation",
        (*REVIEWABLE, reviewer, REVIEWS_NEEDED),
    ).fetchall()
    own = contributed_by(project.conn, reviewer)
    return [project.item(r["id"]) for r in rows if r["id"] not in own]


def review_counts(project: Project) -> dict[str, int]:
    """Counts for the datasheet: reviews, agreements, disagreements and resolutions."""
    one = project.conn.execute
    return {
        "reviews": one("SELECT COUNT(*) FROM reviews").fetchone()[0],
        "approved_by_both": one(
            "SELECT COUNT(*) FROM (SELECT item_id FROM reviews GROUP BY item_id"
            " HAVING COUNT(*) >= 2 AND MIN(decision) = 'approve' AND MAX(decision) = 'approve')"
        ).fetchone()[0],
        "rejected_by_both": one(
            "SELECT COUNT(*) FROM (SELECT item_id FROM reviews GROUP BY item_id"
            " HAVING COUNT(*) >= 2 AND MIN(decision) = 'reject' AND MAX(decision) = 'reject')"
        ).fetchone()[0],
        "disagreements": one(
            "SELECT COUNT(*) FROM (SELECT item_id FROM reviews GROUP BY item_id HAVING COUNT(DISTINCT decision) > 1)"
        ).fetchone()[0],
        "resolved": one("SELECT COUNT(*) FROM resolutions").fetchone()[0],
    }
