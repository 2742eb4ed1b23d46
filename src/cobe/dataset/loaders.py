"""Read dataset files of any official shape into Scenarios, and load whole datasets."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass, field
from importlib.resources import files
from itertools import chain
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError
from cobe.dataset.check import build_scenario, domain_missing
from cobe.dataset.graph_labels import known_spellings
from cobe.dataset.hub import is_table_source, read_table
from cobe.dataset.problems import Problem, ProblemSink
from cobe.dataset.rawread import RawFile, RawRecord, jsonl_file_records, read_raw
from cobe.dataset.schema import UNKNOWN_DOMAIN, Scenario
from cobe.dataset.shapes import Normalised, detect_shape, from_native, from_paper, merge_site_rows, site_key
from cobe.dataset.spool import ScenarioSpool

BUILTIN_PREFIX = "builtin:"
_NATIVE_FIELDS = set(Scenario.model_fields)


def builtin_dir() -> Path:
    """The folder of the datasets shipped with cobe (`builtin:<name>` → `<name>.jsonl` here)."""
    return Path(str(files("cobe.dataset").joinpath("builtin")))


@dataclass
class LoadResult:
    """What one file held: its scenarios, every problem found, and its shape."""

    path: str
    scenarios: list[Scenario] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    shape: str = "unknown"  # e.g. paper-json, paper-jsonl, site-by-domain, csv, native-jsonl
    # scenario id → line it starts on (any mapping: a validator of huge files keeps it on disk)
    lines: MutableMapping[str, int | None] = field(default_factory=dict)

    @property
    def errors(self) -> list[Problem]:
        """The problems that are errors, not warnings."""
        return [p for p in self.problems if p.is_error]

    def report(self, problem: Problem) -> None:
        """Note a problem found in the file; a reader that streams may pass it on instead of keeping it."""
        self.problems.append(problem)


def read_file(path: str | Path) -> LoadResult:
    """Read one dataset file of any supported shape; bad content becomes problems, never an exception.

    `hf:ORG/NAME[:SPLIT]`, `.parquet` files and `save_to_disk` folders are read through `datasets`.
    """
    return _read(read_table(path) if is_table_source(path) else read_raw(path))


def read_rows(rows: list[dict[str, Any]], name: str) -> LoadResult:
    """Records already in memory (a table, another tool's log) checked exactly as a file's are; line = row number."""
    return _read(RawFile(name, "rows", records=[RawRecord(dict(row), n) for n, row in enumerate(rows, start=1)]))


def read_raw_file(raw: RawFile) -> LoadResult:
    """Raw records some other reader found (a results file's examples) checked exactly as a dataset file's are."""
    return _read(raw)


def _read(raw: RawFile) -> LoadResult:
    result = LoadResult(path=raw.path, problems=list(raw.problems))
    result.scenarios.extend(_scenarios(raw.path, raw.container, iter(raw.records), result))
    return result


def _scenarios(path: str, container: str, records: Iterator[RawRecord], result: LoadResult) -> Iterator[Scenario]:
    """The scenarios of a file's raw records as they are built; problems, shape and lines go to `result`."""
    first = next(records, None)
    if first is None:
        return
    record_shape = detect_shape(first.data, container)
    result.shape = record_shape if record_shape == "csv" else f"{record_shape}-{_layout(container)}"
    no_domain: list[int | None] = []  # the lines of scenarios that name no domain: one warning says them all
    unknown_graphs: dict[str, list[tuple[int | None, str]]] = {}  # label → (line, id): one warning per label
    for rec in _normalise(path, chain([first], records), record_shape):
        scenario = build_scenario(rec, record_shape)
        for problem in rec.sink.problems:
            result.report(problem)
        if rec.unknown_graph is not None:
            unknown_graphs.setdefault(rec.unknown_graph, []).append((rec.line, rec.sink.id))
        if scenario is not None and domain_missing(rec):
            no_domain.append(rec.line)
        if scenario is not None:
            # by id, not by line: a JSON file written on one line has every record on line 1
            if scenario.id in result.lines:
                result.report(
                    Problem(
                        file=path,
                        line=rec.line,
                        id=scenario.id,
                        field="id",
                        message="duplicate id (earlier in this file)",
                    )
                )
            result.lines.setdefault(scenario.id, rec.line)
            yield scenario
    if no_domain:
        result.report(_no_domain_warning(path, no_domain))
    for label, lines in unknown_graphs.items():
        result.report(_unknown_graph_warning(path, label, lines))


def _no_domain_warning(path: str, lines: list[int | None]) -> Problem:
    count = len(lines)
    return Problem(
        file=path,
        line=lines[0],
        field="domain",
        message=f"{count} scenario{'s' if count != 1 else ''} name no domain; "
        f"{'they are' if count != 1 else 'it is'} grouped as {UNKNOWN_DOMAIN!r}",
        severity="warning",
    )


def _unknown_graph_warning(path: str, label: str, where: list[tuple[int | None, str]]) -> Problem:
    count, (line, first) = len(where), where[0]
    return Problem(
        file=path,
        line=line,
        id=first,
        field="graph_type",
        message=f"unknown graph type {label!r} on {count} scenario{'s' if count != 1 else ''} (expected one of "
        f"{known_spellings()}, in any case, with or without -like); left unlabelled",
        severity="warning",
    )


def _layout(container: str) -> str:
    return {"json-array": "json", "json-object": "json"}.get(container, container)


def _normalise(path: str, records: Iterator[RawRecord], shape: str) -> Iterator[Normalised]:
    if shape == "site":  # a scenario is several rows: grouped before any is built
        groups: dict[str, list[RawRecord]] = {}
        for rec in records:
            groups.setdefault(site_key(rec), []).append(rec)
        for key, rows in groups.items():
            yield merge_site_rows(rows, ProblemSink(path, rows[0].line, key))
        return
    for rec in records:
        sink = ProblemSink(path, rec.line)
        if shape in ("paper", "csv"):
            yield from_paper(rec, sink, csv_mode=shape == "csv")
        else:
            yield from_native(rec, sink, _NATIVE_FIELDS)


class Dataset:
    """A loaded dataset: its scenarios in file order, indexed by id."""

    def __init__(self, scenarios: list[Scenario], source: str) -> None:
        self.scenarios = scenarios
        self.source = source
        self.by_id = {s.id: s for s in scenarios}

    def __len__(self) -> int:
        return len(self.scenarios)

    def __iter__(self) -> Iterator[Scenario]:
        return iter(self.scenarios)

    def __repr__(self) -> str:
        return f"Dataset({self.source!r}, {len(self)} scenarios)"

    def get(self, scenario_id: str) -> Scenario:
        """The scenario with this id; InputError naming the source when there is none."""
        try:
            return self.by_id[scenario_id]
        except KeyError:
            raise InputError(f"{self.source}: no scenario with id {scenario_id!r}") from None


def resolve_source(source: str | Path) -> Path:
    """The file a dataset source names: a path, or `builtin:<name>` for a bundled dataset (`hf:…` passes through)."""
    text = str(source)
    if not text.startswith(BUILTIN_PREFIX):
        return Path(text)
    name = text[len(BUILTIN_PREFIX) :]
    path = builtin_dir() / f"{name}.jsonl"
    if not name or not path.is_file():
        names = sorted(p.stem for p in builtin_dir().glob("*.jsonl"))
        available = ", ".join(f"builtin:{n}" for n in names) or "none installed"
        raise InputError(f"unknown bundled dataset {text!r}; available: {available}")
    return path


def load_dataset(source: str | Path) -> Dataset:
    """Load a dataset from a path or `builtin:<name>`; InputError on the first error in the file."""
    path = resolve_source(source)
    result = read_file(path)
    _refuse_errors(result.errors, path)
    return Dataset(result.scenarios, str(source))


def _refuse_errors(errors: list[Problem], path: Path) -> None:
    if errors:
        rest = len(errors) - 1
        more = (
            f" (and {rest} more error{'s' if rest != 1 else ''}; run `cobe data validate {path}` to list them)"
            if rest
            else ""
        )
        raise InputError(f"{errors[0].brief()}{more}")


def iter_dataset(source: str | Path) -> Iterator[Scenario]:
    """The scenarios of `load_dataset(source)`, one at a time: a JSON-lines file is never held parsed whole.

    The whole file is still checked: once it is read, an error anywhere raises the same InputError as
    `load_dataset`, so a caller keeps nothing from a file that fails. Shapes that are one document
    (JSON, CSV, tables) or that spread a scenario over rows are loaded whole.
    """
    path = resolve_source(source)
    if is_table_source(path) or path.suffix.lower() not in (".jsonl", ".ndjson"):
        yield from load_dataset(source).scenarios
        return
    name = str(path)
    read: list[Problem] = []  # problems of reading lines, reported before those of building, as read_file does
    records = jsonl_file_records(path, read)
    first = next(records, None)
    if first is None:
        _refuse_errors(read or [Problem(file=name, message="holds no records")], path)
        return  # a file of warnings only
    if detect_shape(first.data, "jsonl") == "site":
        yield from load_dataset(source).scenarios  # a scenario spans rows: grouped whole
        return
    result = LoadResult(path=name)
    yield from _scenarios(name, "jsonl", chain([first], records), result)
    _refuse_errors([p for p in read + result.problems if p.is_error], path)


def scan_file(path: str | Path, result: LoadResult) -> Iterator[Scenario]:
    """The scenarios of one dataset file as they are built, each problem passed to `result.report` as it is
    found, in line order; never raises on bad content.

    A JSON-lines file is read one line at a time, so a file of any length is never held whole (what stays
    is `result.lines`, and the problems if `result` keeps them). Shapes that are one document (JSON, CSV,
    tables) or that spread a scenario over rows are read whole first, as `read_file` reads them.
    """
    path = Path(path)
    if not is_table_source(path) and path.suffix.lower() in (".jsonl", ".ndjson"):
        read: list[Problem] = []  # problems of reading lines, passed on before the next record's
        records = jsonl_file_records(path, read)
        first = next(records, None)
        if first is None or detect_shape(first.data, "jsonl") != "site":
            for problem in read or ([] if first else [Problem(file=str(path), message="holds no records")]):
                result.report(problem)
            read.clear()
            if first is not None:
                yield from _scenarios(str(path), "jsonl", _passing_on(chain([first], records), read, result), result)
            return
        records.close()
    whole = read_file(path)  # site rows are grouped into scenarios before any is built
    result.shape = whole.shape
    for problem in whole.problems:
        result.report(problem)
    for scenario in whole.scenarios:
        result.lines.setdefault(scenario.id, whole.lines.get(scenario.id))
        yield scenario


def _passing_on(records: Iterator[RawRecord], read: list[Problem], result: LoadResult) -> Iterator[RawRecord]:
    """`records`, with the line problems `read` collects passed to `result` before each record and at the end."""
    for record in records:
        for problem in read:
            result.report(problem)
        read.clear()
        yield record
    for problem in read:
        result.report(problem)
    read.clear()


def spool_dataset(source: str | Path) -> ScenarioSpool:
    """The scenarios of `source` in a `ScenarioSpool`: on disk, read back one at a time."""
    spool = ScenarioSpool()
    try:
        for scenario in iter_dataset(source):
            spool.append(scenario)
    except BaseException:
        spool.close()
        raise
    return spool
