"""`cobe eval`, `cobe generate`, `cobe judge`, `cobe runs`: thin wrappers over cobe.run."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cobe.core.errors import INTERRUPTED, RunDirBusy, RunIncomplete, RunStopped, exit_code_lines
from cobe.judge.panel import split_specs
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS
from cobe.models.reasoning import DEFAULT_MAX_TOKENS, REASONING_MAX_TOKENS
from cobe.run.config import EMBEDDED_JUDGE_CHECK, EMBEDDED_MODEL, EvalConfig, RunSummary
from cobe.run.rundir import default_run_dir

if TYPE_CHECKING:
    from cobe.run.progress import PlainProgress, RichProgress


#: the exit codes, shown under the help of every command that runs models
EXIT_EPILOG = "\b\nExit codes:\n" + "\n".join(exit_code_lines())


def _opt(*names: str, env: str | None, **kwargs: Any) -> Callable:
    """An option with its COBE_<NAME> environment variable shown in --help."""
    return click.option(*names, envvar=env, show_envvar=env is not None, **kwargs)


def _split(ctx: click.Context, param: click.Parameter, value: str | None) -> list[str] | None:
    if not value:
        return None
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise click.BadParameter("expected template names separated by commas, e.g. A,B,C")
    return names


max_retry_wait_option = _opt(
    "--max-retry-wait",
    env="COBE_MAX_RETRY_WAIT",
    type=float,
    default=120.0,
    show_default=True,
    metavar="SECONDS",
    help="Longest wait a server's Retry-After may ask for; past it the call is recorded as rate-limited "
    "and redone when the command runs again.",
)


def run_options(f: Callable) -> Callable:
    """Options shared by eval and generate: data, templates, run dir, pacing, budget."""
    for option in reversed(
        [
            _opt(
                "--model",
                "-m",
                "models",
                env="COBE_MODEL",
                multiple=True,
                metavar="SPEC",
                help="Respondent model spec (repeatable), e.g. openai/gpt-5.4, openai-api/vllm/NAME, local/gemma-3-270m.",
            ),
            _opt(
                "--data",
                env="COBE_DATA",
                default="builtin:starter",
                show_default=True,
                metavar="SOURCE",
                help="Dataset: a file in any official shape, or builtin:NAME.",
            ),
            _opt(
                "--templates",
                env="COBE_TEMPLATES",
                callback=_split,
                metavar="A,B,C",
                help="Prompt templates to use (default A,B,C).",
            ),
            _opt(
                "--tier", env="COBE_TIER", type=click.IntRange(1, 4), help="Add every template of a prompt tier (1-4)."
            ),
            _opt("--limit", env="COBE_LIMIT", type=click.IntRange(min=1), help="Use only the first N scenarios."),
            _opt(
                "--sample",
                env="COBE_SAMPLE",
                type=click.IntRange(min=1),
                metavar="N",
                help="Draw N scenarios at random with --seed, reproducibly (the paper's tier ablation: 500).",
            ),
            _opt(
                "--seed",
                env="COBE_SEED",
                type=int,
                default=0,
                show_default=True,
                help="Seed of --sample: the same seed and data draw the same scenarios.",
            ),
            _opt(
                "--run-dir",
                env="COBE_RUN_DIR",
                type=click.Path(path_type=Path, file_okay=False),
                help="Run directory (default: runs/<models>__<data>, so repeating a command resumes it).",
            ),
            _opt(
                "--runs-root",
                env="COBE_RUNS_ROOT",
                type=click.Path(path_type=Path, file_okay=False),
                default=Path("runs"),
                show_default=True,
                help="Where default run directories go.",
            ),
            _opt(
                "--force-new",
                env="COBE_FORCE_NEW",
                is_flag=True,
                help="Start a new run in a run directory that holds a different evaluation.",
            ),
            _opt(
                "--concurrency",
                env="COBE_CONCURRENCY",
                type=click.IntRange(min=1),
                help="Parallel requests per provider at most (default: the provider's own); a provider answering 429 gets fewer until its calls succeed again.",
            ),
            _opt(
                "--rpm",
                env="COBE_RPM",
                type=click.FloatRange(min=0, min_open=True),
                help="Requests per minute per provider: a hard cap, whatever the provider answers.",
            ),
            _opt(
                "--tpm",
                env="COBE_TPM",
                type=click.FloatRange(min=0, min_open=True),
                help="Tokens per minute per provider.",
            ),
            _opt(
                "--timeout",
                env="COBE_TIMEOUT",
                type=click.FloatRange(min=0, min_open=True),
                help="Seconds per call attempt.",
            ),
            _opt(
                "--max-retries",
                env="COBE_MAX_RETRIES",
                type=click.IntRange(min=0),
                default=6,
                show_default=True,
                help="Retries of a call on 429, 5xx, timeouts and connection errors.",
            ),
            max_retry_wait_option,
            _opt(
                "--max-cost",
                env="COBE_MAX_COST",
                type=click.FloatRange(min=0),
                metavar="USD",
                help="Stop cleanly before this command would spend more (resumable).",
            ),
            _opt(
                "--prices",
                env="COBE_PRICES",
                type=click.Path(path_type=Path, dir_okay=False),
                help="YAML of USD per million tokens, laid over the bundled estimates.",
            ),
            _opt("--dry-run", env="COBE_DRY_RUN", is_flag=True, help="Count calls and estimate cost; call nothing."),
            _opt(
                "--temperature",
                env="COBE_TEMPERATURE",
                type=float,
                default=0.0,
                show_default=True,
                help="Respondent sampling temperature, 0-2.",
            ),
            _opt(
                "--reasoning-effort",
                env="COBE_REASONING_EFFORT",
                type=click.Choice(["minimal", "low", "medium", "high", "default"]),
                help="Respondent thinking / reasoning effort: OpenAI reasoning_effort, Anthropic extended thinking "
                "and Gemini thinking with a budget per level. 'default' (or leaving it out) sends nothing, so "
                "the provider's own default applies. The paper ran thinking models at medium.",
            ),
            _opt(
                "--max-tokens",
                env="COBE_MAX_TOKENS",
                type=click.IntRange(min=1),
                help=f"Respondent output token limit, thinking included [default: {DEFAULT_MAX_TOKENS}, or "
                f"{REASONING_MAX_TOKENS} with --reasoning-effort]. A reply cut off by it is left unscored.",
            ),
            _opt("--quiet", "-q", env="COBE_QUIET", is_flag=True, help="Only the final summary line."),
        ]
    ):
        f = option(f)
    return f


def judge_options(f: Callable) -> Callable:
    """Options naming the judge and how it is called."""
    f = _opt(
        "--batch-poll",
        env="COBE_BATCH_POLL",
        type=click.FloatRange(min=0, min_open=True),
        default=30.0,
        show_default=True,
        metavar="SECONDS",
        help="With --judge-batch: seconds between batch status checks.",
    )(f)
    f = _opt(
        "--judge-batch",
        env="COBE_JUDGE_BATCH",
        is_flag=True,
        help="Judge through the provider's batch API (openai/, openai-api/ and anthropic/ judges): half price, "
        "asynchronous; a killed run resumes waiting on the same batch.",
    )(f)
    f = _opt(
        "--judge-samples",
        env="COBE_JUDGE_SAMPLES",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        metavar="K",
        help="Ask each judge every check K times, at a temperature above 0 (1.0 unless --judge-temperature says "
        "otherwise); its verdict is the majority of the K, a tie unscored. Reports the verdict flip rate per check.",
    )(f)
    f = _opt(
        "--judge-temperature",
        env="COBE_JUDGE_TEMPERATURE",
        type=float,
        help="Judge temperature, 0-2 (default: the prompt set's, 0).",
    )(f)
    f = _opt(
        "--judge-prompts",
        env="COBE_JUDGE_PROMPTS",
        default=DEFAULT_JUDGE_PROMPTS,
        show_default=True,
        metavar="NAME|DIR",
        help="Judge prompt set: a bundled name (paper: shaped like the paper's judge, the story never shown; "
        "contextual: the judge also sees the story) or a directory of prompts (see `cobe prompts show`).",
    )(f)
    return f


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


def report_option(f: Callable) -> Callable:
    """--report/--no-report: draw report.html, tables and figures into the run directory."""
    return _opt(
        "--report/--no-report",
        env="COBE_REPORT",
        default=True,
        show_default=True,
        help="Also write report.html, tables and figures (skipped when results are unchanged).",
    )(f)


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
        from cobe.score.selftest import SelfTest

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


JUDGE_HELP = (
    "Judge model spec, e.g. openai/gpt-5.4. Repeat it (or give a comma list) for a panel: each check's verdict "
    "is the strict majority of the judges with a parseable verdict, a tie unscored."
)


@click.command("eval", epilog=EXIT_EPILOG)
@run_options
@_opt("--judge", "-j", env="COBE_JUDGE", multiple=True, metavar="SPEC", help=JUDGE_HELP)
@judge_options
@_opt(
    "--judge-check",
    env="COBE_JUDGE_CHECK",
    type=click.IntRange(min=0),
    metavar="N",
    help=f"First self-test the judge on N scenarios (judge calls only; 0: none) [default: {EMBEDDED_JUDGE_CHECK} "
    f"when {EMBEDDED_MODEL} judges, else none].",
)
@report_option
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
@run_options
def generate_cmd(**params: Any) -> None:
    """Generate responses only; judge them later with `cobe judge RUN_DIR --judge SPEC`."""
    config = _config(params)
    from cobe.run.engine import generate

    run_dir = config.run_dir or (default_run_dir(config) if config.models else None)
    _run(lambda progress: generate(config, progress), run_dir, params["quiet"])


@click.command("judge", epilog=EXIT_EPILOG)
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@_opt("--judge", "-j", env="COBE_JUDGE", required=True, multiple=True, metavar="SPEC", help=JUDGE_HELP)
@judge_options
@_opt("--concurrency", env="COBE_CONCURRENCY", type=click.IntRange(min=1), help="Parallel requests to the judge.")
@_opt("--rpm", env="COBE_RPM", type=click.FloatRange(min=0, min_open=True), help="Requests per minute.")
@_opt("--tpm", env="COBE_TPM", type=click.FloatRange(min=0, min_open=True), help="Tokens per minute.")
@_opt("--timeout", env="COBE_TIMEOUT", type=click.FloatRange(min=0, min_open=True), help="Seconds per call attempt.")
@_opt(
    "--max-retries",
    env="COBE_MAX_RETRIES",
    type=click.IntRange(min=0),
    default=6,
    show_default=True,
    help="Retries per call.",
)
@max_retry_wait_option
@_opt(
    "--max-cost", env="COBE_MAX_COST", type=click.FloatRange(min=0), metavar="USD", help="Spending cap of this command."
)
@_opt("--prices", env="COBE_PRICES", type=click.Path(path_type=Path, dir_okay=False), help="Price YAML override.")
@_opt("--quiet", "-q", env="COBE_QUIET", is_flag=True, help="Only the final summary line.")
@report_option
def judge_cmd(
    run_dir: Path, judge: tuple[str, ...], judge_prompts: str, quiet: bool, report: bool, **options: Any
) -> None:
    """Judge a run's stored responses again with another judge, panel or prompt set; no respondent call.

    Verdicts of earlier judges stay in the store; results.jsonl and summary.json show this judge.
    """
    from cobe.run.engine import judge_run

    specs = list(judge)
    _run(
        lambda progress: judge_run(run_dir, specs, judge_prompts, progress=progress, **options), run_dir, quiet, report
    )


@click.command("runs")
@click.argument("root", type=click.Path(path_type=Path, file_okay=False), default=Path("runs"), envvar="COBE_RUNS_ROOT")
@click.option("--json", "json_out", is_flag=True, help="Print the list as JSON.")
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
