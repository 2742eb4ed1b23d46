"""build_report: load runs, compute every table once, and write the requested formats."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from cobe.core.errors import InputError
from cobe.core.files import atomic_open, atomic_write, ensure_dir
from cobe.report.content import ReportContent
from cobe.report.data_sets import require_same_data, run_data
from cobe.report.judged import Judged, require_alike, run_judges
from cobe.report.load import HumanLabels, RunSet, load_runs, read_judge_check, sample_note
from cobe.report.overall_only import no_checks_note, pass_rule
from cobe.report.tables import build_tables, primary_rows, write_tables

if TYPE_CHECKING:
    from cobe.report.against import Against
    from cobe.report.paper import PaperFigures

# "parquet" writes every result row as results.parquet (needs pyarrow: pip install 'cobe[parquet]')
FORMATS: frozenset[str] = frozenset({"md", "html", "csv", "json", "png", "svg", "parquet"})
DEFAULT_FORMATS: tuple[str, ...] = ("md", "html", "csv", "json", "png", "svg")


@dataclass
class Report:
    """What build_report computed and where it wrote it."""

    runs: RunSet
    tables: dict[str, pd.DataFrame]
    out: Path
    files: list[Path] = field(default_factory=list)
    judge_note: str | None = None  # how runs judged differently were judged (--across-judges)
    sample_note: str | None = None  # which runs are a showcase's per-category sample, not the benchmark
    data_note: str | None = None  # what runs on different data were run on (--across-data)

    @property
    def leaderboard(self) -> pd.DataFrame:
        """Paper Table 5, with bootstrap CIs."""
        return self.tables["leaderboard"]


def parse_formats(value: str | Iterable[str]) -> set[str]:
    """The set of output formats from 'md,html,...' or a list; unknown names raise InputError."""
    items = value.split(",") if isinstance(value, str) else list(value)
    chosen = {item.strip().lower() for item in items if item.strip()}
    unknown = chosen - FORMATS
    if unknown or not chosen:
        raise InputError(
            f"--format: {', '.join(sorted(unknown)) or 'nothing'} not known; expected some of {','.join(sorted(FORMATS))}"
        )
    return chosen


def _write_text(path: Path, text: str) -> None:
    # write then rename, so a reader never sees half a report; reports are made to be shared: the umask decides
    atomic_write(path, text, shared=True)


def _write_parquet(frame: pd.DataFrame, path: Path) -> Path:
    from cobe.report.load import tidy_results

    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise InputError("--format parquet needs pyarrow; run pip install 'cobe[parquet]'") from None
    tmp = path.with_suffix(".parquet.tmp")
    tidy_results(frame).to_parquet(tmp, index=False)
    os.replace(tmp, path)
    return path


def _judges_by_run(frame: pd.DataFrame, judges: dict[str, list[Judged]]) -> dict[str, tuple[str, list[dict]]]:
    """Run → (its directory, its judges as {judge, prompts, fingerprint}), for the reports' list of runs."""
    if frame.empty:
        return {}
    sources = frame.groupby("run", sort=True)["source"].first()
    return {
        str(run): (
            str(source),
            [{"judge": j.judge, "prompts": j.prompts, "fingerprint": j.fingerprint} for j in judges.get(source, [])],
        )
        for run, source in sources.items()
    }


def default_out(paths: Sequence[str | Path]) -> Path:
    """The single run's directory, or ./report for several runs."""
    if len(paths) == 1:
        path = Path(paths[0])
        return path if path.is_dir() else path.parent
    return Path("report")


def build_report(
    paths: Sequence[str | Path],
    out: str | Path | None = None,
    formats: str | Iterable[str] = DEFAULT_FORMATS,
    resamples: int = 1000,
    seed: int = 0,
    human: HumanLabels | None = None,
    *,
    across_judges: bool = False,
    published: str | Path | None = None,
    across_data: bool = False,
    against: str | Path | None = None,
) -> Report:
    """Aggregate one or many runs and write tables, figures, report.md and report.html under `out`;
    `human` (rating-study answers per run directory) adds the human-calibrated pass rates.

    Several runs judged by different judges or prompt sets are refused (InputError naming them) unless
    `across_judges`, and then every table says how they were judged; so are runs on different datasets or
    scenario sets unless `across_data`, and then every table says what each was run on. `published` (the site's
    eval-statistics.json, or the folder `cobe import` kept it in) adds the run's accuracy beside the published
    totals, overall, per domain and per graph type. `against` (`paper`, the figures cobe ships, or a file of them)
    sets the runs' models beside the paper's nine (cobe.report.against)."""
    chosen = parse_formats(formats)
    paper = None
    if against is not None:  # a file that is not the paper's figures is refused before any work
        from cobe.report.paper import load_paper

        paper = load_paper(against)
    if resamples < 0:
        raise InputError(f"--resamples: {resamples} is negative; expected 0 (no CIs) or more")
    # no page or table shows the prompt as sent (the story and query are shown): kept for a Parquet export only
    runs = load_runs(paths, human, drop=() if "parquet" in chosen else ("prompt",))
    judges = run_judges(runs.frame)
    # several runs are ranked only when judged alike; one run whose rows name several judges (an import) is said
    judge_note = require_alike(judges, across_judges or len(judges) < 2)
    data_note = require_same_data(run_data(runs.frame), across_data)
    out_dir = Path(out) if out is not None else default_out(paths)
    ensure_dir(out_dir, "report directory")
    tables = build_tables(runs.frame, resamples=resamples, seed=seed)
    if published is not None:
        from cobe.report.published import beside_published, read_published

        tables.update(beside_published(primary_rows(runs.frame), read_published(published)))
    labels, beside = _labels_and_paper(runs, tables, paper)
    shown_sample = sample_note(runs.samples)
    report = Report(
        runs=runs, tables=tables, out=out_dir, judge_note=judge_note, sample_note=shown_sample, data_note=data_note
    )
    primary = primary_rows(runs.frame)  # the rows the tables count, one tier a model
    content = ReportContent(
        tables=tables,
        runs=sorted(runs.frame["run"].unique()),
        resamples=resamples,
        seed=seed,
        agreement=runs.agreement,
        judge_checks=runs.judge_checks,
        audits=runs.audits,
        settings=runs.settings,
        judges=_judges_by_run(runs.frame, judges),
        judge_note=judge_note,
        sample_note=shown_sample,
        data_note=data_note,
        no_checks_note=no_checks_note(primary),
        pass_rule=pass_rule(primary),
        against=beside,
    )
    _write_files(report, content, chosen, labels)
    return report


def _labels_and_paper(
    runs: RunSet, tables: dict[str, pd.DataFrame], paper: PaperFigures | None
) -> tuple[list[str], Against | None]:
    """Every label a figure colours, in order, and the runs beside the paper's figures (None without `--against`);
    the comparison's tables are added to `tables`."""
    labels = tables["leaderboard"]["label"].tolist()
    for label in runs.labels:  # labels with no row at their lowest tier still get a colour
        if label not in labels:
            labels.append(label)
    if paper is None:
        return labels, None
    from cobe.report.against import build_against

    beside = build_against(paper, primary_rows(runs.frame), tables)
    tables.update(beside.tables)
    labels += beside.paper_labels  # after the runs' own: a run's model keeps its colour in every figure
    return labels, beside


def _write_files(report: Report, content: ReportContent, chosen: set[str], labels: list[str]) -> None:
    """Write the chosen formats under the report's directory: tables, Parquet, figures, report.md, report.html."""
    out_dir, tables, frame = report.out, content.tables, report.runs.frame
    if chosen & {"csv", "json"}:
        report.files += write_tables(tables, out_dir / "tables", chosen)
    if "parquet" in chosen:
        report.files.append(_write_parquet(frame, out_dir / "results.parquet"))
    figures, figure_files = _write_figures(report, content, chosen, labels)
    if "md" in chosen:
        from cobe.report.markdown import render_markdown

        path = out_dir / "report.md"
        _write_text(path, render_markdown(content, figure_files))
        report.files.append(path)
    if "html" in chosen:
        from cobe.report.html import write_html

        path = out_dir / "report.html"
        # written as it is made (the response data streamed in), then renamed: never half a report, never whole in memory
        with atomic_open(path, shared=True) as handle:
            write_html(handle, content, frame=frame, figures=figures, labels=labels)
        report.files.append(path)


def _write_figures(
    report: Report, content: ReportContent, chosen: set[str], labels: list[str]
) -> tuple[dict[str, dict[str, bytes]], dict[str, str]]:
    """Draw each figure once (the HTML reuses the SVG bytes) and write the chosen formats under figures/;
    returns (name → format → bytes, name → the path report.md links)."""
    from cobe.report.figures import render_figures  # matplotlib loads only when a report is drawn

    figure_formats = tuple(f for f in ("svg", "png") if f in chosen or (f == "svg" and "html" in chosen))
    if not figure_formats:
        return {}, {}
    figures = render_figures(content.tables, labels, figure_formats, against=content.against)
    figure_files: dict[str, str] = {}
    for name, data in figures.items():
        for fmt, payload in data.items():
            if fmt not in chosen:
                continue
            path = report.out / "figures" / f"{name}.{fmt}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(payload)
            report.files.append(path)
            figure_files.setdefault(name, f"figures/{name}.{fmt}")
    return figures, figure_files


# SVG only: it is what a paper takes, the HTML embeds it, and drawing PNGs too doubles the figures' cost on
# every `cobe eval`; `cobe report RUN --format png` draws them
RUN_REPORT_FORMATS: tuple[str, ...] = ("html", "csv", "json", "svg")
_DIGEST_FILE = ".report-digest"


def refresh_run_report(
    run_dir: str | Path, formats: Iterable[str] = RUN_REPORT_FORMATS, human: HumanLabels | None = None
) -> bool:
    """Rebuild a run directory's HTML report, tables and figures unless its results are unchanged.

    A repeated, finished run must cost nothing, so the report is keyed by a digest of
    results.jsonl and redrawn only when that changes. report.md stays the engine's summary.
    Returns whether anything was written.
    """
    import hashlib

    run_dir = Path(run_dir)
    results = run_dir / "results.jsonl"
    if not results.is_file() or results.stat().st_size == 0:
        return False
    with results.open("rb") as handle:  # hashed as it is read: read whole, a large run's results doubled the peak
        hashed = hashlib.file_digest(handle, "sha256")
    check = read_judge_check(run_dir)  # summary.json's judge self-test is shown too (the rest changes each run)
    if check is not None:
        hashed.update(json.dumps(check, sort_keys=True).encode())
    if human:  # new human labels redraw the calibrated figures
        hashed.update(repr(sorted((str(k), sorted(v.items())) for k, v in human.items())).encode())
    digest = hashed.hexdigest() + ":" + ",".join(sorted(formats))
    marker = run_dir / _DIGEST_FILE
    if marker.is_file() and marker.read_text(encoding="utf-8") == digest:
        return False
    build_report([run_dir], out=run_dir, formats=formats, human=human)
    _write_text(marker, digest)
    return True
