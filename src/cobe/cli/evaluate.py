"""`cobe eval`, `cobe generate`, `cobe judge`: thin wrappers over cobe.run, each ending with the run's table."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cobe.cli import options
from cobe.cli.json_end import done, end_object
from cobe.cli.run_end import dry_run_line
from cobe.core.errors import InputError, RunDirBusy, RunIncomplete, RunStopped, RunUnmeasured, exit_code_lines
from cobe.judge.specs import split_specs
from cobe.run.config import EMBEDDED_JUDGE_CHECK, EMBEDDED_MODEL, EvalConfig, RunSummary
from cobe.run.rundir import default_run_dir

if TYPE_CHECKING:
    from cobe.core.progress import PlainProgress, RichProgress
    from cobe.report.run_table import RunTable


#: the longest stretch of an error the end-of-run line repeats
ERROR_CHARS = 200
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


@dataclass(frozen=True)
class Output:
    """How a run command shows itself: progress and notes (unless quiet), retries (verbose), its end as JSON."""

    quiet: bool = False
    verbose: bool = False
    as_json: bool = False
    report: bool = False

    @classmethod
    def of(cls, params: dict[str, Any], report: bool = False) -> Output:
        """The output options among a command's parameters."""
        if params.get("quiet") and params.get("verbose"):
            raise InputError("--quiet and --verbose: choose one")
        return cls(bool(params.get("quiet")), bool(params.get("verbose")), bool(params.get("as_json")), report)


def _progress(out: Output) -> PlainProgress | RichProgress | None:
    """Rich bars on a terminal; elsewhere (CI logs, nohup, pipes) a plain line on stderr every 10 s or 5%."""
    if out.quiet:
        return None
    from cobe.cli.display import progress_display

    return progress_display(out.verbose)


def _run(action: Callable[[Any], RunSummary], run_dir: Path | None, out: Output) -> None:
    """Run with progress, then end with the run's table; stops, unfinished items and Ctrl-C end with their exit code."""
    if out.report:
        _load_report_libraries()
    progress = _progress(out)
    try:
        if progress is not None:
            with progress:
                summary = action(progress)
        else:
            summary = action(None)
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl-C: see cobe.cli.interrupt; cobe.cli.main ends it
        where = f" in {run_dir}" if run_dir else ""
        raise KeyboardInterrupt(
            f"Interrupted; finished work is saved{where}. Run the same command again to resume."
        ) from None
    except RunStopped as exc:  # --max-cost, or a provider refusing the key: the same command resumes
        raise type(exc)(f"{exc} (run dir: {run_dir})").reporting(_where(run_dir)) from None
    if not out.quiet:
        for notice in summary.notices:
            click.echo(f"note: {notice}", err=True)
    if summary.dry_run is not None:
        click.echo(done(summary.dry_run.model_dump()) if out.as_json else dry_run_line(summary))
        return
    _finish(summary, out)


def _load_report_libraries() -> None:
    """Import what drawing the report needs (pandas, matplotlib) before the run, not after it: loaded once the
    run's items had come and gone, they settled above the memory those had left, and the command's peak grew
    with the run (N = 2,000 -> 10,000 samples: 228 -> 275 MB; loaded first, 230 -> 259 MB). The CPU is the same."""
    import cobe.report.figures  # noqa: F401
    import cobe.report.html  # noqa: F401
    import cobe.report.writer  # noqa: F401


def _finish(summary: RunSummary, out: Output) -> None:
    """The run's table (or its JSON), then the judge self-test's lines; an unfinished run then exits 5."""
    from cobe.report.run_table import run_table

    report = _refresh_report(summary.run_dir) if out.report and summary.judge else None
    table = run_table(summary, report)
    check = summary.summary.get("judge_check")
    data = table.as_dict() | ({"judge_check": check} if check else {})
    if out.as_json and summary.state not in (RunIncomplete.state, RunUnmeasured.state):  # those end as errors, below
        click.echo(end_object(0, None, summary.state, data))
    elif not out.as_json:
        from cobe.cli.display import plain_console
        from cobe.cli.run_end import print_run_end

        console = plain_console()
        # piped output has no width to detect: wide enough that no name is cut (a table takes only what it needs)
        print_run_end(table, console if console.is_terminal else plain_console(width=240))
        if check:  # last, so a run ends by saying how far its judge can be trusted
            from cobe.judge.selftest_result import SelfTest

            for line in SelfTest.model_validate(check).lines():
                click.echo(line)
    if summary.state == RunUnmeasured.state:
        raise unmeasured(table).reporting(data)
    if summary.state == RunIncomplete.state:
        again = "run the same command again to retry them"
        if summary.summary.get("command", {}).get("name") == "judge":  # it cannot redo a failed response
            again = (
                "run it again to retry failed judge calls, and `cobe eval` with the run's options for failed responses"
            )
        raise RunIncomplete(
            f"{summary.unfinished} of {summary.items} items unfinished: calls failed after their retries"
            f"{most_common_error(summary)}; {again}"
        ).reporting(data)


def unmeasured(table: RunTable) -> RunUnmeasured:
    """The one line of a run that finished without measuring a model: which, what came back most, what to do."""
    empty = [line for line in table.models if line.passed + line.failed == 0]
    named = "; ".join(f"{line.model} ({line.unscored} unscored, {line.errors} errors)" for line in empty)
    said = table.reasons[0]["reason"] if table.reasons else "no reason recorded"
    return RunUnmeasured(
        f"{table.run_dir}: every item finished, but no row of {named} was scored, so the run measured nothing of "
        f"{'it' if len(empty) == 1 else 'them'} (most often: {said}); once the model or its server is fixed, run "
        "the same command with --reask-unscored to ask those calls again, or use a new run directory"
    )


def _where(run_dir: Path | None) -> dict[str, Any]:
    """The run directory a stopped command leaves, for its --json end."""
    return {"run_dir": str(run_dir)} if run_dir else {}


def most_common_error(summary: RunSummary) -> str:
    """`, most often: <error> (k of n failed calls)`: the error the run's failed calls ended with most, or ''."""
    failures = summary.failures
    if not failures:
        return ""
    error, count = max(failures.items(), key=lambda pair: pair[1])
    shown = error if len(error) <= ERROR_CHARS else error[: ERROR_CHARS - 1] + "…"
    return f", most often: {shown} ({count} of {sum(failures.values())} failed calls)"


def _refresh_report(run_dir: Path) -> Path | None:
    """Redraw the run's report.html, under the run directory's lock like every write there; its path, if any."""
    from cobe.core.lock import directory_lock
    from cobe.report.writer import refresh_run_report

    try:
        with directory_lock(run_dir, "report"):
            refresh_run_report(run_dir, human=_study_labels(Path(run_dir)))
    except RunDirBusy as exc:  # another command took the directory the moment this one let go
        click.echo(f"note: report not redrawn; {exc}", err=True)
    path = Path(run_dir) / "report.html"
    return path if path.is_file() else None


def _study_labels(run_dir: Path) -> dict[str, dict[str, list[str]]] | None:
    """The answers of the run's own rating study (RUN/study/), for the report's calibrated pass rates."""
    if not (run_dir / "study" / "study.sqlite").is_file():
        return None
    from cobe.annotate.labels import run_labels

    return run_labels([run_dir])


def _config(params: dict[str, Any]) -> EvalConfig:
    """The EvalConfig of a command's options; a value providers would refuse is an InputError naming the flag."""
    fields = set(EvalConfig.model_fields)
    data = {k: v for k, v in params.items() if k in fields and v is not None}
    data["models"] = list(params.get("models") or [])
    data.pop("ids", None)  # repeatable: an empty tuple when not given
    if params.get("ids") or params.get("ids_file"):  # --ids and --ids-file together: both lists
        from cobe.dataset.sample import read_id_file, split_ids

        listed = [sid for path in params.get("ids_file") or () for sid in read_id_file(path)]
        data["ids"] = split_ids([*(params.get("ids") or ()), *listed])
    return EvalConfig(**data)


@click.command("eval", epilog=EXIT_EPILOG)
@options.RUN_OPTIONS
@options.JUDGE
@options.JUDGE_OPTIONS
@JUDGE_CHECK
@options.REPORT
@options.JSON
def eval_cmd(**params: Any) -> None:
    """Generate responses and judge them (the whole pipeline), ending with a table per model.

    With neither --model nor --judge, runs the embedded local/gemma-3-270m as both on
    builtin:starter: a smoke test of the machinery, whose scores mean nothing; the judge
    self-test it runs first says so in numbers, on the last lines.
    Repeating a command resumes its run: nothing finished is called again.
    """
    out = Output.of(params, params["report"])
    if not params["models"] and not params["judge"]:
        params["models"], params["judge"] = [EMBEDDED_MODEL], [EMBEDDED_MODEL]
        if not out.quiet:  # the plan's own notice says what the smoke-test model's scores mean
            click.echo(f"note: no --model or --judge given; using {EMBEDDED_MODEL} for both", err=True)
    if params["judge_check"] is None and EMBEDDED_MODEL in split_specs(params["judge"]):
        params["judge_check"] = EMBEDDED_JUDGE_CHECK  # the smoke-test judge always shows its measured trust
    params["judge_check"] = params["judge_check"] or None
    config = _config(params)
    from cobe.run.engine import evaluate

    run_dir = config.run_dir or (default_run_dir(config) if config.models else None)
    _run(lambda progress: evaluate(config, progress), run_dir, out)


@click.command("generate", epilog=EXIT_EPILOG)
@options.RUN_OPTIONS
@options.JSON
def generate_cmd(**params: Any) -> None:
    """Generate responses only; judge them later with `cobe judge RUN_DIR --judge SPEC`."""
    out = Output.of(params)
    config = _config(params)
    from cobe.run.engine import generate

    run_dir = config.run_dir or (default_run_dir(config) if config.models else None)
    _run(lambda progress: generate(config, progress), run_dir, out)


@click.command("judge", epilog=EXIT_EPILOG)
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@options.JUDGE
@click.option(
    "--show",
    metavar="SET",
    default=None,
    help="Make one of the run's verdict sets current again, with no call: its judge spec, its number or "
    "fingerprint in `cobe runs RUN --verdict-sets`.",
)
@options.JUDGE_OPTIONS
@options.REPEATS
@options.together(  # the part of the run to judge; never from the environment (COBE_LIMIT is for eval's runs)
    *(o.but(env=False) for o in (options.MODEL, options.IDS, options.IDS_FILE, options.LIMIT, options.SAMPLE))
)
@options.SEED.but(env=False)
@options.MODEL_ARG
@options.MODELS_FILE
@options.PACING
@options.BUDGET
@options.PREFLIGHT
@options.REASK_UNSCORED
@options.EXECUTOR
@options.QUIET
@options.VERBOSE
@options.REPORT
@options.JSON
def judge_cmd(run_dir: Path, judge: tuple[str, ...], judge_prompts: str, show: str | None, **params: Any) -> None:
    """Judge a run's stored responses again with another judge, panel or prompt set; no respondent call.

    Every judge's verdicts stay in the store as a verdict set of the run; results.jsonl and summary.json
    show this judge's, and the command says which set it replaced. --show switches back to an earlier set.
    --ids, --ids-file, --sample (with --seed), --limit and --model judge a part of the run, chosen as
    `cobe eval` chooses scenarios; the verdict set records the part, and every report of it says so.
    """
    out = Output.of(params, params.pop("report"))
    for name in ("quiet", "verbose", "as_json"):
        params.pop(name)
    params |= repeats_as_samples(params.pop("repeats"), params["judge_samples"])
    part = _part(params)
    if show is not None:
        if part:
            raise InputError("--show and a part (--ids, --sample, --limit, --model): --show judges nothing; drop them")
        if judge:
            raise InputError("--show and --judge: --show switches to a verdict set the run holds; drop --judge")
        from cobe.run.verdict_sets import show_verdict_set

        _run(lambda _progress: show_verdict_set(run_dir, show), run_dir, out)
        return
    if not judge:
        raise InputError("--judge: expected a judge spec (or --show SET for a verdict set the run already holds)")
    from cobe.run.rejudge import judge_run

    specs = list(judge)
    _run(lambda progress: judge_run(run_dir, specs, judge_prompts, progress=progress, **params, **part), run_dir, out)


def repeats_as_samples(repeats: int | None, samples: int) -> dict[str, Any]:
    """--repeats K as the judging's options: K samples per check at the judge's own temperature (a verdict set
    `cobe judges agree` and `cobe plan` read like any other); nothing without it."""
    if repeats is None:
        return {}
    if samples not in (1, repeats):
        raise InputError(
            f"--repeats {repeats} and --judge-samples {samples}: both set how often each check is asked; give one"
        )
    return {"judge_samples": repeats, "judge_repeats": True}


def _part(params: dict[str, Any]) -> dict[str, Any]:
    """The part of a run a re-judge covers, taken out of its parameters: the ids (--ids and --ids-file
    together), --sample with its --seed, --limit, the models; empty for the whole run."""
    ids, files = params.pop("ids", ()), params.pop("ids_file", ())
    models, seed = params.pop("models", ()), params.pop("seed", 0)
    sample, limit = params.pop("sample", None), params.pop("limit", None)
    part: dict[str, Any] = {}
    if ids or files:
        from cobe.dataset.sample import read_id_file, split_ids

        part["ids"] = split_ids([*ids, *(sid for path in files for sid in read_id_file(path))])
    if sample is not None:
        part |= {"sample": sample, "seed": seed}
    if limit is not None:
        part["limit"] = limit
    if models:
        part["models"] = list(models)
    return part
