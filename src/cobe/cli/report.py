"""`cobe report` and `cobe import`: thin shells over cobe.report and cobe.score (`cobe compare`: compare.py)."""

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
from cobe.core.errors import InputError
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


IMPORT_FORMATS = ("verdicts", "cobe-site", "inspect", "lm-eval")


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="The run directory to create.")
@click.option(
    "--from",
    "source",
    type=click.Choice(IMPORT_FORMATS),
    default="verdicts",
    show_default=True,
    help="verdicts: judged results (CSV, JSON or JSONL); cobe-site: the CoBe project site's judged result files "
    "(category-examples.json or flat rows with model_outputs); inspect: an inspect_ai log of the cobe task; "
    "lm-eval: an lm-evaluation-harness --log_samples file. inspect and lm-eval bring responses to judge.",
)
@click.option(
    "--map",
    "mapping",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="With --from verdicts: a YAML mapping file: columns: {field: column}, model:, query_index_base:.",
)
@click.option(
    "--col",
    "cols",
    multiple=True,
    metavar="FIELD=COLUMN",
    help="With --from verdicts: map one field to a column (repeatable).",
)
@click.option("--model", default=None, help="The model name, when the file does not say it.")
@options.DATA.but(env=False, default=None, show_default=False)
def import_cmd(
    file: str,
    out: str,
    source: str,
    mapping: str | None,
    cols: tuple[str, ...],
    model: str | None,
    data: str | None,
) -> None:
    """Import results produced elsewhere as a run directory.

    --from verdicts (the default) imports judged results; --from cobe-site the project site's judged
    result files as published (unknown verdicts unscored, counted); --from inspect and --from lm-eval
    import responses, with the log's scores (or the samples' 0/1 metric) as the verdict set
    'inspect (imported)' / 'lm-eval (imported)', which `cobe judge OUT --judge SPEC` judges anew beside.
    --data names the dataset the imported items' scenarios are taken from.
    """
    if source == "verdicts":
        from cobe.integrations.verdict_files import import_results

        result = import_results(file, out, mapping=mapping, columns=list(cols), model=model, data=data)
        click.echo(f"Imported {result.rows} rows ({_named(result.models)}) into {result.out}")
        return
    if mapping or cols:
        raise InputError(f"--map and --col apply to --from verdicts only, not --from {source}")
    if source == "cobe-site":
        if data:
            raise InputError("--data: the site's files carry their scenarios; drop --data")
        from cobe.integrations.site_totals import import_published, is_published_file
        from cobe.report.paper import is_paper_file

        if is_paper_file(file):
            raise InputError(
                f"{file}: holds the paper's published figures, not the site's results; set a run beside them "
                f"with `cobe report RUN --against {file}` (`--against paper`: the figures cobe ships)"
            )

        if is_published_file(file):  # eval-statistics.json: totals, not examples
            totals = import_published(file, out)
            click.echo(
                f"Imported the site's published totals ({totals['model'].nunique()} models; overall, "
                f"{(totals['scope'] == 'by_domain').sum()} domain and {(totals['scope'] == 'by_graph').sum()} "
                f"graph-type figures) into {out}; set a run beside them with `cobe report RUN --published {out}`"
            )
            return
        from cobe.integrations.site_results import import_site_results

        result = import_site_results(file, out, model=model)
        _site_lines(result.summary)
        click.echo(f"Imported {result.rows} rows ({_named(result.models)}) into {result.out}")
        return
    if source == "inspect":
        if model:
            raise InputError("--model: an inspect log names its model; drop --model")
        from cobe.integrations.inspect_log import import_inspect

        imported = import_inspect(file, out, data=data)
    else:
        from cobe.integrations.lm_eval import import_lm_eval

        imported = import_lm_eval(file, out, model=model, data=data)
    for notice in imported.notices:
        click.echo(f"note: {notice}", err=True)
    shown = f", shown as the verdict set '{imported.verdict_set}'" if imported.verdict_set else ""
    click.echo(
        f"Imported {imported.responses} responses ({_named(imported.models)}; {imported.scenarios} scenarios, "
        f"templates {','.join(imported.templates)}) into {imported.out}{shown}; judge them with "
        f"`cobe judge {imported.out} --judge SPEC`"
    )


#: the models a line names before it counts the rest
NAMED = 10


def _named(models: list[str]) -> str:
    """The models an import holds, in one line of readable length: a file of 100,000 models named all of them."""
    shown = ", ".join(models[:NAMED])
    return shown if len(models) <= NAMED else f"{shown} and {len(models) - NAMED:,} more models"


def _site_lines(summary: dict[str, Any]) -> None:
    """Per model: the site's verdict counts and its accuracy, correct / (correct + wrong); first, where the file
    is the site's showcase, that these figures are a per-category sample's."""
    sample = summary.get("sample")
    if isinstance(sample, dict) and sample.get("note"):
        click.echo(f"note: {sample['note']}", err=True)
    for model, counts in summary["site_verdicts"].items():
        pooled = summary["accuracy"].get(model, {}).get("pooled_accuracy")
        figure = "–" if pooled is None else f"{pooled:.2f}"
        click.echo(
            f"{model}: {counts['correct']} correct, {counts['wrong']} wrong, {counts['unknown']} unknown (unscored); "
            f"accuracy correct / (correct + wrong) = {figure}%"
            + (" on the per-category sample" if isinstance(sample, dict) else "")
        )
