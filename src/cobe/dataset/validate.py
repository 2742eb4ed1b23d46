"""Validate dataset files: every problem in every file, plus ids repeated across files."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cobe.core.errors import CobeError
from cobe.dataset.check import build_scenario
from cobe.dataset.idindex import FileIds, IdIndex
from cobe.dataset.loaders import BUILTIN_PREFIX, LoadResult, resolve_source, scan_file
from cobe.dataset.problems import Problem, ProblemSink, strictify
from cobe.dataset.rawread import RawRecord
from cobe.dataset.schema import Scenario
from cobe.dataset.shapes import from_native


@dataclass
class ValidationReport:
    """The problems found in a set of files, and how much was read.

    With `keep=False` the problems are only counted: a validator that prints each one as it is found
    (`validate(..., on_problem=...)`) holds none of them, whatever the files' length.
    """

    problems: list[Problem] = field(default_factory=list)
    files: int = 0
    scenarios: int = 0
    shapes: dict[str, str] = field(default_factory=dict)  # file → the shape it was read as
    errors: int = 0
    warnings: int = 0
    keep: bool = True

    def add(self, problem: Problem) -> None:
        """Count a problem (and keep it, unless the report only counts)."""
        if problem.is_error:
            self.errors += 1
        else:
            self.warnings += 1
        if self.keep:
            self.problems.append(problem)

    def summary(self) -> str:
        """One line: errors, warnings, files and scenarios."""
        return (
            f"{_plural(self.errors, 'error')}, {_plural(self.warnings, 'warning')} "
            f"in {_plural(self.files, 'file')} / {_plural(self.scenarios, 'scenario')}"
        )

    def counts(self) -> dict[str, int]:
        """errors, warnings, files and scenarios, as JSON-ready data."""
        return {"errors": self.errors, "warnings": self.warnings, "files": self.files, "scenarios": self.scenarios}

    def to_dict(self) -> dict[str, object]:
        """The report as JSON-ready data."""
        return self.counts() | {"shapes": self.shapes, "problems": [problem_dict(p) for p in self.problems]}


def problem_dict(problem: Problem) -> dict[str, object]:
    """One problem as JSON-ready data, with the line `cobe data validate` prints for it."""
    return problem.model_dump() | {"text": str(problem)}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class _Checked(LoadResult):
    """What the validator needs of a file being read: each problem handed on at once, ids kept on disk."""

    def __init__(self, path: str, lines: FileIds, hand_on: Callable[[Problem], None]) -> None:
        super().__init__(path=path, lines=lines)
        self._hand_on = hand_on

    def report(self, problem: Problem) -> None:
        self._hand_on(problem)


def validate(
    paths: Iterable[str | Path], strict: bool = False, on_problem: Callable[[Problem], None] | None = None
) -> ValidationReport:
    """Read every file in `paths` and report all problems; `strict` makes warnings errors.

    Files are read as they stream (JSON lines a line at a time) and the ids are kept on disk, so memory
    stays flat in the files' length. With `on_problem`, each problem goes there as it is found and the
    report only counts them; without, the report keeps them all.
    """
    report = ValidationReport(keep=on_problem is None)

    def found(problem: Problem) -> None:
        if strict and not problem.is_error:
            problem = strictify([problem])[0]
        report.add(problem)
        if on_problem is not None:
            on_problem(problem)

    names: list[str] = []
    with IdIndex() as index:
        for path in paths:
            report.files += 1
            # a bundled dataset is validated like any file; an unknown name is reported, not raised
            if str(path).startswith(BUILTIN_PREFIX):
                try:
                    path = resolve_source(path)
                except CobeError as exc:
                    found(Problem(file=str(path), line=None, id="-", field="-", message=str(exc)))
                    continue
            number, name = len(names), str(path)
            names.append(name)
            checked = _Checked(name, index.file(number), found)
            for _ in scan_file(path, checked):
                report.scenarios += 1
            report.shapes[name] = checked.shape
            # scan_file reported repeats within the file; here only ids an earlier file holds
            for sid, line, earlier in index.repeated(number):
                message = f"duplicate id (already in {names[earlier]})"
                found(Problem(file=name, line=line, id=sid, field="id", message=message))
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
