"""`cobe judges`: self-test a judge on probes with known verdicts (`check`), audit where it can be fooled, how
stable it is and how far its confidence holds (`audit`, in `cobe.cli.audit`), rank judges by their agreement
with human ratings (`analyze`), count the verdicts that flip between two judge prompt sets (`diff`), and set
every verdict set of a run beside a reference set, the source's published verdicts by default (`agree`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.table import Table

from cobe.annotate.agreement_report import analyze_judges
from cobe.cli import options
from cobe.cli.audit import audit_cmd
from cobe.cli.display import num, plain_console, print_table, progress_display
from cobe.cli.json_end import done, end_object
from cobe.core.errors import RunIncomplete

if TYPE_CHECKING:
    from cobe.diagnostics.judges_agree import SetAgreementReport, SetComparison
    from cobe.judge.prompt_diff import JudgeDiff
    from cobe.judge.selftest_result import SelfTest


@click.group("judges")
def judges() -> None:
    """Test and compare judges: on probes with known verdicts, in a full audit, against human ratings, across
    prompt sets, against a run's published verdicts."""


judges.add_command(audit_cmd)


@judges.command("check")
@options.JUDGE.but(dest="judge_specs", required=True)
@options.JUDGE_PROMPTS.but(env=False)
@options.JUDGE_SAMPLES.but(env=False)
@options.DATA.but(env=False)
@click.option("--n", "n", type=click.IntRange(min=1), default=20, show_default=True, help="Scenarios to probe.")
@options.SEED.but(env=False)
@options.CALL_STORE
@options.CONCURRENCY.but(env=False)
@options.TIMEOUT
@options.MAX_RETRIES
@options.MAX_RETRY_WAIT
@options.REASK_UNSCORED
@options.MODEL_ARG
@options.JSON
def check_cmd(
    judge_specs: tuple[str, ...],
    judge_prompts: str,
    judge_samples: int,
    data: str,
    n: int,
    seed: int,
    run_dir: Path | None,
    concurrency: int | None,
    timeout: float | None,
    max_retries: int,
    max_retry_wait: float,
    reask_unscored: bool,
    model_args: tuple[str, ...],
    as_json: bool,
) -> None:
    """Self-test a judge with judge calls only: the unchanged story must fail the change check, the
    illustrative rewrite must pass all three checks, another story's illustrative rewrite must fail
    preserve. Prints the share of expected verdicts per check with an exact 95% CI, and a verdict."""
    from cobe.judge.selftest import judge_check

    progress = progress_display()
    with progress:  # a progress line on stderr off a terminal, as a run's: judge calls can take minutes each
        result = judge_check(
            list(judge_specs),
            judge_prompts,
            data,
            n=n,
            seed=seed,
            run_dir=run_dir,
            samples=judge_samples,
            model_args=list(model_args),
            concurrency=concurrency,
            timeout=timeout,
            max_retries=max_retries,
            max_retry_wait=max_retry_wait,
            reask_unscored=reask_unscored,
            progress=progress,
            on_wait=lambda line: click.echo(f"note: {line}", err=True),
        )
    stopped = _unfinished_self_test(result)
    if as_json:  # one object, whichever way it ended
        report = json.loads(result.model_dump_json())
        if stopped is not None:
            raise stopped.reporting(report)
        click.echo(end_object(0, None, "complete", report))
    else:
        for line in result.lines():
            click.echo(line)
    if stopped is not None:
        raise stopped


def _unfinished_self_test(result: SelfTest) -> RunIncomplete | None:
    """Why a self-test is not a finished one (exit 5): judge calls that failed, or not one usable verdict."""
    if result.calls_failed:  # the numbers above leave those checks out
        every = "every one" if result.calls_failed == result.calls_made else f"{result.calls_failed}"
        return RunIncomplete(
            f"{every} of {result.calls_made} judge calls failed after their retries, so the self-test counts "
            "only the verdicts it got; run the same command again to ask the failed ones again"
        )
    if not any(row.share is not None for row in result.checks):  # answers, none of them a T or an F
        return RunIncomplete(
            f"{result.judge} gave no usable verdict (T or F) on any probe, so the self-test says nothing about it; "
            "check that the spec names a judge model (a base model behind a server without a chat template: ask it "
            "through the completions endpoint, -M SPEC:api=completions), and once it is fixed ask again with "
            "--reask-unscored"
        )
    return None


@judges.command("analyze")
@click.argument("study", type=click.Path(exists=True))
@click.option(
    "--judge", "judge_specs", multiple=True, required=True, help="Judge model spec; repeat it to rank several."
)
@options.JUDGE_PROMPTS.but(env=False)
@options.CONCURRENCY.but(env=False)
@options.TIMEOUT
@options.RESAMPLES_OPTION
@options.JSON
def analyze_cmd(
    study: str,
    judge_specs: tuple[str, ...],
    judge_prompts: str,
    concurrency: int | None,
    timeout: float | None,
    resamples: int,
    as_json: bool,
) -> None:
    """Run each judge on STUDY's rated items and rank them by Cohen's kappa vs. the human majority."""
    progress = progress_display()
    with progress:
        ranked = analyze_judges(
            study,
            list(judge_specs),
            judge_prompts=judge_prompts,
            concurrency=concurrency,
            timeout=timeout,
            resamples=resamples,
            progress=progress,
        )
    if as_json:
        click.echo(done({"judges": ranked}))
        return
    table = Table(title=f"Judges ranked by agreement with the human majority (prompts: {judge_prompts})")
    for column in ("#", "judge", "kappa", "kappa 95% CI", "accuracy", "F1", "unscored", "$ / 1000", "s / 1000"):
        table.add_column(column, justify="left" if column == "judge" else "right")
    for r in ranked:
        interval = r["kappa_ci"]
        table.add_row(
            str(r["rank"]),
            r["judge"],
            "undefined" if r.get("kappa_undefined") else num(r["kappa"]),
            f"{num(interval[0])} – {num(interval[1])}" if interval else "—",
            num(r["accuracy"]),
            num(r["f1"]),
            f"{100 * (r['unscored_share'] or 0):.1f}%",
            num(r["cost_per_1000"], 2),
            num(r["seconds_per_1000"], 1),
        )
    print_table(table)
    console = plain_console()
    for r in ranked:
        if r.get("kappa_undefined"):
            console.print(f"kappa of {r['judge']}: {r['kappa_undefined']}.")
    console.print("Per 1000 judged items (three checks each); unscored = share of check verdicts without T/F.")


@judges.command("diff")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--prompts",
    default="paper,contextual",
    show_default=True,
    metavar="A,B",
    help="The two judge prompt sets to compare (names or directories).",
)
@options.JUDGE.but(env=False, dest="judge_specs", show_default="the run's judge, and nothing is called")
@options.JUDGE_SAMPLES.but(env=False, default=None, show_default="the run's; 1 with --judge")
@options.CONCURRENCY.but(env=False)
@options.TIMEOUT
@options.MAX_COST.but(env=False)
@options.JSON
def diff_cmd(
    run_dir: Path,
    prompts: str,
    judge_specs: tuple[str, ...],
    judge_samples: int | None,
    concurrency: int | None,
    timeout: float | None,
    max_cost: float | None,
    as_json: bool,
) -> None:
    """How many verdicts flip when RUN_DIR's responses are judged with a second prompt set.

    With --judge, verdicts that judge (or panel) lacks under either set are judged first, without
    changing which judge the run shows. Per check and for the overall pass/fail: responses compared (scored under both sets), flips and
    their direction, the flip rate, and the pass rate under each set with its change.
    """
    from cobe.run.rejudge import judges_diff

    progress = progress_display()
    with progress:
        result = judges_diff(
            run_dir,
            prompts,
            list(judge_specs) or None,
            judge_samples=judge_samples,
            concurrency=concurrency,
            timeout=timeout,
            max_cost=max_cost,
            progress=progress,
        )
    made = sum(stats.get("calls_made", 0) for stats in result.judged.values())
    failed = sum(stats.get("errors", 0) for stats in result.judged.values())
    stopped = None
    if failed:  # the comparison leaves those responses out: not a finished diff
        every = "every one" if failed == made else f"{failed}"
        stopped = RunIncomplete(
            f"{every} of {made} judge calls failed after their retries, so the comparison leaves their responses "
            "out; run the same command again to judge them again"
        )
    if as_json:  # one object, whichever way it ended
        if stopped is not None:
            raise stopped.reporting(result.as_dict())
        click.echo(end_object(0, None, "complete", result.as_dict()))
    else:
        _print_diff(result)
    if stopped is not None:
        raise stopped


def _print_diff(result: JudgeDiff) -> None:
    """The comparison table of `cobe judges diff`, and what it judged first."""
    first, second = result.prompts
    samples = f", {result.samples} samples per check" if result.samples > 1 else ""
    table = Table(title=f"{result.judge}: A = {first}, B = {second} ({result.responses} responses{samples})")
    table.add_column("check", no_wrap=True, min_width=10)
    for column in ("compared", "flips", "flip %", "T→F", "F→T", "pass % A", "pass % B", "change"):
        table.add_column(column, justify="right")
    for r in result.records():
        change = r["pass_rate_change"]
        table.add_row(
            r["target"],
            str(r["compared"]),
            str(r["flips"]),
            num(r["flip_rate"], 1),
            str(r["t_to_f"]),
            str(r["f_to_t"]),
            num(r["pass_rate_a"], 1),
            num(r["pass_rate_b"], 1),
            "—" if change is None else f"{change:+.1f}",
        )
    print_table(table, plain_console(width=max(100, Console().width)))
    for prompt_set, stats in result.judged.items():
        plain_console().print(
            f"Judged first with {prompt_set}: {stats.get('calls_made', 0)} calls made, "
            f"{stats.get('calls_cached', 0)} from the store."
        )


@judges.command("agree")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--reference",
    default=None,
    metavar="SET",
    help="The verdict set the others are compared with: its number in `cobe runs RUN --verdict-sets`, its judge "
    "spec or the start of its fingerprint [default: the run's published set, e.g. cobe-site (published)].",
)
@options.BOOTSTRAP
@options.JSON
def agree_cmd(run_dir: Path, reference: str | None, resamples: int, seed: int, as_json: bool) -> None:
    """How far each verdict set of RUN_DIR agrees with a reference set, from the store, with no model call.

    On the overall pass/fail of every response both sets scored (a judge's three checks: one F fails): per
    model and overall, the pass rate under each set, the agreement, Cohen's kappa with a 95% CI from a
    bootstrap over core examples, and the 2×2 counts; then the rows left out, by why, and the rows where
    the two differ (--json lists them all).
    """
    from cobe.diagnostics.judges_agree import agree_verdict_sets

    report = agree_verdict_sets(run_dir, reference, resamples=resamples, seed=seed)
    if as_json:
        click.echo(end_object(0, None, "complete", report.as_dict()))
        return
    _print_agreement(report)


def _print_agreement(report: SetAgreementReport) -> None:
    """The tables of `cobe judges agree`: one per verdict set, with what it left out and where it differs."""
    from cobe.diagnostics.judges_agree import set_name

    plain_console(soft_wrap=True).print(
        f"Agreement with {set_name(report.reference.ref)} on {report.run_dir} ({report.rows} rows): overall "
        "pass/fail, a judge's three checks combined by the paper's rule (one F fails); pass % = passes / compared."
    )
    for comparison in report.comparisons:
        _print_comparison(comparison, report)


def _print_comparison(comparison: SetComparison, report: SetAgreementReport) -> None:
    from cobe.diagnostics.judges_agree import SHOWN_DIFFERENCES, set_name

    name = set_name(comparison.verdict_set.ref)
    table = Table(title=f"{name} vs. {set_name(report.reference.ref)}")
    for side in (comparison.verdict_set, report.reference):  # a set judged on a part: compared on the shared rows
        if not side.part.whole:
            table.caption = (
                f"{set_name(side.ref)} covers a part of the run ({side.part.described()}): compared on the rows "
                "both sets judged; the rest are counted as not yet judged."
            )
    table.add_column("model", no_wrap=True)
    columns = ("compared", "pass % ref", "pass % set", "change", "agree %", "kappa", "kappa 95% CI")
    for column in (*columns, "both pass", "both fail", "only ref passes", "only set passes"):
        table.add_column(column, justify="right")
    for g in comparison.groups:
        interval = g["kappa_ci"]
        change = g["difference"]
        table.add_row(
            g["model"],
            str(g["compared"]),
            num(g["reference_accuracy"], 1),
            num(g["set_accuracy"], 1),
            "—" if change is None else f"{change:+.1f}",
            num(g["agreement"], 1),
            "undefined" if g.get("kappa_undefined") else num(g["kappa"]),
            f"{num(interval[0])} – {num(interval[1])}" if interval else "—",
            *(
                str(g[cell])
                for cell in ("both_pass", "both_fail", "reference_pass_set_fail", "reference_fail_set_pass")
            ),
        )
    print_table(table, plain_console(width=max(100, Console().width)))
    console = plain_console(soft_wrap=True)
    overall = comparison.groups[-1]
    unit = "core examples" if overall["ci_unit"] == "core example" else "scenarios"
    console.print(
        f"kappa 95% CI: bootstrap over {overall['clusters']} {unit} ({report.resamples} resamples, seed {report.seed})."
    )
    for g in comparison.groups:  # a kappa where a side gave one verdict only is no measurement: say why it is none
        if g.get("kappa_undefined"):
            console.print(f"kappa of {g['model']}: {g['kappa_undefined']}.")
    left = comparison.left_out
    console.print(
        f"Left out: {left['unscored_reference']} unscored by the reference, {left['unscored_set']} by this set, "
        f"{left['unscored_both']} by both; {left['not_judged']} not yet judged; {left['errors']} respondent errors."
    )
    differ = comparison.differences
    if not differ:
        console.print("The two agree on every compared row.")
        return
    more = f", the first {SHOWN_DIFFERENCES}; --json lists them all" if len(differ) > SHOWN_DIFFERENCES else ""
    console.print(f"Rows where they differ ({len(differ)}{more}):")
    for d in differ[:SHOWN_DIFFERENCES]:
        epoch = f" epoch {d['epoch']}" if d["epoch"] > 1 else ""
        console.print(
            f"  {d['model']} {d['scenario_id']} {d['template']}{epoch}: reference {d['reference']}, this set {d['set']}"
        )
