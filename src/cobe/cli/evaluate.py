"""`cobe eval`, `cobe generate`, `cobe judge`, `cobe runs`: thin wrappers over cobe.run."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cobe.cli import options
from cobe.core.errors import INTERRUPTED, RunDirBusy, RunIncomplete, RunStopped, exit_code_lines
from cobe.judge.panel import split_specs
from cobe.run.config import EMBEDDED_JUDGE_CHECK, EMBEDDED_MODEL, EvalConfig, RunSummary
from cobe.run.rundir import default_run_dir

if TYPE_CHECKING:
    from cobe.run.progress import PlainProgress, RichProgress


#: the exit codes, shown under the help of every command that runs models
EXIT_EPILOG = "\b\nExit codes:\n" + "\n".join(exit_code_lines())
JUDGE_CHECK = options.option(
    "--judge-check",
    env="COBE_JUDGE_CHECK",
    type=click.IntRange(min=0),
    metavar="N",
    help=f"First self-test the judge on N scenarios (judge calls only; 0: none) [default: {EMBEDDED_JUDGE_CHECK} "
    f"when {EMBEDDED_MODEL} judges, else none].",
)


def _config(params: dict[str, Any]) -> EvalConfig:
    """The EvalConfig of a command's options; a value providers would refuse is an InputError naming the flag."""
    fields = set(EvalConfig.model_fields)
    data = {k: v for k, v in params.items() if k in fields and v is not None}
    data["models"] = list(params.get("models") or [])
    return EvalConfig(**data)


def _progress(quiet: bool) -> PlainProgress | RichProgress | None:
    """A rich progress display on a terminal; off a TTY (CI logs) only batch status lines on stderr."""
    if quiet:
        return None
    from cobe.run.progress import PlainProgress, RichProgress

    if not sys.stdout.isatty():
        return PlainProgress()

    return RichProgress()


def _run(action: Callable[[Any], RunSummary], run_dir: Path | None, quiet: bool, report: bool = False) -> None:
    """Run with progress, then print one summary line; stops, unfinished items and Ctrl-C end with their exit code."""
    progress = _progress(quiet)
    try:
        if progress is not None:
            with progress:
                summary = action(progress)
        else:
            summary = action(None)
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl-C: see cobe.cli.interrupt
        where = f" in {run_dir}" if run_dir else ""
        click.echo(f"Interrupted; finished work is saved{where}. Run the same command again to resume.", err=True)
        sys.exit(INTERRUPTED)
    except RunStopped as exc:  # --max-cost, or a provider refusing the key: the same command resumes
        raise type(exc)(f"{exc} (run dir: {run_dir})") from None
    for notice in summary.notices:
        click.echo(f"note: {notice}", err=True)
    click.echo(summary_line(summary))
    if report and summary.dry_run is None and summary.judge:
        _refresh_report(summary.run_dir)
    if summary.summary.get("judge_check"):  # last, so a run ends by saying how far its judge can be trusted
        from cobe.judge.selftest_result import SelfTest

        for line in SelfTest.model_validate(summary.summary["judge_check"]).lines():
            click.echo(line)
    if summary.dry_run is None and summary.state == RunIncomplete.state:
        again = "run the same command again to retry them"
        if summary.summary.get("command", {}).get("name") == "judge":  # it cannot redo a failed response
            again = (
                "run it again to retry failed judge calls, and `cobe eval` with the run's options for failed responses"
            )
        raise RunIncomplete(
            f"{summary.unfinished} of {summary.items} items unfinished: calls failed after their retries "
            f"(see response_error and unscored in {Path(summary.run_dir) / 'results.jsonl'}); {again}"
        )


def _refresh_report(run_dir: Path) -> None:
    """Redraw the run's report.html, under the run directory's lock like every write there."""
    from cobe.core.lock import directory_lock
    from cobe.report.writer import refresh_run_report

    try:
        with directory_lock(run_dir, "report"):
            drawn = refresh_run_report(run_dir, human=_study_labels(Path(run_dir)))
    except RunDirBusy as exc:  # another command took the directory the moment this one let go
        click.echo(f"note: report not redrawn; {exc}", err=True)
        return
    if drawn:
        click.echo(f"report: {Path(run_dir) / 'report.html'}", err=True)


def _study_labels(run_dir: Path) -> dict[str, dict[str, list[str]]] | None:
    """The answers of the run's own rating study (RUN/study/), for the report's calibrated pass rates."""
    if not (run_dir / "study" / "study.sqlite").is_file():
        return None
    from cobe.annotate.labels import run_labels

    return run_labels([run_dir])


def _fmt_acc(value: Any) -> str:
    return "–" if value is None else f"{value:.1f}%"


def summary_line(summary: RunSummary) -> str:
    """One line: run dir, state, accuracy per model, calls made vs from the store, cost."""
    if summary.dry_run is not None:
        d = summary.dry_run
        cost = (
            "unknown (no price for " + ", ".join(d.unpriced) + ")"
            if d.estimated_cost_usd is None
            else f"${d.estimated_cost_usd:.4f}"
        )
        return (
            f"dry run for {summary.run_dir}: {d.respondent_calls} respondent calls ({d.respondent_cached} already stored), "
            f"{d.judge_calls} judge calls ({d.judge_cached} already stored), estimated cost {cost}; nothing was called"
        )
    models = summary.summary.get("models", {})
    scores = ", ".join(
        f"{m} {_fmt_acc(v.get('accuracy'))} ± {v.get('std') or 0:.1f} (n={v.get('n')}, unscored {v.get('unscored')}, errors {v.get('errors')})"
        if summary.judge
        else f"{m} n={v.get('n')} errors {v.get('errors')}"
        for m, v in models.items()
    )
    calls = summary.stats
    made = "; ".join(
        f"{role} {calls[role]['calls_made']} calls ({calls[role]['calls_cached']} from store, {calls[role]['errors']} failed)"
        for role in ("respondent", "judge")
        if role in calls
    )
    if "judge-batch" in calls:  # answers from a provider batch; the judge pass then reads them from the store
        made += f"; judge batch {calls['judge-batch']['calls_made']} answers"
    cost = sum(calls[r]["cost_usd"] for r in ("respondent", "judge", "judge-batch") if r in calls)
    state = summary.state
    if summary.unfinished:
        state += f" ({summary.unfinished} of {summary.items} items unfinished)"
    return f"{summary.run_dir}: {state}; {scores}; {made}; ${cost:.4f}; {summary.wall_s:.1f} s"


@click.command("eval", epilog=EXIT_EPILOG)
@options.RUN_OPTIONS
@options.JUDGE
@options.JUDGE_OPTIONS
@JUDGE_CHECK
@options.REPORT
def eval_cmd(**params: Any) -> None:
    """Generate responses and judge them (the whole pipeline).

    With neither --model nor --judge, runs the embedded local/gemma-3-270m as both on
    builtin:starter: a smoke test of the machinery, whose scores mean nothing; the judge
    self-test it runs first says so in numbers, on the last lines.
    Repeating a command resumes its run: nothing finished is called again.
    """
    if not params["models"] and not params["judge"]:
        params["models"], params["judge"] = [EMBEDDED_MODEL], [EMBEDDED_MODEL]
        # the plan's own notice says what the smoke-test model's scores mean, once, with the run's other notes
        click.echo(f"note: no --model or --judge given; using {EMBEDDED_MODEL} for both", err=True)
    if params["judge_check"] is None and EMBEDDED_MODEL in split_specs(params["judge"]):
        params["judge_check"] = EMBEDDED_JUDGE_CHECK  # the smoke-test judge always shows its measured trust
    params["judge_check"] = params["judge_check"] or None
    config = _config(params)
    from cobe.run.engine import evaluate

    run_dir = config.run_dir or (default_run_dir(config) if config.models else None)
    _run(lambda progress: evaluate(config, progress), run_dir, params["quiet"], params["report"])


@click.command("generate", epilog=EXIT_EPILOG)
@options.RUN_OPTIONS
def generate_cmd(**params: Any) -> None:
    """Generate responses only; judge them later with `cobe judge RUN_DIR --judge SPEC`."""
    config = _config(params)
    from cobe.run.engine import generate

    run_dir = config.run_dir or (default_run_dir(config) if config.models else None)
    _run(lambda progress: generate(config, progress), run_dir, params["quiet"])


@click.command("judge", epilog=EXIT_EPILOG)
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@options.JUDGE.but(required=True)
@options.JUDGE_OPTIONS
@options.PACING
@options.BUDGET
@options.EXECUTOR
@options.QUIET
@options.REPORT
def judge_cmd(
    run_dir: Path, judge: tuple[str, ...], judge_prompts: str, quiet: bool, report: bool, **options: Any
) -> None:
    """Judge a run's stored responses again with another judge, panel or prompt set; no respondent call.

    Verdicts of earlier judges stay in the store; results.jsonl and summary.json show this judge.
    """
    from cobe.run.rejudge import judge_run

    specs = list(judge)
    _run(
        lambda progress: judge_run(run_dir, specs, judge_prompts, progress=progress, **options), run_dir, quiet, report
    )


@click.command("runs")
@click.argument("root", type=click.Path(path_type=Path, file_okay=False), default=Path("runs"), envvar="COBE_RUNS_ROOT")
@options.JSON.but(dest="json_out")
def runs_cmd(root: Path, json_out: bool) -> None:
    """List run directories under ROOT (default runs/) with state, models, counts and accuracy."""
    from cobe.run.rundir import list_runs

    runs = list_runs(root)
    if not runs:
        click.echo(f"no runs under {root}")
        return
    if json_out:
        click.echo(json.dumps(runs, indent=2, default=str))
        return
    if not sys.stdout.isatty():  # pipes and logs get one tab-separated line per run
        for entry in runs:
            acc = entry.get("accuracy") or {}
            scores = ", ".join(f"{m} {_fmt_acc(a)}" for m, a in acc.items()) or "not scored"
            click.echo(
                f"{entry['run_dir']}\t{entry['state']}\tmodels={','.join(entry['models'])}\t"
                f"judge={entry.get('judge') or '-'}\tresponses={entry.get('responses', 0)}\t{scores}"
            )
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("run dir", "state", "models", "judge", "responses", "accuracy", "updated")
    for entry in runs:
        acc = entry.get("accuracy") or {}
        scores = "\n".join(f"{m} {_fmt_acc(a)}" for m, a in acc.items()) or "not scored"
        table.add_row(
            entry["run_dir"],
            entry["state"],
            "\n".join(entry["models"]),
            entry.get("judge") or "-",
            str(entry.get("responses", 0)),
            scores,
            entry.get("updated") or "",
        )
    Console().print(table)
