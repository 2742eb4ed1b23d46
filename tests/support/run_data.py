"""Synthetic native-shape scenarios for the run tests (invented text, no paper wording)."""

from __future__ import annotations

import json
from pathlib import Path


def scenario(i: int) -> dict:
    """A small invented scenario (no paper text) with the three tier-1 queries."""
    had = f"the baker {i} had closed early"
    return {
        "id": f"{i}v0",
        "core_id": i,
        "variation": 0,
        "domain": "Daily life",
        "story": f"Baker {i} kept the shop open late because a festival was on. Many visitors bought bread, so the shelves were empty by night.",
        "queries": [
            f"Rewrite the original text, based on what would have happened instead had the baker {i} closed early.",
            f"Based on the preceding text, rewrite the scenario to reflect what would have happened if {had}.",
            f"Rewrite the above passage to illustrate what would have occurred had the baker {i} closed early.",
        ],
        "illustrative_answer": f"Instead, baker {i} closed the shop early although a festival was on. Few visitors bought bread, so the shelves stayed full.",
        "preserve": ["A festival was on."],
        "change": ["Many visitors bought bread."],
        "intervention": had,
    }


def write_dataset(path: Path, n: int) -> Path:
    """A native JSONL file of `n` synthetic scenarios."""
    path.write_text("".join(json.dumps(scenario(i)) + "\n" for i in range(1, n + 1)), encoding="utf-8")
    return path
