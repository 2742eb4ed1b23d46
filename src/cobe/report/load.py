"""Read one or many run directories (or bare results.jsonl files) into one results table."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from pydantic import ValidationError

from cobe.core.errors import InputError
from cobe.core.jsonfile import iter_jsonl, read_json
from cobe.core.results import ResultRow
from cobe.report.audit import read_audit
from cobe.score.accuracy import with_counts
from cobe.score.calibration import HUMAN

RESULTS_FILE = "results.jsonl"
AGREEMENT_FILE = "agreement.json"
SUMMARY_FILE = "summary.json"
#: human answers per run: run directory (resolved) → item key 'scenario_id:template:model' → answers
HumanLabels = Mapping[str, Mapping[str, Sequence[str]]]


@dataclass
class RunSet:
    """Results of several runs in one frame, with a `label` column that keeps same-model runs apart."""

    frame: pd.DataFrame
    paths: list[Path]
    agreement: dict[str, dict] = field(default_factory=dict)  # run directory name → agreement.json
    judge_checks: dict[str, dict] = field(default_factory=dict)  # run directory name → its judge self-test
    settings: dict[str, dict] = field(default_factory=dict)  # run directory name → how each model was asked
    samples: dict[str, dict] = field(default_factory=dict)  # run directory name → a showcase sample's `sample`
    audits: dict[str, dict] = field(default_factory=dict)  # run directory name → its judge audit's card

    @property
    def labels(self) -> list[str]:
        """Model labels in first-seen order."""
        return list(dict.fromkeys(self.frame["label"])) if not self.frame.empty else []


def results_path(path: str | Path) -> Path:
    """The results.jsonl of a run directory, or the file itself when given one."""
    path = Path(path)
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.exists():
        raise InputError(f"{path}: no results file; expected a run directory holding {RESULTS_FILE}")
    return path


def read_results(path: str | Path) -> list[dict]:
    """Every row of a results.jsonl, validated as a ResultRow; the first bad line raises InputError."""
    return list(iter_results(path))


def iter_results(path: str | Path) -> Iterator[dict]:
    """The rows of a results.jsonl one at a time, each validated as a ResultRow (InputError at the first bad line)."""
    file = results_path(path)
    for number, data in iter_jsonl(file, f"a {RESULTS_FILE} of result rows"):
        try:
            row = ResultRow.model_validate(data).model_dump()
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "row"
            raise InputError(f"{file}:{number}: {where}: {first['msg']}") from None
        if not row["member_verdicts"]:  # only panels and samples have them; no empty column otherwise
            del row["member_verdicts"]
        yield row


#: the longest string a report's frame keeps one object of however many rows hold it
SHARED_STRING = 80


class _Columns:
    """Result rows gathered column by column: a row's dict is dropped as soon as it is read, so a large run's
    report holds its values once (in the frame's columns) and not also 10,000 dicts of forty keys each."""

    def __init__(self, drop: Sequence[str] = ()) -> None:
        self.columns: dict[str, list] = {}
        self.count = 0
        self.drop = frozenset(drop)
        # one object per distinct short string (a model, a judge, a template, a status, a run's directory), where
        # each row parsed from JSON brings copies of its own: a kilobyte a row of a large run's report
        self.strings: dict[str, str] = {}

    def add(self, row: Mapping[str, object]) -> None:
        strings = self.strings
        for name, value in row.items():
            if name in self.drop:
                continue
            if type(value) is str and len(value) <= SHARED_STRING:
                value = strings.setdefault(value, value)
            column = self.columns.get(name)
            if column is None:  # a field first met here is missing (NaN) in every earlier row, as pandas has it
                column = self.columns[name] = [math.nan] * self.count
            column.append(value)
        self.count += 1
        for column in self.columns.values():
            if len(column) < self.count:
                column.append(math.nan)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.columns)


def _read_agreement(directory: Path) -> dict | None:
    path = directory / AGREEMENT_FILE
    if not path.exists():
        return None
    data = read_json(path, "an agreement report (JSON)")
    if not isinstance(data, dict) or not isinstance(data.get("metrics"), dict):
        raise InputError(f"{path}: metrics: expected a top-level object with a 'metrics' object")
    return data


def _summary_part(directory: Path, name: str) -> dict | None:
    """One object of a run's summary.json, if the file and the object exist."""
    path = directory / SUMMARY_FILE
    if not path.exists():
        return None
    data = read_json(path, "a run summary (JSON)")
    found = data.get(name) if isinstance(data, dict) else None
    return found if isinstance(found, dict) and found else None


def read_judge_check(directory: Path) -> dict | None:
    """The judge self-test a run's summary.json holds (`cobe eval --judge-check`), if any."""
    return _summary_part(directory, "judge_check")


def read_sample(directory: Path) -> dict | None:
    """What a run imported from a showcase file says of it (summary.json's "sample": the site's per-category
    sample, not the benchmark), if it is one."""
    return _summary_part(directory, "sample")


def sample_note(samples: Mapping[str, dict]) -> str | None:
    """The line every table of a report says when a run is a showcase sample; None when none is."""
    notes = [str(sample.get("note") or f"{run} is a per-category sample, not the benchmark") for run, sample in
             samples.items()]  # fmt: skip
    return "; ".join(notes) if notes else None


def judged_part_notes(paths: Sequence[str | Path]) -> list[str]:
    """For each run whose shown verdict set covers a part of it (`cobe judge RUN --ids …`), the line saying so."""
    notes = []
    for path in paths:
        part = _summary_part(results_path(path).parent, "judged_part")
        if part is not None and part.get("note"):
            notes.append(f"{Path(path).name}: {part['note']}; compared on the items both sides scored")
    return notes


def read_settings(directory: Path) -> dict | None:
    """How a run asked each model (summary.json's "settings": respondents and judges, as sent), if recorded."""
    return _summary_part(directory, "settings")


def assign_labels(frame: pd.DataFrame) -> pd.DataFrame:
    """Label = model, or "model (run)" when the same model comes from more than one run."""
    runs_per_model = frame.groupby("model")["run"].nunique()
    shared = set(runs_per_model[runs_per_model > 1].index)
    frame["label"] = [f"{m} ({r})" if m in shared else m for m, r in zip(frame["model"], frame["run"])]
    return frame


#: the text a response card shows: a caller that only counts (the end-of-run table) leaves it out
TEXT_COLUMNS = ("story", "prompt", "query", "response", "judged_response", "judge_raw", "preserve", "change")


def load_runs(paths: Sequence[str | Path], human: HumanLabels | None = None, *, drop: Sequence[str] = ()) -> RunSet:
    """Load run directories into one frame with `run`, `label`, `scored` and `pass` columns, and a
    `human_labels` column where `human` holds rating-study answers for a run; the fields named in `drop`
    are never kept (a table of counts needs none of a large run's texts)."""
    if not paths:
        raise InputError("no run given; expected at least one run directory")
    columns = _Columns(drop)
    agreement: dict[str, dict] = {}
    judge_checks: dict[str, dict] = {}
    settings: dict[str, dict] = {}
    samples: dict[str, dict] = {}
    audits: dict[str, dict] = {}
    human = {str(Path(k).resolve()): v for k, v in (human or {}).items()}
    resolved: list[Path] = []
    seen_runs: dict[str, Path] = {}
    for raw in paths:
        file = results_path(raw)
        directory = file.parent
        resolved.append(directory)
        answers = human.get(str(directory.resolve()))
        before = columns.count
        for row in iter_results(file):
            # the same run id from two directories (a copy, a re-import) must still stay apart
            earlier = seen_runs.setdefault(row["run_id"], directory)
            row["run"] = row["run_id"] if earlier == directory else f"{row['run_id']}@{directory.name}"
            row["source"] = str(directory)
            if human:
                found_answers = (
                    answers.get(f"{row['scenario_id']}:{row['template']}:{row['model']}") if answers else None
                )
                row[HUMAN] = list(found_answers) if found_answers else None
            columns.add(row)
        if columns.count == before:
            raise InputError(f"{file}: no result rows; expected one JSON object per line")
        found = _read_agreement(directory)
        if found is not None:
            agreement[directory.name] = found
        check = read_judge_check(directory)
        if check is not None:
            judge_checks[directory.name] = check
        asked = read_settings(directory)
        if asked is not None:
            settings[directory.name] = asked
        sample = read_sample(directory)
        part = _summary_part(directory, "judged_part")  # a verdict set judged on a part of the run (cobe judge --ids …)
        if part is not None and part.get("note"):
            said = [str(sample["note"])] if sample is not None and sample.get("note") else []
            sample = {**(sample or {}), "note": "; ".join([*said, f"{directory.name}: {part['note']}"])}
        if sample is not None:
            samples[directory.name] = sample
        audit = read_audit(directory)
        if audit is not None:
            audits[directory.name] = audit
    frame = with_counts(columns.frame())
    return RunSet(
        frame=assign_labels(frame),
        paths=resolved,
        agreement=agreement,
        judge_checks=judge_checks,
        settings=settings,
        samples=samples,
        audits=audits,
    )


_PER_CHECK = {"verdicts": "verdict", "judge_raw": "judge_raw", "p_true": "p_true", "unscored": "unscored"}


def tidy_results(frame: pd.DataFrame) -> pd.DataFrame:
    """One flat column per check (verdict_preserve, p_true_change …) and lists as '; '-joined text,
    so results load into any table tool: CSV, Parquet, a spreadsheet."""
    from cobe.core.results import CHECKS

    flat = frame.drop(columns=[c for c in _PER_CHECK if c in frame.columns] + ["scored", "pass"], errors="ignore")
    for column, prefix in _PER_CHECK.items():
        if column in frame.columns:
            for check in CHECKS:
                flat[f"{prefix}_{check}"] = frame[column].map(lambda d, c=check: (d or {}).get(c))
    for column in ("failure_modes", "tags", "preserve", "change"):
        if column in flat.columns:
            flat[column] = flat[column].map(lambda v: "; ".join(v) if isinstance(v, list) else v)
    if "member_verdicts" in flat.columns:  # judge → check → samples: nested, so one JSON text per row
        flat["member_verdicts"] = flat["member_verdicts"].map(
            lambda v: json.dumps(v) if isinstance(v, dict) and v else None
        )
    return flat
