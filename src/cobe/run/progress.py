"""A rich progress display per stage (generate / judge): counts, errors, ETA. Only used on a TTY."""

from __future__ import annotations

import time
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


class RichProgress:
    """Implements the engine's Progress protocol with one bar per stage; redraws are rate-limited by rich."""

    def __init__(self) -> None:
        self._bars = Progress(
            TextColumn("{task.description:<9}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("errors {task.fields[errors]}"), TimeRemainingColumn(), transient=False,
        )
        self._tasks: dict[str, Any] = {}
        self._errors: dict[str, int] = {}
        self._last = 0.0

    def __enter__(self) -> RichProgress:
        self._bars.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for stage, task in self._tasks.items():
            self._bars.update(task, errors=self._errors[stage])
        self._bars.stop()

    def start(self, stage: str, total: int, done: int) -> None:
        """A stage with `total` items, `done` already stored."""
        self._errors[stage] = 0
        self._tasks[stage] = self._bars.add_task(stage, total=total, completed=done, errors=0)

    def advance(self, stage: str, error: bool = False) -> None:
        """One item of a stage finished."""
        task = self._tasks.get(stage)
        if task is None:
            return
        if error:
            self._errors[stage] += 1
        self._bars.advance(task)
        now = time.monotonic()
        if error or now - self._last > 0.2:  # the error count is a field, refresh it sparingly
            self._last = now
            self._bars.update(task, errors=self._errors[stage])
