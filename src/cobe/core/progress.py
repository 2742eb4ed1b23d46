"""Progress displays: rich bars per stage (generate / judge / batch) on a terminal, plain lines elsewhere.

Off a terminal (CI logs, nohup, a notebook's subprocess) `PlainProgress` writes one line per stage to
stderr at least every 10 s and whenever another 5% of it is done: done of total, failed, rate and ETA.
With `verbose`, both also print each retry, rate-limit wait and refused or given-up call as it happens.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

#: the longest a plain display stays silent while a stage runs, in seconds
PLAIN_EVERY_S = 10.0
#: the share of a stage after which the plain display writes a line, whatever the time
PLAIN_STEP = 0.05
#: the shortest time between two lines of one stage, but for its last: a small fast run stays a few lines
PLAIN_GAP_S = 1.0
#: what every line of the plain display starts with
PREFIX = "progress: "


class Progress(Protocol):
    """What the engine reports while it works; the CLI draws it, the API may ignore it."""

    def start(self, stage: str, total: int, done: int) -> None:
        """A stage (generate / judge) has `total` items, `done` of them already in the store."""

    def advance(self, stage: str, error: bool = False) -> None:
        """One more item of a stage finished (with an error or unscored check when `error`)."""


class NoProgress:
    """The engine's progress when nobody watches."""

    def start(self, stage: str, total: int, done: int) -> None:
        pass

    def advance(self, stage: str, error: bool = False) -> None:
        pass


class RichProgress:
    """Implements the engine's Progress protocol with one bar per stage; redraws are rate-limited by rich."""

    def __init__(self, verbose: bool = False) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._bars = Progress(
            TextColumn("{task.description:<9}", markup=False),  # a batch's status is the provider's words
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errors {task.fields[errors]}", markup=False),
            TimeRemainingColumn(),
            transient=False,
        )
        self.verbose = verbose
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

    def event(self, line: str) -> None:
        """A retry or refusal as it happens (-v), printed above the bars."""
        if self.verbose:
            self._bars.console.print(line, markup=False, highlight=False)


@dataclass
class _Stage:
    """What the plain display knows of one stage."""

    total: int
    done: int
    started: float  # monotonic time the stage began
    at_start: int  # items done before this command (the rate counts this command's only)
    failed: int = 0
    shown_step: int = 0  # the last 5% step a line was written for
    shown_at: float = 0.0  # monotonic time of its last line

    @property
    def finished(self) -> bool:
        return self.done >= self.total


class PlainProgress:
    """Off a terminal: a stderr line per stage at least every `every` seconds and at each `step` of it done,
    one per batch poll, and with `verbose` each retry and refusal; a thread keeps the time while nothing ends."""

    def __init__(
        self,
        verbose: bool = False,
        *,
        stream: TextIO | None = None,
        every: float = PLAIN_EVERY_S,
        step: float = PLAIN_STEP,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.verbose, self.every, self.step, self.clock = verbose, every, step, clock
        self.stream = stream
        self._stages: dict[str, _Stage] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._last_line = clock()
        self._ticker: threading.Thread | None = None

    def __enter__(self) -> PlainProgress:
        self._ticker = threading.Thread(target=self._tick, name="cobe-progress", daemon=True)
        self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()

    def _tick(self) -> None:
        # wakes when a line is due: `every` seconds after the last one, whatever the engine is doing
        while not self._stop.wait(max(0.05, self._last_line + self.every - self.clock())):
            with self._lock:
                if self.clock() - self._last_line >= self.every:
                    self._write_stages()

    def _write(self, line: str) -> None:
        # one prefix on every line, so a log reader (or `grep -v`) tells progress from notes and errors
        # one write of the whole line: print() writes the text and its newline apart, and a note echoed to
        # stderr by another stream object between the two would share its line
        stream = self.stream or sys.stderr
        stream.write(f"{PREFIX}{line}\n")
        stream.flush()
        self._last_line = self.clock()

    def _write_stages(self) -> None:
        for name, stage in self._stages.items():
            if not stage.finished:
                self._write(self.line(name, stage))
        self._last_line = self.clock()  # nothing running: the next look is `every` seconds away all the same

    def line(self, name: str, stage: _Stage) -> str:
        """One stage as a line: done of total, failed, this command's rate and the time left at that rate."""
        share = stage.done / stage.total if stage.total else 1.0
        elapsed = self.clock() - stage.started
        rate = (stage.done - stage.at_start) / elapsed if elapsed > 0 else 0.0
        left = stage.total - stage.done
        eta = "done" if left <= 0 else _duration(left / rate) if rate > 0 else "unknown"
        return (
            f"{name} {stage.done}/{stage.total} done ({100 * share:.0f}%), {stage.failed} failed, "
            f"{rate:.1f}/s, ETA {eta}"
        )

    def start(self, stage: str, total: int, done: int) -> None:
        """A stage with `total` items, `done` already stored: its first line at once."""
        with self._lock:
            state = _Stage(total, done, self.clock(), done)
            state.shown_step, state.shown_at = self._step(state), self.clock()
            self._stages[stage] = state
            self._write(self.line(stage, state))

    def advance(self, stage: str, error: bool = False) -> None:
        """One item of a stage finished: a line when it crosses another step (and when the stage ends)."""
        with self._lock:
            state = self._stages.get(stage)
            if state is None:
                return
            state.done += 1
            state.failed += error
            step = self._step(state)
            due = step > state.shown_step and self.clock() - state.shown_at >= PLAIN_GAP_S
            if due or state.finished:
                state.shown_step, state.shown_at = step, self.clock()
                self._write(self.line(stage, state))

    def _step(self, state: _Stage) -> int:
        return int(state.done / state.total / self.step) if state.total else 0

    def batch(self, batch_id: str, status: str, done: int, total: int) -> None:
        """One line per poll: batch id, status, requests finished of total."""
        with self._lock:
            self._write(f"judge batch {batch_id}: {status}, {done}/{total} requests finished")

    def event(self, line: str) -> None:
        """A retry or refusal as it happens (-v)."""
        if self.verbose:
            with self._lock:
                self._write(line)


def _duration(seconds: float) -> str:
    """12 s, 3m05s, 2h07m."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
