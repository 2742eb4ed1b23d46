"""Progress displays: rich bars per stage (generate / judge / batch) on a TTY, plain batch lines elsewhere."""

from __future__ import annotations

import sys
import time
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


class RichProgress:
    """Implements the engine's Progress protocol with one bar per stage; redraws are rate-limited by rich."""

    def __init__(self) -> None:
        self._bars = Progress(
            TextColumn("{task.description:<9}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errors {task.fields[errors]}"),
            TimeRemainingColumn(),
            transient=False,
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

    def batch(self, batch_id: str, status: str, done: int, total: int) -> None:
        """A provider batch's latest poll: its status and how many requests it has finished."""
        description = f"batch {status}"
        task = self._tasks.get("batch")
        if task is None:
            self._errors["batch"] = 0
            self._tasks["batch"] = self._bars.add_task(description, total=total or None, completed=done, errors=0)
        else:
            self._bars.update(task, description=description, total=total or None, completed=done)

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


class PlainProgress:
    """Off a terminal: no bars, but one stderr line per batch poll, so a long wait shows it is alive."""

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def start(self, stage: str, total: int, done: int) -> None:
        """Stages draw nothing here."""

    def advance(self, stage: str, error: bool = False) -> None:
        """Stages draw nothing here."""

    def batch(self, batch_id: str, status: str, done: int, total: int) -> None:
        """One line per poll: batch id, status, requests finished of total."""
        print(f"judge batch {batch_id}: {status}, {done}/{total} requests finished", file=sys.stderr, flush=True)
