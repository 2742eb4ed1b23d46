"""`cobe agreement` (judge vs. human majority), `cobe judges analyze` (rank judges by that agreement),
`cobe judges check` (the judge self-test on probes with known verdicts) and `cobe judges diff` (verdict
flips between two judge prompt sets)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.table import Table

from cobe.annotate.agreement_report import (
    CHECK_CHOICES,
    CI_METRICS,
    agreement_report,
    analyze_judges,
    labels_from_csv,
    labels_from_study,
    study_panel,
    write_agreement,
)
from cobe.cli.types import RESAMPLES, SEED
from cobe.core.errors import InputError, RunIncomplete
from cobe.judge.checks import CHECKS
from cobe.judge.prompt_sets import DEFAULT_JUDGE_PROMPTS

if TYPE_CHECKING:
    from cobe.run.judge_diff import JudgeDiff


def _console() -> Console:
    return Console(highlight=False, soft_wrap=False, markup=False, emoji=False)  # stored text is shown as is


def _num(value: Any, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _short(text: str | None, width: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _resolve_run(source: Path, run: str | None, is_csv: bool) -> Path:
    """The run directory: --run, or the run the study was made from."""
    if run:
        path = Path(run)
        return path.parent if path.is_file() else path
    if is_csv:
        raise InputError(f"{source}: ratings from a CSV need --run RUN to find the judge's verdicts")
    from cobe.annotate.study import open_study

    recorded = open_study(source).meta("run_dir")
    if not recorded or not Path(recorded).is_dir():
        raise InputError(f"{source}: the study's run directory {recorded!r} is gone; pass --run RUN")
    return Path(recorded)


def _print_report(report: dict[str, Any], run_dir: Path, saved: Path) -> None:
    console, m, ci = _console(), report["metrics"], report["ci"]
    table = Table(title=f"Judge vs. human majority — check: {report['check']} (failure = positive)")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("95% CI", justify="right")
    for name in CI_METRICS:
        interval = ci.get(name)
        table.add_row(name, _num(m[name]), f"{_num(interval[0])} – {_num(interval[1])}" if interval else "—")
    table.add_row("TP / FP / FN / TN", f"{m['tp']} / {m['fp']} / {m['fn']} / {m['tn']}", "")
    console.print(table)

    counts = Table(title="Items and raters")
    counts.add_column("")
    counts.add_column("", justify="right")
    for label, value in [
        ("rated items", m["items"]),
        ("compared (judge scored, human majority)", m["n"]),
        ("excluded: no majority, Yes and No split", m["no_majority_split"]),
        ("excluded: no majority, too many Other/unanswered", m["no_majority_abstained"]),
        ("excluded: judge unscored", m["judge_unscored"]),
        ("rated but not in the run", m["not_in_run"]),
        ("raters", m["raters"]),
        ("ratings", m["ratings"]),
        ("'Other' answers", m["other_labels"]),
        ("Fleiss' kappa", _num(m["fleiss_kappa"])),
        ("Krippendorff's alpha", _num(m["krippendorff_alpha"])),
    ]:
        counts.add_row(label, str(value))
    console.print(counts)
    if report["no_majority_items"]:
        console.print(
            "Without a majority (fewer than two matching Yes/No votes of three; left out above): "
            + ", ".join(entry["item"] for entry in report["no_majority_items"])
        )

    by_check = Table(title="Disagreements by check (judge overall ≠ human majority): how many said F")
    by_check.add_column("direction")
    by_check.add_column("items", justify="right")
    for check in CHECKS:
        by_check.add_column(check, justify="right")
    for direction, row in report["per_check_disagreements"].items():
        by_check.add_row(direction.replace("_", " "), str(row["items"]), *(str(row[c]) for c in CHECKS))
    console.print(by_check)

    if report["disagreements"]:
        listing = Table(title="Items where judge and humans disagree", show_lines=True)
        for column in ("item", "story / response", "judge", "humans"):
            listing.add_column(column, overflow="fold")
        for d in report["disagreements"]:
            verdicts = "\n".join(f"{c} {v or '?'}" for c, v in d["verdicts"].items())
            humans = ", ".join(f"{r} {label}" for r, label in d["human_labels"].items())
            listing.add_row(d["item"], f"{_short(d['story'])}\n→ {_short(d['response'])}", verdicts, humans)
        console.print(listing)
    console.print(f"Saved {saved} (run {run_dir}).")


@click.command("agreement")
@click.argument("source", type=click.Path(exists=True))
@click.option("--run", "run", default=None, help="Run directory with the judge's verdicts [default: the study's run].")
@click.option(
    "--check",
    type=click.Choice(CHECK_CHOICES),
    default="overall",
    show_default=True,
    help="Compare the human label with the overall verdict or one check's verdict.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--resamples",
    type=RESAMPLES,
    default=1000,
    show_default=True,
    help="Bootstrap resamples for the CIs (0: none).",
)
@click.option("--seed", type=SEED, default=0, show_default=True, help="Bootstrap seed.")
def agreement_cmd(source: str, run: str | None, check: str, as_json: bool, resamples: int, seed: int) -> None:
    """Judge–human agreement for SOURCE: a study (directory or study.sqlite) or a CSV of ratings.

    The CSV has columns rater, item, label[, comment]; item is "scenario_id:template:model" or a study
    item id. Writes RUN/agreement.json for the HTML report.
    """
    from cobe.annotate.study import read_results

    path = Path(source)
    is_csv = path.is_file() and path.suffix.lower() == ".csv"
    run_dir = _resolve_run(path, run, is_csv)
    if not is_csv:  # a study's labels belong to the responses it rated: those must be the run's
        from cobe.annotate.labels import check_study_of_run

        check_study_of_run(path, run_dir)
    labels = labels_from_csv(path, run_dir) if is_csv else labels_from_study(path)
    panel = [] if is_csv else study_panel(path)
    report = agreement_report(labels, read_results(run_dir), check=check, resamples=resamples, seed=seed, panel=panel)
    report["source"] = str(path)
    saved = write_agreement(run_dir, report)
    if as_json:
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print_report(report, run_dir, saved)


@click.group("judges")
def judges() -> None:
    """Test and compare judges: on probes with known verdicts, against human ratings, across prompt sets."""


@judges.command("check")
@click.option(
    "--judge",
    "judge_specs",
    envvar="COBE_JUDGE",
    multiple=True,
    required=True,
    metavar="SPEC",
    help="Judge model spec; repeat it (or give a comma list) to self-test a panel's strict majority.",
)
@click.option(
    "--judge-prompts", default=DEFAULT_JUDGE_PROMPTS, show_default=True, help="Judge prompt set: a name or a directory."
)
@click.option(
    "--judge-samples", type=click.IntRange(min=1), default=1, show_default=True, metavar="K", help="Samples per check."
)
@click.option("--data", default="builtin:starter", show_default=True, help="Dataset the probes come from.")
@click.option("--n", "n", type=click.IntRange(min=1), default=20, show_default=True, help="Scenarios to probe.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the scenario sample.")
@click.option(
    "--run-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Cache the judge's calls in this run directory's store [default: $XDG_CACHE_HOME/cobe/judge-check].",
)
@click.option("--concurrency", type=click.IntRange(min=1), default=None, help="Concurrent judge calls.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def check_cmd(
    judge_specs: tuple[str, ...],
    judge_prompts: str,
    judge_samples: int,
    data: str,
    n: int,
    seed: int,
    run_dir: Path | None,
    concurrency: int | None,
    as_json: bool,
) -> None:
    """Self-test a judge with judge calls only: the unchanged story must fail the change check, the
    illustrative rewrite must pass all three checks, another story's illustrative rewrite must fail
    preserve. Prints the share of expected verdicts per check with an exact 95% CI, and a verdict."""
    from cobe.run.selftest import judge_check

    result = judge_check(
        list(judge_specs),
        judge_prompts,
        data,
        n=n,
        seed=seed,
        run_dir=run_dir,
        samples=judge_samples,
        concurrency=concurrency,
        on_wait=lambda line: click.echo(f"note: {line}", err=True),
    )
    if as_json:
        click.echo(result.model_dump_json(indent=2))
    else:
        for line in result.lines():
            click.echo(line)
    if result.calls_failed:  # the numbers above leave those checks out: not a finished self-test
        every = "every one" if result.calls_failed == result.calls_made else f"{result.calls_failed}"
        raise RunIncomplete(
            f"{every} of {result.calls_made} judge calls failed after their retries, so the self-test counts "
            "only the verdicts it got; run the same command again to ask the failed ones again"
        )


@judges.command("analyze")
@click.argument("study", type=click.Path(exists=True))
@click.option("--judge", "judge_specs", multiple=True, required=True, help="Judge model spec; repeat for several.")
@click.option(
    "--judge-prompts", default=DEFAULT_JUDGE_PROMPTS, show_default=True, help="Judge prompt set: a name or a directory."
)
@click.option("--concurrency", type=click.IntRange(min=1), default=None, help="Concurrent judge calls.")
@click.option(
    "--resamples",
    type=RESAMPLES,
    default=1000,
    show_default=True,
    help="Bootstrap resamples for kappa's CI.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the ranking as JSON.")
def analyze_cmd(
    study: str, judge_specs: tuple[str, ...], judge_prompts: str, concurrency: int | None, resamples: int, as_json: bool
) -> None:
    """Run each judge on STUDY's rated items and rank them by Cohen's kappa vs. the human majority."""
    ranked = analyze_judges(
        study, list(judge_specs), judge_prompts=judge_prompts, concurrency=concurrency, resamples=resamples
    )
    if as_json:
        click.echo(json.dumps(ranked, indent=2))
        return
    table = Table(title=f"Judges ranked by agreement with the human majority (prompts: {judge_prompts})")
    for column in ("#", "judge", "kappa", "kappa 95% CI", "accuracy", "F1", "unscored", "$ / 1000", "s / 1000"):
        table.add_column(column, justify="left" if column == "judge" else "right")
    for r in ranked:
        interval = r["kappa_ci"]
        table.add_row(
            str(r["rank"]),
            r["judge"],
            _num(r["kappa"]),
            f"{_num(interval[0])} – {_num(interval[1])}" if interval else "—",
            _num(r["accuracy"]),
            _num(r["f1"]),
            f"{100 * (r['unscored_share'] or 0):.1f}%",
            _num(r["cost_per_1000"], 2),
            _num(r["seconds_per_1000"], 1),
        )
    _console().print(table)
    _console().print("Per 1000 judged items (three checks each); unscored = share of check verdicts without T/F.")


@judges.command("diff")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--prompts",
    default="paper,contextual",
    show_default=True,
    metavar="A,B",
    help="The two judge prompt sets to compare (names or directories).",
)
@click.option(
    "--judge",
    "judge_specs",
    multiple=True,
    metavar="SPEC",
    help="Judge (repeat for a panel) whose verdicts to compare; verdicts it lacks under either set are judged "
    "first, without changing which judge the run shows [default: the run's judge, and nothing is called].",
)
@click.option(
    "--judge-samples", type=click.IntRange(min=1), default=None, metavar="K", help="Samples per check to compare."
)
@click.option("--concurrency", type=click.IntRange(min=1), default=None, help="Concurrent judge calls.")
@click.option("--max-cost", type=click.FloatRange(min=0), default=None, metavar="USD", help="Spending cap.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def diff_cmd(
    run_dir: Path,
    prompts: str,
    judge_specs: tuple[str, ...],
    judge_samples: int | None,
    concurrency: int | None,
    max_cost: float | None,
    as_json: bool,
) -> None:
    """How many verdicts flip when RUN_DIR's responses are judged with a second prompt set.

    Per check and for the overall pass/fail: responses compared (scored under both sets), flips and
    their direction, the flip rate, and the pass rate under each set with its change.
    """
    from cobe.run.judge_diff import judges_diff

    result = judges_diff(
        run_dir,
        prompts,
        list(judge_specs) or None,
        judge_samples=judge_samples,
        concurrency=concurrency,
        max_cost=max_cost,
    )
    if as_json:
        click.echo(json.dumps(result.as_dict(), indent=2))
    else:
        _print_diff(result)
    made = sum(stats.get("calls_made", 0) for stats in result.judged.values())
    failed = sum(stats.get("errors", 0) for stats in result.judged.values())
    if failed:  # the comparison leaves those responses out: not a finished diff
        every = "every one" if failed == made else f"{failed}"
        raise RunIncomplete(
            f"{every} of {made} judge calls failed after their retries, so the comparison leaves their responses "
            "out; run the same command again to judge them again"
        )


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
            _num(r["flip_rate"], 1),
            str(r["t_to_f"]),
            str(r["f_to_t"]),
            _num(r["pass_rate_a"], 1),
            _num(r["pass_rate_b"], 1),
            "—" if change is None else f"{change:+.1f}",
        )
    Console(highlight=False, markup=False, emoji=False, width=max(100, Console().width)).print(table)
    for prompt_set, stats in result.judged.items():
        _console().print(
            f"Judged first with {prompt_set}: {stats.get('calls_made', 0)} calls made, "
            f"{stats.get('calls_cached', 0)} from the store."
        )
