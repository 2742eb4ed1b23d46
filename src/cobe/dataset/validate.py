"""Validate dataset files: every problem in every file, plus ids repeated across files."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cobe.core.errors import CobeError
from cobe.dataset.check import build_scenario
from cobe.dataset.loaders import BUILTIN_PREFIX, read_file, resolve_source
from cobe.dataset.problems import Problem, ProblemSink, count, strictify
from cobe.dataset.rawread import RawRecord
from cobe.dataset.schema import Scenario
from cobe.dataset.shapes import from_native


@dataclass
class ValidationReport:
    """The problems found in a set of files, and how much was read."""

    problems: list[Problem] = field(default_factory=list)
    files: int = 0
    scenarios: int = 0
    shapes: dict[str, str] = field(default_factory=dict)  # file → the shape it was read as

    @property
    def errors(self) -> int:
        """How many problems are errors."""
        return count(self.problems)[0]

    @property
    def warnings(self) -> int:
        """How many problems are warnings."""
        return count(self.problems)[1]

    def summary(self) -> str:
        """One line: errors, warnings, files and scenarios."""
        return (
            f"{_plural(self.errors, 'error')}, {_plural(self.warnings, 'warning')} "
            f"in {_plural(self.files, 'file')} / {_plural(self.scenarios, 'scenario')}"
        )

    def to_dict(self) -> dict[str, object]:
        """The report as JSON-ready data."""
        return {
            "errors": self.errors,
            "warnings": self.warnings,
            "files": self.files,
            "scenarios": self.scenarios,
            "shapes": self.shapes,
            "problems": [p.model_dump() | {"text": str(p)} for p in self.problems],
        }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def validate(paths: Iterable[str | Path], strict: bool = False) -> ValidationReport:
    """Read every file in `paths` and report all problems; `strict` makes warnings errors."""
    report = ValidationReport()
    seen: dict[str, str] = {}
    for path in paths:
        # a bundled dataset is validated like any file; an unknown name is reported, not raised
        if str(path).startswith(BUILTIN_PREFIX):
            try:
                path = resolve_source(path)
            except CobeError as exc:
                report.files += 1
                report.problems.append(Problem(file=str(path), line=None, id="-", field="-", message=str(exc)))
                continue
        result = read_file(path)
        report.files += 1
        report.shapes[result.path] = result.shape
        report.scenarios += len(result.scenarios)
        report.problems.extend(result.problems)
        # read_file reported repeats within the file; here only ids an earlier file holds
        for scenario in result.scenarios:
            if scenario.id in seen and seen[scenario.id] != result.path:
                report.problems.append(
                    Problem(
                        file=result.path,
                        line=result.lines.get(scenario.id),
                        id=scenario.id,
                        field="id",
                        message=f"duplicate id (already in {seen[scenario.id]})",
                    )
                )
        for scenario in result.scenarios:
            seen.setdefault(scenario.id, result.path)
    if strict:
        report.problems = strictify(report.problems)
    return report


def validate_paths(paths: Iterable[str | Path], strict: bool = False) -> list[Problem]:
    """Every problem in the files `paths`, including ids repeated across them."""
    return validate(paths, strict).problems


def validate_record(
    data: dict[str, Any], label: str = "record", strict: bool = True
) -> tuple[Scenario | None, list[Problem]]:
    """Check one native record exactly as `cobe data validate` checks a line of a file.

    For records that arrive one at a time (a web form, a model's answer): the scenario, or
    None when there is an error, and every problem found.
    """
    sink = ProblemSink(label, None, str(data.get("id") or "-"))
    scenario = build_scenario(from_native(RawRecord(data=data, line=None), sink, set(Scenario.model_fields)), "native")
    problems = strictify(sink.problems) if strict else list(sink.problems)
    if any(p.is_error for p in problems):
        return None, problems
    return scenario, problems
