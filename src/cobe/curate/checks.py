"""Automatic checks on every live item; each failure is stored so reviewers see it beside the item."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cobe.core.results import CHECKS
from cobe.curate.neardup import DEFAULT_THRESHOLD, near_duplicate_pairs
from cobe.curate.project import Item, Project, now
from cobe.dataset.validate import validate_record
from cobe.dataset.writers import to_native
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS

if TYPE_CHECKING:
    from cobe.judge.pairs import JudgedItem

CHECK_NAMES = ("schema", "template", "graph", "near_duplicate", "leakage", "self_consistency")
LIVE = ("candidate", "core", "variation", "approved", "released")


@dataclass(frozen=True)
class CheckFailure:
    """One failed check on one item, printed as `item id: check: reason`."""

    item_id: str
    check: str
    reason: str

    def __str__(self) -> str:
        return f"{self.item_id}: {self.check}: {self.reason}"


def _check_of(field: str) -> str:
    # the dataset validator reports template fit on queries[i] and criteria-graph agreement
    # on graph.* / criteria; naming those separately tells a reviewer what kind of fix is needed
    if field.startswith(("queries", "Query", "query")):
        return "template"
    if field.startswith(("graph", "criteria")):
        return "graph"
    return "schema"


def schema_failures(items: list[Item]) -> list[CheckFailure]:
    """Strict dataset validation of each item, split into schema, template and graph findings."""
    found: list[CheckFailure] = []
    for item in items:
        _, problems = validate_record(to_native(item.scenario), label=item.id, strict=True)
        found.extend(CheckFailure(item.id, _check_of(p.field), f"{p.field}: {p.message}") for p in problems)
    return found


def duplicate_failures(items: list[Item], threshold: float = DEFAULT_THRESHOLD) -> list[CheckFailure]:
    """Each story that is a near-duplicate of an earlier item's story."""
    stories = {item.id: item.scenario.story for item in items}
    return [
        CheckFailure(later, "near_duplicate", f"story {score:.0f}% like item {earlier}")
        for earlier, later, score in near_duplicate_pairs(stories, threshold)
    ]


def leakage_failures(project: Project) -> list[CheckFailure]:
    """Items of a core example whose items sit on both sides of the public/private split."""
    rows = project.conn.execute(
        "SELECT s.item_id, s.split, i.core_id FROM splits s JOIN items i ON i.id = s.item_id"
    ).fetchall()
    sides: dict[int, set[str]] = defaultdict(set)
    for row in rows:
        sides[row["core_id"]].add(row["split"])
    return [
        CheckFailure(row["item_id"], "leakage", f"core example {row['core_id']} has items in both public and private")
        for row in rows
        if len(sides[row["core_id"]]) > 1
    ]


def consistency_failures(
    items: list[Item],
    judge: str,
    store_path: str,
    concurrency: int = 4,
    judge_prompts: str = DEFAULT_JUDGE_PROMPTS,
    timeout: float | None = None,
) -> list[CheckFailure]:
    """With a judge: the illustrative answer must pass all three checks; the unchanged story must fail `change`."""
    from cobe.judge.pairs import judge_responses

    pairs = [(item.scenario, item.scenario.illustrative_answer) for item in items]
    pairs += [(item.scenario, item.scenario.story) for item in items]
    judged = judge_responses(
        pairs, judge, judge_prompts=judge_prompts, store_path=store_path, concurrency=concurrency, timeout=timeout
    )
    found = []
    for item, answer, story in zip(items, judged[: len(items)], judged[len(items) :]):
        found.extend(_answer_failures(item.id, answer))
        verdict = _verdicts(story).get("change")
        if verdict == "T":
            found.append(
                CheckFailure(item.id, "self_consistency", "the unchanged story already satisfies the change criterion")
            )
        elif verdict is None:
            found.append(
                CheckFailure(
                    item.id,
                    "self_consistency",
                    f"unchanged story: change check unscored ({_unscored(story).get('change', 'no verdict')})",
                )
            )
    return found


def _verdicts(judged: JudgedItem) -> dict[str, str | None]:
    return {name: result.verdict for name, result in judged.checks.items()}


def _unscored(judged: JudgedItem) -> dict[str, str]:
    # an unparseable verdict and a failed judge call both leave the check without a verdict
    return {
        name: result.unscored or result.error or "no verdict"
        for name, result in judged.checks.items()
        if result.verdict is None
    }


def _answer_failures(item_id: str, judged: JudgedItem) -> list[CheckFailure]:
    found = []
    verdicts, unscored = _verdicts(judged), _unscored(judged)
    for check in CHECKS:
        verdict = verdicts.get(check)
        if verdict == "F":
            found.append(CheckFailure(item_id, "self_consistency", f"illustrative answer fails the {check} check"))
        elif verdict is None:
            reason = unscored.get(check, "no verdict")
            found.append(
                CheckFailure(item_id, "self_consistency", f"illustrative answer: {check} check unscored ({reason})")
            )
    return found


def run_checks(
    project: Project,
    judge: str | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    concurrency: int = 4,
    timeout: float | None = None,
) -> list[CheckFailure]:
    """Run every automatic check on the live items, store the results, and return the failures."""
    items = project.items(*LIVE)
    failures = schema_failures(items) + duplicate_failures(items, threshold) + leakage_failures(project)
    ran = ["schema", "template", "graph", "near_duplicate", "leakage"]
    if judge:
        failures += consistency_failures(items, judge, str(project.calls_path), concurrency, timeout=timeout)
        ran.append("self_consistency")
    stamp = now()
    by_item: dict[tuple[str, str], list[str]] = defaultdict(list)
    for failure in failures:
        by_item[(failure.item_id, failure.check)].append(failure.reason)
    with project.transaction() as conn:
        conn.executemany(
            "DELETE FROM check_results WHERE item_id = ? AND check_name = ?",
            [(item.id, name) for item in items for name in ran],
        )
        rows = []
        for item in items:
            for name in ran:
                reasons = by_item.get((item.id, name))
                rows.append((item.id, name, 0 if reasons else 1, "; ".join(reasons) if reasons else "ok", stamp))
        conn.executemany("INSERT INTO check_results (item_id, check_name, ok, reason, run_at) VALUES (?,?,?,?,?)", rows)
    return failures


def stored_results(project: Project, item_id: str) -> list[dict[str, Any]]:
    """The latest stored check results of one item, for the review page."""
    rows = project.conn.execute(
        "SELECT check_name, ok, reason, run_at FROM check_results WHERE item_id = ? ORDER BY check_name", (item_id,)
    )
    return [dict(row) for row in rows]
