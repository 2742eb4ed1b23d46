"""Release: approved items in every official shape, a seeded public/private split, and a datasheet.

Only variations are released (ids `<core>v<variation>` with the variation from 1, as the paper's): a core example
(variation 0) is the seed its variations were written from, so it stays in the project, approved
or not, and its variations are what a benchmark user sees.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError
from cobe.core.files import ensure_dir
from cobe.curate.audit import audit_summary, summary_markdown
from cobe.curate.datasheet import pipeline_counts, render_datasheet
from cobe.curate.project import RELEASABLE, Item, Project, now
from cobe.dataset import dataset_stats, write_dataset
from cobe.dataset.validate import validate_record
from cobe.dataset.writers import to_native

NATIVE_FILE = "cobe.jsonl"
PAPER_FILE = "cobe.paper.json"
SITE_FILE = "cobe.site.json"


@dataclass
class ReleaseResult:
    """Where a release was written and what it holds."""

    out: Path
    items: list[str]
    public: list[str] = field(default_factory=list)
    private: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    held_back: list[str] = field(default_factory=list)  # approved core examples (v0), never released


def assign_split(project: Project, items: list[Item], public_share: float, seed: int) -> dict[int, str]:
    """Side of each core example: earlier releases keep theirs; new ones are drawn with `seed`."""
    sides: dict[int, str] = {}
    for row in project.conn.execute("SELECT i.core_id, s.split FROM splits s JOIN items i ON i.id = s.item_id"):
        sides.setdefault(row["core_id"], row["split"])
    sizes: dict[int, int] = {}
    for item in items:
        sizes[item.core_id] = sizes.get(item.core_id, 0) + 1
    new = sorted(c for c in sizes if c not in sides)
    random.Random(seed).shuffle(new)
    public = sum(n for c, n in sizes.items() if sides.get(c) == "public")
    target = public_share * len(items)
    for k, core in enumerate(new):
        # whole core examples move together, so the split cannot leak a core's variations;
        # keep at least one core private unless everything is meant to be public
        last_private = (
            public_share < 1 and k == len(new) - 1 and all(sides.get(c) == "public" for c in sizes if c != core)
        )
        if public < target and not last_private:
            sides[core] = "public"
            public += sizes[core]
        else:
            sides[core] = "private"
    return sides


def release(
    project: Project, out: str | Path, public_share: float = 0.1, seed: int = 0, actor: str = "cli"
) -> ReleaseResult:
    """Write every approved (and previously released) item to `out`, mark them released, write the datasheet."""
    if not 0 <= public_share <= 1:
        raise InputError(f"--public-share {public_share}: expected a number from 0 to 1")
    approved = project.items(*RELEASABLE)
    items = [item for item in approved if item.variation >= 1]
    held_back = [item.id for item in approved if item.variation < 1]
    if not items:
        cores = f" ({len(held_back)} approved core example(s) v0 are never released)" if held_back else ""
        raise InputError(f"{project.root}: no approved variations to release{cores}; review variations first")
    for item in items:  # the release must pass `cobe data validate --strict`
        _, problems = validate_record(to_native(item.scenario), label=item.id, strict=True)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise InputError(
                f"item {item.id} would fail strict validation: {problems[0]}{more}; "
                f"fix it or reject it, then release again"
            )
    target = Path(out)
    if target.exists() and not target.is_dir():
        raise InputError(f"{target}: exists and is not a directory")
    ensure_dir(target, "release directory")
    sides = assign_split(project, items, public_share, seed)
    scenarios = [i.scenario for i in items]
    result = ReleaseResult(target, [i.id for i in items], held_back=held_back)
    for item in items:
        (result.public if sides[item.core_id] == "public" else result.private).append(item.id)
    result.files = [
        write_dataset(scenarios, target / NATIVE_FILE, to="native"),
        write_dataset(scenarios, target / PAPER_FILE, to="paper"),
        write_dataset(scenarios, target / SITE_FILE, to="site"),
        write_dataset([i.scenario for i in items if i.id in set(result.public)], target / "public.jsonl", to="native"),
        write_dataset(
            [i.scenario for i in items if i.id in set(result.private)], target / "private.jsonl", to="native"
        ),
    ]
    split_path = target / "split.json"
    split_path.write_text(
        json.dumps(
            {"seed": seed, "public_share": public_share, "public": result.public, "private": result.private}, indent=2
        )
        + "\n",
        encoding="utf-8",
    )
    stamp = now()
    with project.transaction() as conn:
        cursor = conn.execute(
            "INSERT INTO releases (out, public_share, seed, items, at) VALUES (?,?,?,?,?)",
            (str(target), public_share, seed, len(items), stamp),
        )
        release_id = int(cursor.lastrowid or 0)
        conn.executemany(
            "INSERT OR REPLACE INTO splits (item_id, split, release_id) VALUES (?,?,?)",
            [(i.id, sides[i.core_id], release_id) for i in items],
        )
        for item in items:
            if item.status == "approved":
                project._move(conn, item.id, "released", actor=actor, reason=f"release {release_id} to {target}")
    result.files += [
        split_path,
        *_write_datasheet(
            project,
            target,
            scenarios,
            result,
            {"id": release_id, "project": str(project.root), "at": stamp, "seed": seed, "public_share": public_share},
        ),
    ]
    return result


def _write_datasheet(
    project: Project, target: Path, scenarios: list[Any], result: ReleaseResult, info: dict[str, Any]
) -> list[Path]:
    stats = dataset_stats(scenarios)
    counts = pipeline_counts(project, released=len(result.items))
    has_audit = project.conn.execute("SELECT COUNT(*) FROM audits").fetchone()[0] > 0
    summary = audit_summary(project) if has_audit else None
    split = {"public": len(result.public), "private": len(result.private)}
    text = render_datasheet(stats, counts, split, info, summary_markdown(summary) if summary else None)
    md, js = target / "datasheet.md", target / "datasheet.json"
    md.write_text(text, encoding="utf-8")
    js.write_text(
        json.dumps({"release": info, "stats": stats, "pipeline": counts, "split": split, "audit": summary}, indent=2)
        + "\n",
        encoding="utf-8",
    )
    return [md, js]
