"""Map each official record shape onto the native field names, before validation.

Shapes:
- `paper`: "Core Set ID", "Variation ID", "Domain", "Story", "Query" (3 strings),
  "Illustrative answer (not scored)", "Evaluation criteria" ([preserve, change]). Each criterion
  string is split into sentences; joining them with one space gives the string back.
- `csv`: the paper's column names, one row per scenario. The queries are either three columns
  "Query 1".."Query 3" or one "Query" column holding a JSON list; the criteria are either
  "Evaluation criteria 1" (preserve) and "Evaluation criteria 2" (change) or one
  "Evaluation criteria" column holding a JSON list. The writer uses the numbered columns.
- `site`: one row per query (example_id, coreset_id, variation_id, query_idx, original, query,
  gold_answer, should_not_change, should_change, optional domain); rows of one scenario merge,
  queries ordered by query_idx, criterion lists kept as given. Site files often hold one query per
  scenario and no domain; `query_idx` 2, 5, 7 name phrasings A, B, C where a query's words do not,
  and a `by_graph` group gives the graph type.
- `native`: the fields of `Scenario` itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cobe.dataset.problems import ProblemSink
from cobe.dataset.queries import site_query_idx
from cobe.dataset.rawread import RawRecord
from cobe.dataset.text import split_criterion

PAPER_KEYS = {
    "core_id": "Core Set ID",
    "variation": "Variation ID",
    "domain": "Domain",
    "story": "Story",
    "queries": "Query",
    "illustrative_answer": "Illustrative answer (not scored)",
}
CRITERIA_KEY = "Evaluation criteria"
CSV_QUERY_COLUMNS = ["Query 1", "Query 2", "Query 3"]
CSV_CRITERIA_COLUMNS = ["Evaluation criteria 1", "Evaluation criteria 2"]
SITE_KEYS = {
    "id": "example_id",
    "core_id": "coreset_id",
    "variation": "variation_id",
    "domain": "domain",
    "story": "original",
    "queries": "query",
    "illustrative_answer": "gold_answer",
    "preserve": "should_not_change",
    "change": "should_change",
    "graph_type": "graph_type",
}
MISSING = object()  # marks a field the shape mapping already reported


@dataclass
class Normalised:
    """A record under native field names, with each field's name in the source file."""

    data: dict[str, Any]
    line: int | None
    sink: ProblemSink
    labels: dict[str, str] = field(default_factory=dict)
    # per query, the phrasing the file's own numbering gives it (site query_idx); None: by position
    query_hints: list[str | None] | None = None
    unknown_graph: str | None = None  # a graph-type label no spelling of a known type: warned once per file

    def label(self, name: str) -> str:
        """The field's name as the source file spells it."""
        return self.labels.get(name, name)


def detect_shape(record: dict[str, Any], container: str) -> str:
    """Which record shape a raw record follows: paper, csv, site or native."""
    if container == "csv":
        return "csv"
    if "Core Set ID" in record or "Story" in record or CRITERIA_KEY in record:
        return "paper"
    if {"example_id", "coreset_id", "original", "should_change"} & record.keys():
        return "site"
    return "native"


def from_paper(raw: RawRecord, sink: ProblemSink, csv_mode: bool = False) -> Normalised:
    """A paper-shaped (JSON or CSV) record under native names."""
    data: dict[str, Any] = {}
    labels = {name: key for name, key in PAPER_KEYS.items()}
    for name, key in PAPER_KEYS.items():
        if key in raw.data:
            data[name] = raw.data[key]
    if csv_mode:
        _csv_lists(raw.data, data, labels, sink)
    else:
        _criteria_pair(raw.data.get(CRITERIA_KEY, MISSING), data, labels, sink)
    return Normalised(data, raw.line, sink, labels)


def _csv_lists(row: dict[str, Any], data: dict[str, Any], labels: dict[str, str], sink: ProblemSink) -> None:
    if all(c in row for c in CSV_QUERY_COLUMNS):
        data["queries"] = [row[c] for c in CSV_QUERY_COLUMNS]
        labels["queries"] = "Query 1..3"
    elif "Query" in row:
        data["queries"] = _json_cell(row["Query"], "Query", sink)
    if all(c in row for c in CSV_CRITERIA_COLUMNS):
        pair = [row[c] for c in CSV_CRITERIA_COLUMNS]
        _criteria_pair(pair, data, labels, sink)
        labels["preserve"], labels["change"] = CSV_CRITERIA_COLUMNS
    elif CRITERIA_KEY in row:
        _criteria_pair(_json_cell(row[CRITERIA_KEY], CRITERIA_KEY, sink), data, labels, sink)
    else:
        _criteria_pair(MISSING, data, labels, sink)


def _json_cell(cell: str, column: str, sink: ProblemSink) -> Any:
    try:
        return json.loads(cell)
    except json.JSONDecodeError:
        sink.error(column, "expected a JSON-encoded list of strings in this column")
        return MISSING


def _criteria_pair(value: Any, data: dict[str, Any], labels: dict[str, str], sink: ProblemSink) -> None:
    labels["preserve"] = f"{CRITERIA_KEY}[0]"
    labels["change"] = f"{CRITERIA_KEY}[1]"
    if value is MISSING:
        sink.error(CRITERIA_KEY, "missing required field")
    elif not isinstance(value, list) or len(value) != 2 or not all(isinstance(v, str) for v in value):
        sink.error(CRITERIA_KEY, "expected a pair of strings [preserve, change]")
    else:
        data["preserve"] = split_criterion(value[0])
        data["change"] = split_criterion(value[1])
        return
    data["preserve"] = data["change"] = MISSING


def from_native(raw: RawRecord, sink: ProblemSink, known: set[str]) -> Normalised:
    """A native record; fields the schema does not know are reported and dropped."""
    data = {}
    for key, value in raw.data.items():
        if key in known:
            data[key] = value
        else:
            sink.warning(key, "unknown field, ignored")
    return Normalised(data, raw.line, sink)


def site_key(raw: RawRecord) -> str:
    """The scenario a site row belongs to: its core/variation pair, else its example_id."""
    core, variation = raw.data.get("coreset_id"), raw.data.get("variation_id")
    if core is not None and variation is not None:
        return f"{core}v{variation}"
    return str(raw.data.get("example_id", f"line {raw.line}"))


def merge_site_rows(rows: list[RawRecord], sink: ProblemSink) -> Normalised:
    """The rows of one scenario (one per query) as a single record, queries in query_idx order."""
    first = rows[0].data
    data: dict[str, Any] = {}
    for name, key in SITE_KEYS.items():
        if name != "queries" and key in first:
            data[name] = first[key]
    domain = next((row.group for row in rows if row.group is not None), None)
    graph = next((row.graph for row in rows if row.graph is not None), None)
    if "domain" not in data and domain is not None:
        data["domain"] = domain
    if "graph_type" not in data and graph is not None:
        data["graph_type"] = graph  # read as its spelling says (cobe.dataset.graph_labels)
    if "core_id" in data and "variation" in data and not _looks_like_id(data.get("id")):
        data.pop("id", None)  # a per-row example_id (not <core>v<variation>) names no scenario
    for row in rows[1:]:
        for name in ("story", "illustrative_answer", "preserve", "change", "domain"):
            key = SITE_KEYS[name]
            if key in row.data and name in data and row.data[key] != data[name]:
                sink.error(key, f"rows of this scenario disagree (line {rows[0].line} vs line {row.line})")
    ordered = _ordered_queries(rows, sink)
    data["queries"] = MISSING if ordered is MISSING else [query for _, query in ordered]
    hints = None if ordered is MISSING else [site_query_idx().get(idx) for idx, _ in ordered]
    return Normalised(data, rows[0].line, sink, dict(SITE_KEYS), hints)


def _looks_like_id(value: Any) -> bool:
    from cobe.dataset.schema import ID_PATTERN

    return isinstance(value, str) and bool(ID_PATTERN.match(value))


def _ordered_queries(rows: list[RawRecord], sink: ProblemSink) -> Any:
    indexed: list[tuple[int, Any]] = []
    for position, row in enumerate(rows):
        idx = row.data.get("query_idx", position)
        if isinstance(idx, bool) or not isinstance(idx, int):
            sink.error("query_idx", f"expected an integer, got {idx!r}")
            return MISSING
        if any(idx == seen for seen, _ in indexed):
            sink.error("query_idx", f"duplicate id: query_idx {idx} appears twice for this scenario")
            return MISSING
        if "query" not in row.data:
            sink.error("query", "missing required field")
            return MISSING
        indexed.append((idx, row.data["query"]))
    return sorted(indexed, key=lambda pair: pair[0])
