"""Import verdicts produced elsewhere (CSV, JSON, JSONL) as a run directory that reports read like any other."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cobe.core.errors import InputError
from cobe.core.files import atomic_write, check_new_directory, new_directory
from cobe.core.jsonfile import jsonl_lines, kind_of, parse_json, read_csv, read_mapping, read_text
from cobe.core.results import CHECKS, ResultRow, Verdict
from cobe.dataset.schema import ID_PATTERN
from cobe.integrations.file_kinds import not_results
from cobe.integrations.importers import ImportDone, ImportRequest, named
from cobe.integrations.query_numbering import BASES, describe, numbering
from cobe.judge.checks import row_status
from cobe.prompts.templates import load_templates

#: field → column names recognised without a mapping, first match wins
ALIASES: dict[str, tuple[str, ...]] = {
    "scenario_id": ("scenario_id", "example_id", "id", "scenario"),
    "template": ("template", "phrasing"),
    "query_index": ("query_index", "query_idx"),
    "model": ("model", "model_name"),
    "response": ("response", "output", "answer", "generation"),
    "verdict": ("verdict", "passed", "pass", "overall"),
    "connectors": ("connectors",),
    "preserve": ("preserve",),
    "change": ("change",),
    "judge": ("judge",),
    "domain": ("domain",),
}
TRUE = {"t", "true", "1", "pass", "passed", "yes", "correct"}
FALSE = {"f", "false", "0", "fail", "failed", "no", "wrong", "incorrect"}
#: verdicts a file gives as neither: the row is imported unscored, counted, never dropped
UNKNOWN = {"unknown", "unscored"}
UNKNOWN_REASON = "the imported file gives this verdict as unknown"


@dataclass
class ImportResult:
    """Where the imported run went and what it holds."""

    out: Path
    rows: int
    models: list[str]
    summary: dict[str, Any] = field(default_factory=dict)  # what summary.json holds


def template_position(name: str) -> tuple[int, int]:
    """(tier, phrasing) of a template from the bundled template files; unknown names count as tier 1."""
    template = load_templates().get(name)
    return (template.tier, template.phrasing) if template else (1, 0)


RESULTS_FILE = "a results file (CSV, a JSON array or JSON lines)"


def read_records(path: Path) -> list[tuple[int, dict]]:
    """(line number, record) pairs from a CSV, a JSON array or a JSONL file."""
    if path.suffix.lower() == ".csv":
        return read_csv(path, RESULTS_FILE)[1]
    text = read_text(path, RESULTS_FILE)
    stripped = text.lstrip()
    if stripped.startswith("["):
        data = parse_json(text, path)
        if not all(isinstance(item, dict) for item in data):
            raise InputError(f"{path}: expected a JSON array of objects, one per result")
        return [(index, item) for index, item in enumerate(data, start=1)]
    if stripped.startswith("{"):
        whole = _one_object(text, path)
        if whole is not None:
            return [(1, whole)]
    records = []
    for number, line in jsonl_lines(text):
        item = parse_json(line, path, number)
        if not isinstance(item, dict):
            raise InputError(f"{path}:{number}: expected a JSON object, got {kind_of(item)}")
        records.append((number, item))
    return records


def _one_object(text: str, path: Path) -> dict | None:
    """The file's one result, where the whole file is one JSON object naming a scenario; None where it is JSON
    lines. An object that parses whole but names no scenario is some other file: an InputError says which."""
    try:
        data = parse_json(text, path)
    except InputError:
        return None  # JSON lines (or broken JSON, which the line-by-line reading names with its line)
    if not isinstance(data, dict):
        return None
    if not any(alias in data for alias in ALIASES["scenario_id"]):
        raise InputError(not_results(path, data))
    return data


def is_unknown(value: object) -> bool:
    """Whether a verdict cell says the verdict is unknown (the site's `unknown`)."""
    return isinstance(value, str) and value.strip().lower() in UNKNOWN


def parse_verdict(value: object) -> bool | None:
    """True/False from T/F, True/False, 1/0, pass/fail or correct/wrong; None when empty; ValueError otherwise."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise ValueError(f"{value!r} is not a verdict; expected T/F, True/False, 1/0, pass/fail or correct/wrong/unknown")


def resolve_columns(headers: set[str], mapping: dict[str, str], where: Path) -> dict[str, str]:
    """Field → column: explicit mappings first (which must exist), then the known aliases."""
    unknown = set(mapping) - set(ALIASES)
    if unknown:
        raise InputError(
            f"{where}: mapping: unknown field {sorted(unknown)[0]!r}; expected one of {', '.join(ALIASES)}"
        )
    resolved = {}
    for field_name, aliases in ALIASES.items():
        if field_name in mapping:
            if mapping[field_name] not in headers:
                raise InputError(f"{where}: column {mapping[field_name]!r} (for {field_name}) not in the file")
            resolved[field_name] = mapping[field_name]
            continue
        found = next((a for a in aliases if a in headers), None)
        if found:
            resolved[field_name] = found
    return resolved


def _load_mapping(path: str | None, columns: list[str]) -> tuple[dict[str, str], dict]:
    options: dict = {}
    mapping: dict[str, str] = {}
    if path:
        data = read_mapping(path, "a mapping file (YAML)")
        if not isinstance(data.get("columns", {}), dict):
            raise InputError(f"{path}: columns: expected a mapping of field: column")
        mapping.update({str(k): str(v) for k, v in data.get("columns", {}).items()})
        options = {k: v for k, v in data.items() if k != "columns"}
    for item in columns:
        field_name, sep, column = item.partition("=")
        if not sep or not field_name or not column:
            raise InputError(f"--col {item!r}: expected FIELD=COLUMN, e.g. scenario_id=example_id")
        mapping[field_name.strip()] = column.strip()
    return mapping, options


def _scenarios(data: str) -> dict[str, object]:
    try:
        from cobe.dataset import load_dataset
    except ImportError:
        raise InputError("--data: this install has no dataset loader (cobe.dataset.load_dataset)") from None
    loaded = load_dataset(data)
    items = getattr(loaded, "scenarios", loaded)
    return {scenario.id: scenario for scenario in items}


def _has_template(record: dict, cols: dict[str, str]) -> bool:
    return "template" in cols and bool(str(record.get(cols["template"]) or "").strip())


def _template(record: dict, cols: dict[str, str], numbers: dict[int, str]) -> str:
    if _has_template(record, cols):
        return str(record[cols["template"]]).strip()
    if "query_index" in cols:
        try:
            index = int(record[cols["query_index"]])
        except (KeyError, TypeError, ValueError):
            raise ValueError("query_index: expected an integer") from None
        if index not in numbers:
            raise ValueError(f"query_index: {index} out of range; expected {describe(numbers)}")
        return numbers[index]
    raise ValueError("template: missing; expected a template (A, B, C, …) or a query index column")


def _check_verdicts(record: dict, cols: dict[str, str]) -> dict[str, bool | None]:
    """Each check's verdict the file gives (None where the cell is empty); ValueError naming a bad cell."""
    checks: dict[str, bool | None] = {}
    for check in CHECKS:
        if check in cols:
            try:
                checks[check] = parse_verdict(record.get(cols[check]))
            except ValueError as exc:
                raise ValueError(f"{check}: {exc}") from None
    return checks


def _outcome(record: dict, cols: dict[str, str]) -> dict[str, Any]:
    """The verdict fields of a row: per-check verdicts (the pass rule decides) or an overall verdict alone."""
    checks = _check_verdicts(record, cols)
    raw = record.get(cols["verdict"]) if "verdict" in cols else None
    if is_unknown(raw) and not checks:
        return unknown_outcome(UNKNOWN_REASON)
    try:
        overall = parse_verdict(raw)
    except ValueError as exc:
        raise ValueError(f"verdict: {exc}") from None
    if checks:
        verdicts: dict[str, Verdict | None] = {
            c: (None if checks.get(c) is None else "T" if checks[c] else "F") for c in CHECKS
        }
        status, passed = row_status(verdicts, None)
        if overall is not None and passed is not None and overall != passed:
            raise ValueError(f"verdict: overall {'pass' if overall else 'fail'} contradicts the per-check verdicts")
        unscored = {c: "no verdict in the imported file" for c, v in verdicts.items() if v is None}
        return {"verdicts": verdicts, "unscored": unscored, "passed": passed, "status": status}
    if overall is None:
        raise ValueError("verdict: missing; expected an overall verdict or per-check verdicts")
    # an overall verdict alone is trusted as is: no per-check detail exists to recompute it
    return {"verdicts": {}, "unscored": {}, "passed": overall, "status": "passed" if overall else "failed"}


def unknown_outcome(reason: str) -> dict[str, Any]:
    """The verdict fields of a row whose file calls its verdict unknown: unscored, with the reason on every check."""
    return {"verdicts": {}, "unscored": dict.fromkeys(CHECKS, reason), "passed": None, "status": "unscored"}


def scenario_fields(scenario: Any, template: str) -> dict[str, Any]:
    """A row's scenario metadata, story, criteria and the query it was asked, from a loaded scenario."""
    return {
        "core_id": scenario.core_id,
        "variation": scenario.variation,
        "domain": scenario.domain,
        "graph_type": getattr(scenario.graph_type, "value", scenario.graph_type),
        "failure_modes": [getattr(m, "value", m) for m in scenario.failure_modes],
        "tags": list(scenario.tags),
        "story": scenario.story,
        "preserve": list(scenario.preserve),
        "change": list(scenario.change),
        "query": scenario.query_in(template) or "",
    }


def _fields_from_id(sid: str, domain: object) -> dict[str, Any]:
    """Core and variation read from an official id, when no dataset is joined."""
    match = ID_PATTERN.match(sid)
    if not match:
        raise ValueError(
            f"scenario_id: {sid!r} is not of the form <core>v<variation> (e.g. 317v3); give --data to join it"
        )
    return {"core_id": int(match["core"]), "variation": int(match["variation"]), "domain": str(domain or "unknown")}


def validated_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row checked as a ResultRow and dumped; ValueError with the first problem's field and message."""
    try:
        return ResultRow.model_validate(row).model_dump()
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None


def _row(
    record: dict, cols: dict[str, str], model: str | None, numbers: dict[int, str], run_id: str, scenarios: dict | None
) -> dict:
    def get(name: str) -> object:
        return record.get(cols[name]) if name in cols else None

    sid = str(get("scenario_id") or "").strip()
    if not sid:
        raise ValueError("scenario_id: missing")
    template = _template(record, cols, numbers)
    name = str(get("model") or model or "").strip()
    if not name:
        raise ValueError("model: missing; give a model column or --model")
    tier, phrasing = template_position(template)
    row: dict[str, Any] = {
        "run_id": run_id,
        "model": name,
        "judge": get("judge"),
        "scenario_id": sid,
        "template": template,
        "tier": tier,
        "phrasing": phrasing,
        "response": None if get("response") is None else str(get("response")),
        **_outcome(record, cols),
    }
    if scenarios is None:
        return validated_row(row | _fields_from_id(sid, get("domain")))
    scenario = scenarios.get(sid)
    if scenario is None:
        raise ValueError(f"scenario_id: {sid!r} not in the dataset given with --data")
    return validated_row(row | scenario_fields(scenario, template))


def _summary(rows: list[dict], run_id: str, source: Path, extra: dict[str, Any]) -> dict:
    return {
        "run_id": run_id,
        "imported_from": str(source),
        **extra,
        "rows": len(rows),
        "models": sorted({r["model"] for r in rows}),
        "status": dict(Counter(r["status"] for r in rows)),
        "accuracy": model_figures(rows),
    }


def model_figures(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per model, as an import's summary.json holds them: the accuracy by its rule (cobe.score.rule) ± std, the site's
    pooled correct / (correct + wrong), and the status counts."""
    from cobe.score.accuracy import accuracy, pooled_accuracy, rows_frame

    frame = rows_frame(rows)
    pooled = {r["model"]: r["pooled_accuracy"] for r in pooled_accuracy(frame).to_dict("records")}
    statuses = Counter((r["model"], r["status"]) for r in rows)
    return {
        r["model"]: {
            "accuracy": _finite(r["accuracy"]),  # by the model's rule: pooled where one query per scenario
            "std": _finite(r["std"]),
            "rule": r["rule"],
            # every scored row at once: the figure the project site reports, correct / (correct + wrong)
            "pooled_accuracy": _finite(pooled.get(r["model"])),
            **{status: statuses[(r["model"], status)] for status in ("passed", "failed", "unscored")},
        }
        for r in accuracy(frame).to_dict("records")
    }


def _finite(value: Any) -> float | None:
    # JSON has no NaN; a model with nothing scored has no accuracy
    return None if value is None or value != value else float(value)


def nothing_written(problems: list[str], what: str = "row") -> None:
    """Refuse an import with bad rows, every one listed, one a line, before anything is written."""
    if problems:
        raise InputError(f"{len(problems)} bad {what}(s); nothing written:\n" + "\n".join(problems))


def write_run(
    rows: list[dict[str, Any]], out_dir: Path, source: Path, extra: dict[str, Any] | None = None
) -> ImportResult:
    """results.jsonl and summary.json of imported rows, written whole into `out_dir` or not at all."""
    summary = _summary(rows, out_dir.name, source, extra or {})
    # built in a sibling folder, then renamed: a failure leaves no half-written run
    with new_directory(out_dir) as staging:
        atomic_write(staging / "results.jsonl", "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
        atomic_write(staging / "summary.json", json.dumps(summary, indent=2))
    return ImportResult(out=out_dir, rows=len(rows), models=sorted({r["model"] for r in rows}), summary=summary)


def import_results(
    file: str | Path,
    out: str | Path,
    mapping: str | None = None,
    columns: list[str] | None = None,
    model: str | None = None,
    data: str | None = None,
) -> ImportResult:
    """Convert an external verdict file into a run directory (results.jsonl + summary.json), all or nothing."""
    source, out_dir = Path(file), Path(out)
    check_new_directory(out_dir)
    fields, options = _load_mapping(mapping, columns or [])
    model = model or options.get("model")
    if model is not None and not isinstance(model, str):
        raise InputError(f"{mapping}: model: expected a model name, got {kind_of(model)}")
    base = options.get("query_index_base", 0)
    if isinstance(base, bool) or base not in BASES:
        raise InputError(
            f"{mapping}: query_index_base: expected 0, 1 (the index of the first query) or site (2, 5, 7), got {base!r}"
        )
    records = read_records(source)
    if not records:
        raise InputError(f"{source}: no rows; expected a header and one row per result")
    headers = set().union(*(record.keys() for _, record in records))
    cols = resolve_columns(headers, fields, source)
    scenarios = _scenarios(data) if data else None
    run_id = out_dir.name
    indices = (
        [r.get(cols["query_index"]) for _, r in records if not _has_template(r, cols)] if "query_index" in cols else []
    )
    numbers = numbering(base, indices)

    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    seen: dict[tuple[str, str, str], int] = {}
    for line, record in records:
        try:
            row = _row(record, cols, model, numbers, run_id, scenarios)
        except ValueError as exc:
            problems.append(f"{source}:{line}: {exc}")
            continue
        key = (row["model"], row["scenario_id"], row["template"])
        if key in seen:
            problems.append(f"{source}:{line}: scenario_id: {key[1]} template {key[2]} already on line {seen[key]}")
            continue
        seen[key] = line
        rows.append(row)
    nothing_written(problems)
    return write_run(rows, out_dir, source)


def import_request(request: ImportRequest) -> ImportDone:
    """`cobe import --from verdicts`: the file as a run, and the line naming what it holds."""
    result = import_results(
        request.file,
        request.out,
        mapping=request.mapping,
        columns=list(request.columns),
        model=request.model,
        data=request.data,
    )
    return ImportDone(result.out, [f"Imported {result.rows} rows ({named(result.models)}) into {result.out}"])
