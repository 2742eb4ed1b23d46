"""Expert audit: a seeded sample of approved variations rated 1-5, blind to the criteria, and its summary.

The questions cover what the paper's audit rated (App. D.3), in our own words: does the story hang
together, is it written correctly, and is the request a sound what-if for the story; plus one rating
of the whole sample's diversity. A question the expert leaves unanswered is stored as missing (NULL), counted
in the summary, and never averaged as a score.
"""

from __future__ import annotations

import random
import sqlite3
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError
from cobe.core.jsonfile import read_csv
from cobe.curate.project import RELEASABLE, Item, Project, now
from cobe.curate.review import add_reviewer

SCALES = ("coherence", "grammar", "validity")  # validity = the query's counterfactual validity
CSV_COLUMNS = ("expert", "item_id", *SCALES, "diversity", "feedback")
#: what the expert is asked, per scale (1 = not at all, 5 = fully); the form and the summary use these
QUESTIONS: dict[str, str] = {
    "coherence": "Coherence: does the story hang together, each event making sense after the ones before it?",
    "grammar": "Grammar: are the story and the query written in correct, fluent English?",
    "validity": (
        "Query validity: is the request a sound what-if for this story? It should alter one thing the "
        "story says happened, something that could realistically have turned out differently, and say "
        "the alteration clearly enough that a reader could rewrite the story from it."
    ),
}
DIVERSITY_QUESTION = "Diversity: how varied are the sampled items in setting, people and kind of change?"


@dataclass
class Audit:
    """One audit: its sample, and the expert links issued for it."""

    id: int
    item_ids: list[str]
    tokens: dict[str, str]  # expert name -> token (only known when the audit is created)


def create_audit(project: Project, n: int = 100, seed: int = 0, experts: int = 3) -> Audit:
    """Sample up to `n` approved variations with `seed` and issue one private link per expert.

    Core examples (v0) are never released, so they are not audited either.
    """
    if n < 1 or experts < 1:
        raise InputError("--n and --experts must be at least 1")
    pool = sorted(i.id for i in project.items(*RELEASABLE) if i.variation >= 1)
    if not pool:
        raise InputError(f"{project.root}: no approved variations to audit yet")
    sample = random.Random(seed).sample(pool, min(n, len(pool)))
    with project.transaction() as conn:
        cursor = conn.execute(
            "INSERT INTO audits (n, seed, experts, created_at) VALUES (?,?,?,?)", (n, seed, experts, now())
        )
        audit_id = int(cursor.lastrowid or 0)
        conn.executemany(
            "INSERT INTO audit_items (audit_id, position, item_id) VALUES (?,?,?)",
            [(audit_id, k, item_id) for k, item_id in enumerate(sample)],
        )
    tokens = {}
    for k in range(1, experts + 1):
        name = f"a{audit_id}-expert{k}"
        tokens[name] = add_reviewer(project, name, role="expert")
    return Audit(audit_id, sample, tokens)


def latest_audit(project: Project) -> int:
    """The id of the newest audit; InputError when there is none."""
    row = project.conn.execute("SELECT MAX(id) FROM audits").fetchone()
    if row[0] is None:
        raise InputError(f"{project.root}: no audit yet; start one with `cobe curate audit {project.root}`")
    return int(row[0])


def audit_items(project: Project, audit_id: int) -> list[Item]:
    """The sampled items of an audit, in sample order."""
    rows = project.conn.execute("SELECT item_id FROM audit_items WHERE audit_id = ? ORDER BY position", (audit_id,))
    return [project.item(r["item_id"]) for r in rows.fetchall()]


def _score(value: Any, where: str, name: str) -> int | None:
    """A 1-5 answer, or None when the question was left unanswered (blank)."""
    text = "" if value is None else str(value).strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 5:
        raise InputError(f"{where}: {name}: expected a whole number from 1 to 5 or nothing, got {text!r}")
    return int(text)


def rate_item(
    project: Project, audit_id: int, expert: str, item_id: str, scores: dict[str, Any], where: str = "form"
) -> int:
    """Store (or replace) one expert's answers on one sampled item; returns how many were left unanswered.

    Unanswered questions are stored as missing; an item with no answer at all keeps no row.
    """
    sampled = project.conn.execute("SELECT 1 FROM audit_items WHERE audit_id = ? AND item_id = ?", (audit_id, item_id))
    if sampled.fetchone() is None:
        raise InputError(f"{where}: item {item_id!r} is not in audit {audit_id}'s sample")
    values = [_score(scores.get(s), where, s) for s in SCALES]
    with project.transaction() as conn:
        _store(conn, audit_id, expert, item_id, values)
    return sum(v is None for v in values)


def _store(conn: sqlite3.Connection, audit_id: int, expert: str, item_id: str, values: list[int | None]) -> None:
    if all(v is None for v in values):  # cleared or never answered: nothing to keep
        conn.execute(
            "DELETE FROM audit_ratings WHERE audit_id = ? AND expert = ? AND item_id = ?", (audit_id, expert, item_id)
        )
    else:
        conn.execute(
            "INSERT OR REPLACE INTO audit_ratings (audit_id, expert, item_id, coherence, grammar, validity, at)"
            " VALUES (?,?,?,?,?,?,?)",
            (audit_id, expert, item_id, *values, now()),
        )


def save_form(
    project: Project, audit_id: int, expert: str, answers: dict[str, dict[str, Any]], diversity: Any, feedback: str
) -> tuple[int, int]:
    """Store one submission of the audit form for every sampled item at once: (unanswered, asked) questions.

    Every answer is checked before anything is written, so a bad value saves nothing.
    """
    items = [item.id for item in audit_items(project, audit_id)]
    values = {
        item_id: [_score(answers.get(item_id, {}).get(s), f"item {item_id}", s) for s in SCALES] for item_id in items
    }
    rated = _score(diversity, "the whole sample", "diversity")
    with project.transaction() as conn:
        for item_id, scores in values.items():
            _store(conn, audit_id, expert, item_id, scores)
        conn.execute(
            "INSERT OR REPLACE INTO audit_overall (audit_id, expert, diversity, feedback, at) VALUES (?,?,?,?,?)",
            (audit_id, expert, rated, feedback.strip(), now()),
        )
    unanswered = sum(v is None for scores in values.values() for v in scores) + (rated is None)
    return unanswered, len(items) * len(SCALES) + 1


def rate_sample(
    project: Project, audit_id: int, expert: str, diversity: Any, feedback: str | None, where: str = "form"
) -> bool:
    """Store (or replace) one expert's diversity rating of the whole sample and free-text feedback; True if rated."""
    value = _score(diversity, where, "diversity")
    with project.transaction() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO audit_overall (audit_id, expert, diversity, feedback, at) VALUES (?,?,?,?,?)",
            (audit_id, expert, value, (feedback or "").strip(), now()),
        )
    return value is not None


def saved_answers(project: Project, audit_id: int, expert: str) -> dict[str, Any]:
    """What an expert has saved so far, so the form shows it again: per item the scale answers, plus the sample's."""
    items = {
        row["item_id"]: {s: row[s] for s in SCALES}
        for row in project.conn.execute(
            "SELECT * FROM audit_ratings WHERE audit_id = ? AND expert = ?", (audit_id, expert)
        ).fetchall()
    }
    overall = project.conn.execute(
        "SELECT diversity, feedback FROM audit_overall WHERE audit_id = ? AND expert = ?", (audit_id, expert)
    ).fetchone()
    return {
        "items": items,
        "diversity": overall["diversity"] if overall else None,
        "feedback": overall["feedback"] if overall else "",
    }


def import_ratings(project: Project, path: str | Path, audit_id: int | None = None) -> int:
    """Import expert ratings from CSV (columns: expert,item_id,coherence,grammar,validity,diversity,feedback).

    A row with an item id rates that item; a row without one carries the expert's diversity
    rating of the whole sample and their feedback. Returns the number of rows read.
    """
    audit_id = audit_id or latest_audit(project)
    source = Path(path)
    header, lines = read_csv(source, "a CSV of expert ratings")
    missing = [c for c in ("expert", "item_id") if c not in header]
    if missing:
        raise InputError(f"{source}: missing column {missing[0]!r}; expected {', '.join(CSV_COLUMNS)}")
    rows = [row for _, row in lines]
    for line, row in enumerate(rows, start=2):
        where = f"{source}:{line}"
        expert = (row.get("expert") or "").strip()
        if not expert:
            raise InputError(f"{where}: expert: required field is empty")
        item_id = (row.get("item_id") or "").strip()
        if item_id:
            rate_item(project, audit_id, expert, item_id, row, where)
        if not item_id or (row.get("diversity") or "").strip() or (row.get("feedback") or "").strip():
            rate_sample(project, audit_id, expert, row.get("diversity") or "", row.get("feedback") or "", where)
    return len(rows)


def _spread(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0, "mean": None, "std": None}
    std = statistics.stdev(values) if len(values) > 1 else 0.0  # sample std, as in the paper's ±
    return {"n": len(values), "mean": round(statistics.fmean(values), 3), "std": round(std, 3)}


def audit_summary(project: Project, audit_id: int | None = None) -> dict[str, Any]:
    """Mean and sample std per scale, overall and per expert, plus diversity and the feedback."""
    audit_id = audit_id or latest_audit(project)
    ratings = project.conn.execute(
        "SELECT * FROM audit_ratings WHERE audit_id = ? ORDER BY expert", (audit_id,)
    ).fetchall()
    overall = project.conn.execute(
        "SELECT * FROM audit_overall WHERE audit_id = ? ORDER BY expert", (audit_id,)
    ).fetchall()
    experts = sorted({r["expert"] for r in ratings} | {r["expert"] for r in overall})
    sample = project.conn.execute("SELECT COUNT(*) FROM audit_items WHERE audit_id = ?", (audit_id,)).fetchone()[0]

    def answered(scale: str, expert: str | None = None) -> list[float]:
        return [r[scale] for r in ratings if r[scale] is not None and expert in (None, r["expert"])]

    return {
        "audit": audit_id,
        "sample": sample,
        "experts": experts,
        "scales": {s: _spread(answered(s)) for s in SCALES},
        "per_expert": {e: {s: _spread(answered(s, e)) for s in SCALES} for e in experts},
        # every expert who saved anything was asked every question of every sampled item
        "unanswered": {s: sample * len(experts) - len(answered(s)) for s in SCALES},
        "diversity": _spread([r["diversity"] for r in overall if r["diversity"] is not None]),
        "feedback": {r["expert"]: r["feedback"] for r in overall if r["feedback"]},
    }


def summary_markdown(summary: dict[str, Any]) -> str:
    """The audit summary as a Markdown table, for the CLI and the datasheet."""

    def cell(stat: dict[str, Any]) -> str:
        return "–" if stat["mean"] is None else f"{stat['mean']:.2f} ± {stat['std']:.2f} (n={stat['n']})"

    lines = [
        f"Audit {summary['audit']}: {summary['sample']} sampled items, {len(summary['experts'])} expert(s).",
        "",
        "| rater | coherence | grammar | query validity |",
        "|---|---|---|---|",
    ]
    lines.append("| all | " + " | ".join(cell(summary["scales"][s]) for s in SCALES) + " |")
    for expert, scales in summary["per_expert"].items():
        lines.append(f"| {expert} | " + " | ".join(cell(scales[s]) for s in SCALES) + " |")
    missing = summary.get("unanswered", {})
    if any(missing.values()):
        lines += ["", "Unanswered (left out of the means): " + ", ".join(f"{s} {missing[s]}" for s in SCALES)]
    lines += ["", f"Diversity of the sample: {cell(summary['diversity'])}"]
    for expert, text in summary["feedback"].items():
        lines.append(f"- {expert}: {text}")
    return "\n".join(lines) + "\n"
