"""Write scenarios in any supported shape: native JSONL, the paper's JSON, CSV, or site rows."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from cobe.core.errors import InputError
from cobe.core.files import atomic_write, check_output
from cobe.dataset.queries import site_query_idx
from cobe.dataset.schema import Scenario
from cobe.dataset.shapes import CRITERIA_KEY, CSV_CRITERIA_COLUMNS, CSV_QUERY_COLUMNS, PAPER_KEYS, SITE_KEYS

Shape = Literal["native", "paper", "csv", "site"]
SHAPES: tuple[str, ...] = ("native", "paper", "csv", "site")


def to_native(scenario: Scenario) -> dict[str, Any]:
    """Every field of a scenario, as one JSON-ready dict (one line of a native file)."""
    return scenario.model_dump(mode="json")


def to_paper(scenario: Scenario) -> dict[str, Any]:
    """A scenario under the paper's keys; metadata the paper's shape has no key for is left out."""
    native = to_native(scenario)
    record = {key: native[name] for name, key in PAPER_KEYS.items()}
    record[CRITERIA_KEY] = [scenario.preserve_text, scenario.change_text]
    return record


def to_csv_row(scenario: Scenario) -> dict[str, Any]:
    """A scenario as one CSV row: the paper's columns, queries and criteria numbered."""
    row = {key: value for key, value in to_paper(scenario).items() if key not in ("Query", CRITERIA_KEY)}
    row.update(zip(CSV_QUERY_COLUMNS, _three(scenario.queries)))
    row.update(zip(CSV_CRITERIA_COLUMNS, (scenario.preserve_text, scenario.change_text)))
    return row


def _three(queries: list[str]) -> list[str]:
    if len(queries) != 3:
        raise InputError(f"scenario has {len(queries)} queries; the CSV shape holds exactly 3 (use --to native)")
    return queries


def to_site_rows(scenario: Scenario) -> list[dict[str, Any]]:
    """A scenario as the site's rows, one per query, with its domain on each row; `query_idx` numbers the
    phrasings as the site does (2, 5, 7 for A, B, C), a query in none after them."""
    numbers = {name: idx for idx, name in site_query_idx().items()}
    unmatched = max(numbers.values()) + 1
    rows = []
    for index, (label, query) in enumerate(zip(scenario.phrasings, scenario.queries)):
        row: dict[str, Any] = {SITE_KEYS["id"]: scenario.id, SITE_KEYS["core_id"]: scenario.core_id}
        position = numbers.get(label, unmatched + index)
        row.update(
            {SITE_KEYS["variation"]: scenario.variation, "query_idx": position, SITE_KEYS["domain"]: scenario.domain}
        )
        row.update({SITE_KEYS["story"]: scenario.story, SITE_KEYS["queries"]: query})
        row.update({SITE_KEYS["illustrative_answer"]: scenario.illustrative_answer})
        row.update({SITE_KEYS["preserve"]: list(scenario.preserve), SITE_KEYS["change"]: list(scenario.change)})
        rows.append(row)
    return rows


def write_dataset(scenarios: Iterable[Scenario], path: str | Path, to: str = "native") -> Path:
    """Write `scenarios` to `path` in the shape `to` (native, paper, csv or site); returns the path."""
    if to not in SHAPES:
        raise InputError(f"unknown output shape {to!r}; expected one of {', '.join(SHAPES)}")
    items = list(scenarios)
    target = check_output(Path(path), "the output file")
    # built whole first, then written through a temp file and renamed: a failure leaves no half file
    if to == "csv":
        rows = [to_csv_row(s) for s in items]
        head = [PAPER_KEYS[name] for name in ("core_id", "variation", "domain", "story")]
        columns = [*head, *CSV_QUERY_COLUMNS, PAPER_KEYS["illustrative_answer"], *CSV_CRITERIA_COLUMNS]
        buffer = io.StringIO(newline="")
        writer = csv.DictWriter(buffer, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
        text = buffer.getvalue()
    elif to == "native":
        text = "".join(json.dumps(to_native(s), ensure_ascii=False) + "\n" for s in items)
    else:
        records: list[dict[str, Any]] = []
        for s in items:
            records.extend(to_site_rows(s) if to == "site" else [to_paper(s)])
        text = json.dumps(records, ensure_ascii=False, indent=2) + "\n"
    try:
        atomic_write(target, text)
    except OSError as exc:
        raise InputError(f"{target}: could not be written ({exc.strerror or exc})") from None
    return target
