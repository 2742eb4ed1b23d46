"""Read a dataset file's bytes into raw records with line numbers, before any shape is known.

Every failure (unreadable path, not a regular file, binary content, invalid UTF-8, invalid or
too deeply nested JSON, invalid CSV) becomes a Problem rather than an exception, so validation
can report all of them in one pass. The file itself is read through `cobe.core.jsonfile`.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cobe.core.jsonfile import FileProblem, jsonl_lines, kind_of, parse_json, read_text, text_lines
from cobe.dataset.graph_labels import read_graph_type
from cobe.dataset.problems import Problem

_WS = " \t\r\n"
# keys that mark an object as a record itself rather than a holder of records
_RECORD_KEYS = {"Core Set ID", "Story", "example_id", "coreset_id", "original", "id", "story"}


@dataclass
class RawRecord:
    """One record as found in the file: its dict, the line it starts on, and its group key."""

    data: dict[str, Any]
    line: int | None
    group: str | None = None  # the domain, when a file groups records by domain
    graph: str | None = None  # the graph type, when a file groups records by graph (the site's `by_graph`)


@dataclass
class RawFile:
    """The raw records of one file, how they were laid out, and any file-level problems."""

    path: str
    container: str  # json-array | json-object | by-domain | categories | jsonl | csv | unreadable
    records: list[RawRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # a grouped file's own scalar fields, e.g. the site's `examples_per_category: 10` (a showcase sample)
    meta: dict[str, Any] = field(default_factory=dict)


def read_raw(path: str | Path) -> RawFile:
    """Read `path` into raw records; never raises on bad content."""
    name = str(path)
    text = _read_text(Path(path), name)
    if isinstance(text, Problem):
        return RawFile(name, "unreadable", problems=[text])
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        return _read_csv(name, text)
    if suffix in (".jsonl", ".ndjson"):
        return _read_jsonl(name, text)
    return _read_json(name, text)


DATASET_FILE = "a dataset file (.json, .jsonl or .csv)"


def _read_text(path: Path, name: str) -> str | Problem:
    try:
        return read_text(path, DATASET_FILE)
    except FileProblem as problem:
        return _problem(name, problem)


def _problem(name: str, problem: FileProblem) -> Problem:
    return Problem(file=name, line=problem.line, message=problem.reason)


def _read_jsonl(name: str, text: str) -> RawFile:
    out = RawFile(name, "jsonl")
    out.records = list(jsonl_records(name, text, out.problems))
    if not out.records and not out.problems:
        out.problems.append(Problem(file=name, message="holds no records"))
    return out


def jsonl_records(name: str, text: str, problems: list[Problem]) -> Iterator[RawRecord]:
    """Each object line of JSON-lines text as a record, made as it is read; a bad line goes to `problems`."""
    return _line_records(name, jsonl_lines(text), problems)


def jsonl_file_records(path: Path, problems: list[Problem]) -> Generator[RawRecord, None, None]:
    """The records of a JSON-lines dataset file, read line by line so the file is never held whole; a bad
    line, or the file becoming unreadable at some line, goes to `problems`."""
    name = str(path)
    try:
        yield from _line_records(
            name, ((n, line) for n, line in text_lines(path, DATASET_FILE) if line.strip()), problems
        )
    except FileProblem as problem:
        problems.append(_problem(name, problem))


def _line_records(name: str, lines: Iterable[tuple[int, str]], problems: list[Problem]) -> Iterator[RawRecord]:
    for number, line in lines:
        try:
            value = parse_json(line, name, number)
        except FileProblem as problem:
            problems.append(_problem(name, problem))
            continue
        if not isinstance(value, dict):
            problems.append(Problem(file=name, line=number, message=f"expected a JSON object, got {kind_of(value)}"))
            continue
        yield RawRecord(value, number)


def _read_json(name: str, text: str) -> RawFile:
    try:
        parse_json(text, name)  # checks syntax and depth, so the line-aware walk below can trust both
    except FileProblem as problem:
        # a .json file that is really JSON lines: the first line parses and the rest is "extra data"
        if problem.parser_message == "Extra data" and (problem.line or 0) > 1:
            return _read_jsonl(name, text)
        return RawFile(name, "unreadable", problems=[_problem(name, problem)])
    value, _ = _parse(text, _skip(text, 0))
    return _records_from_document(name, value)


def _records_from_document(name: str, value: Any) -> RawFile:
    if isinstance(value, list):
        return _list_records(RawFile(name, "json-array"), value, None)
    if not isinstance(value, _LinedDict):
        return RawFile(
            name,
            "unreadable",
            problems=[Problem(file=name, line=1, message=f"expected a JSON array or object, got {kind_of(value)}")],
        )
    if isinstance(value.get("by_domain"), _LinedDict) or isinstance(value.get("by_graph"), _LinedDict):
        return _grouped_records(name, value)
    if _RECORD_KEYS & value.keys():  # one record written as a bare object
        return RawFile(name, "json-object", records=[RawRecord(dict(value), value.line)])
    lists = [key for key, item in value.items() if isinstance(item, list)]
    if len(lists) == 1:
        return _list_records(RawFile(name, "json-object"), value[lists[0]], None)
    if len(lists) > 1:
        keys = ", ".join(repr(k) for k in lists)
        return RawFile(
            name,
            "unreadable",
            problems=[
                Problem(
                    file=name,
                    line=value.line,
                    message=f"object holds several lists ({keys}); expected exactly one list of records",
                )
            ],
        )
    return RawFile(
        name, "unreadable", problems=[Problem(file=name, line=value.line, message="object holds no list of records")]
    )


#: the site's groupings: key → the RawRecord attribute its group name fills
_GROUPINGS = {"by_domain": "group", "by_graph": "graph"}


def _grouped_records(name: str, value: _LinedDict) -> RawFile:
    """The records of a file that groups them by domain (`by_domain`) and/or by graph type (`by_graph`).

    The site's `category-examples.json` lists one example under both: it is read once, and takes its
    domain from the one grouping and its graph type from the other.
    """
    out = RawFile(name, "categories" if "by_graph" in value else "by-domain")
    out.meta = {k: v for k, v in value.items() if k not in _GROUPINGS and isinstance(v, (str, int, float, bool))}
    seen: dict[str, RawRecord] = {}
    for key, attribute in _GROUPINGS.items():
        grouped = value.get(key)
        if grouped is None:
            continue
        if not isinstance(grouped, _LinedDict):
            out.problems.append(
                Problem(
                    file=name,
                    line=value.line,
                    field=key,
                    message=f"expected an object of groups, got {kind_of(grouped)}",
                )
            )
            continue
        for label, rows in grouped.items():
            if not isinstance(rows, list):
                out.problems.append(
                    Problem(
                        file=name,
                        line=grouped.line,
                        field=f"{key}.{label}",
                        message=f"expected a list of rows, got {kind_of(rows)}",
                    )
                )
                continue
            found = _list_records(RawFile(name, out.container), rows, None)
            out.problems.extend(found.problems)
            for record in found.records:
                identity = json.dumps(record.data, sort_keys=True, default=str)
                kept = seen.setdefault(identity, record)
                if kept is record:
                    out.records.append(record)
                setattr(kept, attribute, getattr(kept, attribute) or str(label))
    _graph_per_core(out)
    return out


_CORE_KEYS = ("coreset_id", "core_id", "Core Set ID")


def _graph_per_core(out: RawFile) -> None:
    """Give every record of a core set the graph type its grouped examples have: the site's graph type belongs to
    the core set ("per coreset"), while its domain (`by_domain`) is per variation and labels that record alone."""
    labels: dict[str, dict[str, str]] = {}  # core → {type read: the label as spelled}
    for record in out.records:
        core = _core_of(record)
        if record.graph is not None and core is not None:
            read = read_graph_type(record.graph)
            labels.setdefault(core, {}).setdefault(read.value if read else record.graph, record.graph)
    for core, spelled in labels.items():
        if len(spelled) > 1:
            names = " and ".join(repr(label) for label in spelled.values())
            message = f"core set {core} is grouped under {names}; its other examples take no graph type from it"
            out.problems.append(Problem(file=out.path, field="by_graph", message=message, severity="warning"))
    for record in out.records:
        core = _core_of(record)
        spelled = labels.get(core, {}) if core is not None else {}
        if record.graph is None and len(spelled) == 1:
            record.graph = next(iter(spelled.values()))


def _core_of(record: RawRecord) -> str | None:
    core = next((record.data[key] for key in _CORE_KEYS if record.data.get(key) is not None), None)
    return None if core is None else str(core)


def _list_records(out: RawFile, rows: list[Any], group: str | None) -> RawFile:
    for index, row in enumerate(rows):
        if isinstance(row, _LinedDict):
            out.records.append(RawRecord(dict(row), row.line, group))
        else:
            out.problems.append(
                Problem(file=out.path, field=f"[{index}]", message=f"expected a JSON object, got {kind_of(row)}")
            )
    if not rows:
        out.problems.append(Problem(file=out.path, message="holds no records"))
    return out


def _read_csv(name: str, text: str) -> RawFile:
    out = RawFile(name, "csv")
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = reader.fieldnames
        if not header:
            out.problems.append(Problem(file=name, message="CSV file has no header row"))
            return out
        for row in reader:
            if None in row:  # more cells than header columns
                out.problems.append(
                    Problem(
                        file=name,
                        line=reader.line_num,
                        message=f"row has {len(header) + len(row[None])} cells, header has {len(header)}",
                    )
                )
                continue
            if not any((v or "").strip() for v in row.values()):
                continue
            out.records.append(RawRecord({k: v for k, v in row.items() if v is not None}, reader.line_num))
    except csv.Error as exc:
        out.problems.append(Problem(file=name, message=f"invalid CSV: {exc}"))
    if not out.records and not out.problems:
        out.problems.append(Problem(file=name, message="holds no records"))
    return out


class _LinedDict(dict[str, Any]):
    """A JSON object that remembers the line it starts on."""

    line: int = 1


_decoder = json.JSONDecoder()


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WS:
        index += 1
    return index


def _parse(text: str, index: int) -> tuple[Any, int]:
    # only runs on text parse_json accepted, so it can trust the syntax and the depth (at most
    # MAX_DEPTH levels of this recursion); scalars and strings go through the C decoder, only
    # containers are walked here to learn their lines
    char = text[index]
    if char == "{":
        obj = _LinedDict()
        obj.line = text.count("\n", 0, index) + 1
        index = _skip(text, index + 1)
        while text[index] != "}":
            key, index = _decoder.raw_decode(text, index)
            index = _skip(text, _skip(text, index) + 1)  # past ':'
            obj[key], index = _parse(text, index)
            index = _skip(text, index)
            if text[index] == ",":
                index = _skip(text, index + 1)
        return obj, index + 1
    if char == "[":
        items: list[Any] = []
        index = _skip(text, index + 1)
        while text[index] != "]":
            item, index = _parse(text, index)
            items.append(item)
            index = _skip(text, index)
            if text[index] == ",":
                index = _skip(text, index + 1)
        return items, index + 1
    return _decoder.raw_decode(text, index)
