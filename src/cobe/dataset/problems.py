"""Problems found in a dataset file: one located, one-line finding each."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

Severity = Literal["error", "warning"]


class Problem(BaseModel):
    """One finding in a dataset file, printed as `file:line: id: field: message`."""

    file: str
    line: int | None = None
    id: str = "-"
    field: str = "-"
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.id}: {self.field}: {self.message}"

    def brief(self) -> str:
        """The problem as one error line for a command: the columns a report pads with `-` are left out."""
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return ": ".join([where, *(part for part in (self.id, self.field) if part != "-"), self.message])

    @property
    def is_error(self) -> bool:
        """True for an error, False for a warning."""
        return self.severity == "error"


class ProblemSink:
    """Collects problems for one record, so every check can report without stopping."""

    def __init__(self, file: str, line: int | None, record_id: str = "-") -> None:
        self.file = file
        self.line = line
        self.id = record_id
        self.problems: list[Problem] = []

    def error(self, field: str, message: str) -> None:
        """Record an error on `field`."""
        self._add(field, message, "error")

    def warning(self, field: str, message: str) -> None:
        """Record a warning on `field`."""
        self._add(field, message, "warning")

    def _add(self, field: str, message: str, severity: Severity) -> None:
        self.problems.append(
            Problem(file=self.file, line=self.line, id=self.id, field=field, message=message, severity=severity)
        )

    @property
    def has_errors(self) -> bool:
        """Whether any error (not warning) was recorded."""
        return any(p.is_error for p in self.problems)


def count(problems: list[Problem]) -> tuple[int, int]:
    """(errors, warnings) among `problems`."""
    errors = sum(1 for p in problems if p.is_error)
    return errors, len(problems) - errors


def strictify(problems: list[Problem]) -> list[Problem]:
    """The same problems with every warning promoted to an error (the --strict mode)."""
    return [p.model_copy(update={"severity": "error"}) for p in problems]
