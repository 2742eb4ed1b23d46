"""Contributions: imported files, the web form, and promotion of candidates to core examples."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cobe.core.errors import CobeError, InputError
from cobe.curate.project import Project
from cobe.dataset.loaders import read_file
from cobe.dataset.problems import Problem
from cobe.dataset.queries import tier1_queries
from cobe.dataset.validate import validate_record


@dataclass
class ImportResult:
    """What an import added, and what it had to skip (with the reason for each)."""

    added: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    shape: str = "unknown"


def import_file(project: Project, path: str | Path, actor: str = "import") -> ImportResult:
    """Add every scenario of a dataset file (any shape cobe reads) as a candidate."""
    loaded = read_file(path)
    result = ImportResult(problems=list(loaded.problems), shape=loaded.shape)
    if not loaded.scenarios and loaded.errors:
        raise InputError(
            f"{loaded.errors[0].brief()} (nothing imported; run `cobe data validate {path}` to list every problem)"
        )
    for scenario in loaded.scenarios:
        try:
            project.add_item(
                scenario,
                status="candidate",
                source=f"import:{Path(path).name}",
                actor=actor,
                reason=f"imported from {path}",
            )
        except CobeError as exc:
            result.skipped.append(f"{scenario.id}: {exc}")
            continue
        result.added.append(scenario.id)
    return result


def promote(project: Project, ids: list[str], to: str = "core", actor: str = "cli", reason: str = "") -> list[str]:
    """Make candidates core examples (or reject them with `to="rejected"`); returns the ids moved."""
    if to not in ("core", "rejected"):
        raise InputError(f"--to {to}: candidates can only be promoted to core or rejected")
    for item_id in ids:  # check all first so a bad id moves nothing
        status = project.item(item_id).status
        if status != "candidate":
            raise InputError(f"item {item_id}: is {status}, only candidates can be promoted")
    for item_id in ids:
        project.set_status(item_id, to, actor=actor, reason=reason or f"promoted to {to}", is_core=to == "core")
    return ids


def form_record(project: Project, form: dict[str, str]) -> tuple[dict[str, Any], list[Problem]]:
    """Turn the contribution form's fields into a native record; problems for fields it cannot parse."""
    problems: list[Problem] = []
    core_id = project.next_core_id()

    def lines(name: str) -> list[str]:
        return [line.strip() for line in form.get(name, "").splitlines() if line.strip()]

    intervention = form.get("intervention", "").strip().rstrip(".")
    record: dict[str, Any] = {
        "id": f"{core_id}v0",
        "core_id": core_id,
        "variation": 0,
        "domain": form.get("domain", "").strip(),
        "story": form.get("story", "").strip(),
        "illustrative_answer": form.get("illustrative_answer", "").strip(),
        "preserve": lines("preserve"),
        "change": lines("change"),
        "intervention": intervention or None,
    }
    if form.get("original_condition", "").strip():
        record["original_condition"] = form["original_condition"].strip()
    try:
        # the queries are written from the clause, so every contribution follows templates A-C
        record["queries"] = tier1_queries(intervention) if intervention else []
    except InputError as exc:
        problems.append(Problem(file="form", id=record["id"], field="intervention", message=str(exc)))
        record["queries"] = []
    if not intervention:
        problems.append(Problem(file="form", id=record["id"], field="intervention", message="required field is empty"))
    graph_text = form.get("graph", "").strip()
    if graph_text:
        try:
            record["graph"] = json.loads(graph_text)
        except json.JSONDecodeError as exc:
            problems.append(
                Problem(
                    file="form",
                    id=record["id"],
                    field="graph",
                    message=f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                )
            )
    return record, problems


def submit_contribution(project: Project, form: dict[str, str], actor: str) -> tuple[str | None, list[Problem]]:
    """Validate the contribution form and add it as a candidate; (new id, []) or (None, problems)."""
    record, problems = form_record(project, form)
    if problems:
        return None, problems
    scenario, problems = validate_record(record, "form")
    if scenario is None:
        return None, problems
    project.add_item(scenario, status="candidate", source="form", actor=actor, reason="contributed via the web form")
    return scenario.id, []
