"""What every rendering of a report shows, gathered once: report.md and report.html take the same content."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from cobe.report.against import Against


@dataclass(frozen=True)
class ReportContent:
    """The tables of a report, the runs they came from, how their intervals were drawn, and what runs add."""

    tables: dict[str, pd.DataFrame]
    runs: list[str]
    resamples: int
    seed: int
    agreement: dict[str, dict] = field(default_factory=dict)  # run → its judge–human agreement report
    judge_checks: dict[str, dict] = field(default_factory=dict)  # run → its judge self-test
    audits: dict[str, dict] = field(default_factory=dict)  # run → the card of its judge's audit (audit.json)
    settings: dict[str, dict] = field(default_factory=dict)  # run → how each model was asked (summary.json)
    # run → (its directory, each judge that judged it: spec, prompt set, prompt fingerprint)
    judges: dict[str, tuple[str, list[dict[str, str | None]]]] = field(default_factory=dict)
    judge_note: str | None = None  # runs judged differently (--across-judges): said on every table
    sample_note: str | None = None  # a run from the site's showcase sample, not the benchmark: said on every table
    data_note: str | None = None  # runs on different data (--across-data): said on every table too
    no_checks_note: str | None = None  # models with one verdict per response, none per check: said once (Fig. 6)
    pass_rule: str | None = None  # how a response passes, where it is not the checks' rule alone (overall_only)
    against: Against | None = None  # the paper's figures beside the runs' (--against paper)

    @property
    def notes(self) -> list[str]:
        """What every table of the report says first: how its runs differ, each a line."""
        return [note for note in (self.judge_note, self.data_note) if note]
