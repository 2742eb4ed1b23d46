"""The release datasheet: the paper's Tables 2-4, the counts of every pipeline stage, the audit."""

from __future__ import annotations

from typing import Any

from cobe.curate.augment import reject_counts
from cobe.curate.project import Project
from cobe.curate.review import review_counts


def pipeline_counts(project: Project, released: int | None = None) -> dict[str, Any]:
    """How many items reached each stage, read from the project's items, events and rejects."""
    one = project.conn.execute

    def entered(status: str) -> int:
        return one("SELECT COUNT(DISTINCT item_id) FROM events WHERE to_status = ?", (status,)).fetchone()[0]

    rejected_from: dict[str, int] = {}
    for row in one(
        "SELECT from_status, COUNT(DISTINCT item_id) AS n FROM events WHERE to_status = 'rejected'"
        " AND item_id IN (SELECT id FROM items WHERE status = 'rejected') GROUP BY from_status"
    ):
        rejected_from[row["from_status"]] = row["n"]
    aug = reject_counts(project)
    return {
        "candidates": entered("candidate"),
        "core": entered("core"),
        "generated": one("SELECT COUNT(*) FROM items WHERE source = 'augment'").fetchone()[0],
        "augment_rejects": aug,
        "augment_rejects_total": sum(aug.values()),
        "rejected_candidates": rejected_from.get("candidate", 0),
        "rejected_in_review": sum(n for s, n in rejected_from.items() if s != "candidate"),
        "approved": entered("approved"),
        "reviews": review_counts(project),
        "released": released
        if released is not None
        else one("SELECT COUNT(*) FROM items WHERE status = 'released'").fetchone()[0],
    }


def _table(header: tuple[str, str], rows: list[tuple[str, Any]]) -> list[str]:
    lines = [f"| {header[0]} | {header[1]} |", "|---|---:|"]
    lines.extend(f"| {key} | {value} |" for key, value in rows)
    return lines


REJECT_LABELS = {
    "invalid_json": "invalid JSON",
    "schema": "schema or template error",
    "wrong_query_count": "wrong number of queries",
    "near_duplicate": "near-duplicate story",
    "call_error": "model call failed",
}


def render_datasheet(
    stats: dict[str, Any], counts: dict[str, Any], split: dict[str, int], release: dict[str, Any], audit: str | None
) -> str:
    """The datasheet as Markdown."""
    lines = [
        "# Datasheet",
        "",
        f"Release {release['id']} of `{release['project']}`, made {release['at']} "
        f"(seed {release['seed']}, public share {release['public_share']}).",
        "",
        "## Composition (Table 2)",
        "",
    ]
    lines += _table(
        ("quantity", "value"),
        [
            ("scenarios", stats["scenarios"]),
            ("core examples", stats["core_examples"]),
            ("domains", stats["domains"]),
            ("words per story (mean)", stats["avg_words"]),
            ("sentences per story (mean)", stats["avg_sentences"]),
            ("clauses per story (mean)", stats["avg_clauses"]),
            ("clauses per sentence (mean of per-story ratios)", stats["clauses_per_sentence"]),
        ],
    )
    lines += [
        "",
        f"Clauses counted by: {stats['clause_method']}. The release holds variations only (ids from v1);",
        "the core examples (v0) they were written from are not part of it.",
        "",
        "## Domains (Table 3)",
        "",
    ]
    lines += _table(("domain", "% of scenarios"), list(stats["domain_shares"].items()))
    lines += ["", "## Graph types (Table 4)", ""]
    lines += _table(("graph type", "% of scenarios"), list(stats["graph_type_shares"].items()))
    lines += [
        "",
        "## Split",
        "",
        "All items of one core example are on the same side, so no public item leaks a private one.",
        "",
    ]
    lines += _table(("split", "scenarios"), [("public", split["public"]), ("private", split["private"])])
    lines += ["", "## Pipeline", ""]
    rows: list[tuple[str, Any]] = [
        ("candidates contributed", counts["candidates"]),
        ("promoted to core", counts["core"]),
        ("candidates rejected", counts["rejected_candidates"]),
        ("variations generated", counts["generated"]),
        ("augmentation outputs rejected", counts["augment_rejects_total"]),
    ]
    rows += [(f"— {REJECT_LABELS.get(k, k)}", v) for k, v in counts["augment_rejects"].items()]
    rev = counts["reviews"]
    rows += [
        ("reviews recorded", rev["reviews"]),
        ("approved by both reviewers", rev["approved_by_both"]),
        ("rejected by both reviewers", rev["rejected_by_both"]),
        ("reviewer disagreements", rev["disagreements"]),
        ("disagreements resolved by the admin", rev["resolved"]),
        ("rejected in review", counts["rejected_in_review"]),
        ("approved", counts["approved"]),
        ("released", counts["released"]),
    ]
    lines += _table(("stage", "items"), rows)
    lines += ["", "## Expert audit", "", audit.rstrip() if audit else "No expert audit has been recorded.", ""]
    return "\n".join(lines)
