"""`cobe report`: a thin shell over cobe.report and cobe.score (`cobe compare`: compare.py; `cobe import`: imports.py)."""

from __future__ import annotations

import contextlib
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich import box
from rich.console import Console, JustifyMethod
from rich.table import Table

from cobe.cli import options
from cobe.cli.display import plain_console, print_table
from cobe.cli.once import Once
from cobe.judge.published import judge_label
from cobe.report.writer import DEFAULT_FORMATS, build_report, default_out
from cobe.score.bootstrap import EXACT_NOTE, exact_rows, interval_text, resampling_note
from cobe.score.ranks import rank_method, rank_text
from cobe.score.rule import POOLED_RULE, RULE, accuracy_text, rule_sentence

if TYPE_CHECKING:
    import pandas as pd

RUNS = click.Path(exists=True)


def _num(value: float, fmt: str = "{:.2f}") -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else fmt.format(value)


def _console() -> Console:
    # piped output has no width to detect; rich's 80-column guess would wrap every line (tables: print_table)
    console = plain_console()
    return console if console.is_terminal else plain_console(width=120)


def leaderboard_table(
    table: pd.DataFrame, *notes: str | None, sample_note: str | None = None, resamples: int | None = None
) -> Table:
    """The leaderboard as a rich table, narrow enough for 80 columns, with each row's judge and prompt set and the
    range of ranks the data allows it (how that was decided: the caption); `notes` (how its runs differ) first."""
    pooled = RULE in table.columns and table[RULE].eq(POOLED_RULE).any()
    title = "Leaderboard (accuracy: " + ("see below" if pooled else "mean over phrasings ± sample std") + ")"
    out = Table(title=title, box=box.SIMPLE_HEAD)
    tiers = table["tier"].nunique() > 1
    tier_column: list[tuple[str, JustifyMethod]] = [("tier", "right")] if tiers else []
    calibrated = "calibrated" in table.columns
    calibrated_column: list[tuple[str, JustifyMethod]] = [("human-calibrated", "right")] if calibrated else []
    columns: list[tuple[str, JustifyMethod]] = [
        ("#", "right"),
        ("ranks", "right"),  # the 95% rank range of the joint bootstrap (cobe.score.ranks)
        ("model", "left"),
        *tier_column,
        ("accuracy", "right"),
        ("95% CI", "right"),
        ("errors as F", "right"),  # accuracy with respondent errors counted as failures
        *calibrated_column,
        ("passes/scored", "right"),
        ("unscored", "right"),
        ("errors", "right"),
        ("judge", "left"),
    ]
    for name, justify in columns:
        # numbers never wrap; only the names may
        out.add_column(
            name,
            justify=justify,
            no_wrap=name not in ("model", "judge"),
            overflow="fold" if name == "judge" else "ellipsis",
        )
    row: Any  # a namedtuple of the leaderboard's columns
    for rank, row in enumerate(table.itertuples(index=False), start=1):
        ci = interval_text(row.ci_low, row.ci_high, getattr(row, "ci_method", None))
        cells = [
            str(rank),
            rank_text(row.rank_low, row.rank_high),
            row.label,
            *([str(row.tier)] if tiers else []),
            accuracy_text(row.accuracy, row.std, getattr(row, RULE, None)),
            ci,
            _num(row.accuracy_incl_errors),
            *([_calibrated(row)] if calibrated else []),
            f"{row.passes}/{row.scored}",
            str(row.unscored),
            str(row.errors),
            _judge(row),
        ]
        out.add_row(*cells)
    captions = [f"Note: {note}." for note in notes if note]
    if sample_note:
        captions.append(f"Sample: {sample_note}.")
    if pooled:
        captions.append(rule_sentence(table[RULE]) + ".")
    if not table.empty and table["ci_low"].notna().any():
        captions.append(f"95% CI: bootstrap over {resampling_note(table)}")
    if exact_rows(table):
        captions.append(f"95% CI: {EXACT_NOTE}.")
    if not table.empty and resamples is not None:
        captions.append(f"Rank range: {rank_method(resamples, resampling_note(table))}.")
    out.caption = "\n".join(captions) or None
    return out


def _judge(row: Any) -> str:
    judge = getattr(row, "judge", None)
    if not isinstance(judge, str):
        return "–"
    prompts = getattr(row, "judge_prompts", None)
    return judge_label(judge, prompts if isinstance(prompts, str) else None)


def _calibrated(row: Any) -> str:
    if row.calibrated is None or math.isnan(row.calibrated):
        return "–"
    return f"{row.calibrated:.2f} [{row.calibrated_low:.2f}, {row.calibrated_high:.2f}]"


@click.command("report")
@click.argument("runs", nargs=-1, required=True, type=RUNS)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Output directory [default: the run directory, or ./report for several runs].",
)
@click.option(
    "--format",
    "formats",
    default=",".join(DEFAULT_FORMATS),
    show_default=True,
    help="Comma-separated outputs: md, html, csv, json, png, svg.",
)
@options.BOOTSTRAP
@options.STUDY
@options.ACROSS_JUDGES
@click.option(
    "--published",
    cls=Once,
    type=click.Path(exists=True),
    default=None,
    metavar="FILE|DIR",
    help="The site's eval-statistics.json (or the folder `cobe import --from cobe-site` kept it in): the run's "
    "accuracy is set beside the published totals, overall, per domain and per graph type (Fig. 7).",
)
@options.ACROSS_DATA
@click.option(
    "--against",
    cls=Once,
    default=None,
    metavar="paper|FILE",
    help="Set the runs' models beside the paper's nine in Table 5, Figs. 6-9 and (where the runs hold tiers) "
    "Table 7, under a block saying what is and is not comparable: `paper` (the figures cobe ships, or the file "
    "COBE_PAPER_FIGURES names) or a file of them.",
)
def report_cmd(
    runs: tuple[str, ...],
    out: str | None,
    formats: str,
    resamples: int,
    seed: int,
    study: str | None,
    across_judges: bool,
    published: str | None,
    across_data: bool,
    against: str | None,
) -> None:
    """Tables, figures, report.md and a self-contained report.html from one or many runs.

    Several runs are ranked only when one judge with one prompt set judged them all (else exit 2, naming
    them), unless --across-judges, and only when they were run on the same scenarios (else exit 2, naming
    each run's data), unless --across-data."""
    from cobe.annotate.labels import run_labels
    from cobe.core.lock import directory_lock

    human = run_labels(list(runs), study)
    target = Path(out) if out is not None else default_out(runs)
    # writing into a directory that exists (a run directory, by default) waits for no one: a command
    # at work there holds its lock, and this report would be overwritten by that command's anyway
    with directory_lock(target, "report") if target.is_dir() else contextlib.nullcontext():
        report = build_report(
            list(runs),
            out=out,
            formats=formats,
            resamples=resamples,
            seed=seed,
            human=human,
            across_judges=across_judges,
            published=published,
            across_data=across_data,
            against=against,
        )
    console = _console()
    board = leaderboard_table(
        report.leaderboard, report.judge_note, report.data_note, sample_note=report.sample_note, resamples=resamples
    )
    print_table(board, console)
    console.print(f"Wrote {len(report.files)} files under {report.out}")
    for path in report.files:
        if path.name in ("report.md", "report.html"):
            console.print(f"  {path}")
