"""Helpers for the dataset tests: the fixture files and valid records to corrupt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cobe.dataset.queries import tier1_queries

FIXTURES = Path(__file__).parent.parent / "fixtures" / "datasets"
IDS = ["1v0", "1v1", "2v0", "3v0"]


def paper_record(core: int = 1, variation: int = 0) -> dict[str, Any]:
    """A valid record in the paper's shape."""
    return {
        "Core Set ID": core,
        "Variation ID": variation,
        "Domain": "Travel",
        "Story": "Omar missed the ferry because his alarm failed. He spent the night in the harbour town.",
        "Query": tier1_queries("Omar's alarm had worked"),
        "Illustrative answer (not scored)": "His alarm worked, so Omar caught the ferry and slept at home.",
        "Evaluation criteria": [
            "Omar planned to take the ferry.",
            "Omar missed the ferry. He spent the night in the harbour town.",
        ],
    }


def native_record(core: int = 1, variation: int = 0) -> dict[str, Any]:
    """A valid record in the native shape."""
    paper = paper_record(core, variation)
    return {
        "id": f"{core}v{variation}",
        "core_id": core,
        "variation": variation,
        "domain": paper["Domain"],
        "story": paper["Story"],
        "queries": paper["Query"],
        "preserve": ["Omar planned to take the ferry."],
        "change": ["Omar missed the ferry.", "He spent the night in the harbour town."],
    }


def write_json(path: Path, value: Any) -> Path:
    """Write `value` as indented JSON (a list's first record then starts on line 2)."""
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write one JSON object per line."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
