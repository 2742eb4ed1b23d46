"""`cobe agreement`: a judge's verdicts against the human majority of a rating study or a CSV of ratings
(`cobe judges` ranks several judges by it, in cobe.cli.judges)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.table import Table

from cobe.annotate.agreement_report import (
    CHECK_CHOICES,
    CI_METRICS,
    agreement_report,
    labels_from_csv,
    labels_from_study,
    study_panel,
    write_agreement,
)
from cobe.cli import options
from cobe.cli.display import num, plain_console, print_table
from cobe.cli.json_end import done
from cobe.core.errors import InputError
from cobe.core.results import CHECKS
from cobe.score.agreement import majority_rule


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
    console, m, ci = plain_console(), report["metrics"], report["ci"]
    table = Table(title=f"Judge vs. human majority — check: {report['check']} (failure = positive)")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("95% CI", justify="right")
    for name in CI_METRICS:
        interval = ci.get(name)
        value = "undefined" if name == "kappa" and m.get("kappa_undefined") else num(m[name])
        table.add_row(name, value, f"{num(interval[0])} – {num(interval[1])}" if interval else "—")
    table.add_row("TP / FP / FN / TN", f"{m['tp']} / {m['fp']} / {m['fn']} / {m['tn']}", "")
    print_table(table, console)
    if m.get("kappa_undefined"):
        console.print(f"kappa: {m['kappa_undefined']}.")

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
        ("Fleiss' kappa", num(m["fleiss_kappa"])),
        ("Krippendorff's alpha", num(m["krippendorff_alpha"])),
    ]:
        counts.add_row(label, str(value))
    print_table(counts, console)
    if report["no_majority_items"]:
        console.print(
            f"Without a majority ({majority_rule(len(report['raters']))} is needed; left out above): "
            + ", ".join(entry["item"] for entry in report["no_majority_items"])
        )

    by_check = Table(title="Disagreements by check (judge overall ≠ human majority): how many said F")
    by_check.add_column("direction")
    by_check.add_column("items", justify="right")
    for check in CHECKS:
        by_check.add_column(check, justify="right")
    for direction, row in report["per_check_disagreements"].items():
        by_check.add_row(direction.replace("_", " "), str(row["items"]), *(str(row[c]) for c in CHECKS))
    print_table(by_check, console)

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
@options.JSON
@options.BOOTSTRAP
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
        click.echo(done(report))
    else:
        _print_report(report, run_dir, saved)
