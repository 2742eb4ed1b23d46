"""Synthetic run rows for the annotate and agreement tests (no engine, no model calls)."""

from __future__ import annotations

import json
from pathlib import Path

from cobe.core.results import ResultRow
from cobe.judge.checks import row_status

STORIES = [
    "Ines watered the tomatoes every evening because the summer was dry. The plants grew tall, so she sold some at the market.",
    "The ferry left at noon because the tide was high. Pavel missed it, so he ate lunch by the pier.",
    "Rosa trained for months because she wanted to finish the marathon. Her knee held up, so she crossed the line in four hours.",
]


def make_row(
    index: int, model: str, template: str = "A", verdicts: dict | None = None, response: str | None = None
) -> dict:
    """One results.jsonl row as a dict; verdicts default to a pass."""
    verdicts = verdicts if verdicts is not None else {"connectors": "T", "preserve": "T", "change": "T"}
    status, passed = row_status(verdicts, None)
    core = index + 1
    return ResultRow(
        run_id="run-test",
        model=model,
        judge="mock/judge-pass",
        scenario_id=f"{core}v1",
        core_id=core,
        variation=1,
        domain="daily life",
        template=template,
        story=STORIES[index % len(STORIES)],
        query=f"Rewrite the original text, based on what would have happened instead had change {index}.",
        preserve=[f"Fact {index} stays."],
        change=[f"Consequence {index} goes."],
        response=response if response is not None else f"A rewritten story number {index}.",
        verdicts=verdicts,
        passed=passed,
        status=status,
    ).model_dump(mode="json")


def write_run(run_dir: Path, rows: list[dict]) -> Path:
    """A run directory holding exactly these rows in results.jsonl."""
    run_dir.mkdir(parents=True, exist_ok=True)
    with (run_dir / "results.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    return run_dir
