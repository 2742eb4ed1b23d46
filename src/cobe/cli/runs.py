"""`cobe runs`: the run directories under a folder, or one run's verdict sets."""

from __future__ import annotations

from pathlib import Path

import click

from cobe.cli import options
from cobe.cli.json_end import done


def _fmt_acc(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}%"


@click.command("runs")
@click.argument("root", type=click.Path(path_type=Path, file_okay=False), default=Path("runs"), envvar="COBE_RUNS_ROOT")
@click.option(
    "--verdict-sets",
    is_flag=True,
    help="ROOT is one run directory: list the verdict sets it holds (every judge and prompt set that judged it), "
    "the current one first; `cobe judge RUN --show N` makes set N current.",
)
@options.JSON.but(dest="json_out")
def runs_cmd(root: Path, verdict_sets: bool, json_out: bool) -> None:
    """List run directories under ROOT (default runs/) with state, models, judge, counts and accuracy."""
    if verdict_sets:
        _verdict_sets(root, json_out)
        return
    from cobe.run.rundir import list_runs

    runs = list_runs(root)
    if json_out:  # one object, its list of runs inside (empty where there are none)
        click.echo(done({"runs": runs}))
        return
    if not runs:
        click.echo(f"no runs under {root}")
        return
    from cobe.cli.display import plain_console

    console = plain_console()
    if not console.is_terminal:  # pipes and logs get one tab-separated line per run
        for entry in runs:
            acc = entry.get("accuracy") or {}
            scores = ", ".join(f"{m} {_fmt_acc(a)}" for m, a in acc.items()) or "not scored"
            judging = f"\tjudging={entry['judging']} (its numbers not written yet)" if entry.get("judging") else ""
            click.echo(
                f"{entry['run_dir']}\t{entry['state']}\tmodels={','.join(entry['models'])}\t"
                f"judge={entry.get('judge') or '-'}\tresponses={entry.get('responses', 0)}\t{scores}{judging}"
            )
        return
    from rich.table import Table

    table = Table("run dir", "state", "models", "judge", "responses", "accuracy", "updated")
    for entry in runs:
        acc = entry.get("accuracy") or {}
        scores = "\n".join(f"{m} {_fmt_acc(a)}" for m, a in acc.items()) or "not scored"
        table.add_row(
            entry["run_dir"],
            entry["state"],
            "\n".join(entry["models"]),
            (entry.get("judge") or "-") + (f"\n(judging: {entry['judging']})" if entry.get("judging") else ""),
            str(entry.get("responses", 0)),
            scores,
            entry.get("updated") or "",
        )
    console.print(table)


def _verdict_sets(run_dir: Path, json_out: bool) -> None:
    """One run's verdict sets: number, judge, prompt set, fingerprint, responses judged, the part of the run it was
    asked to judge, current, last shown."""
    from cobe.run.verdict_sets import list_verdict_sets

    sets = list_verdict_sets(run_dir)
    if json_out:
        click.echo(done({"verdict_sets": [v.as_dict() for v in sets]}))
        return
    if not sets:
        click.echo(f"{run_dir}: no verdict set yet; judge it with `cobe judge {run_dir} --judge SPEC`")
        return
    from rich import box
    from rich.table import Table

    from cobe.cli.display import plain_console

    table = Table(box=box.SIMPLE_HEAD, title=f"Verdict sets of {run_dir}", title_justify="left")
    for name in ("#", "judge", "prompts", "fingerprint", "responses judged", "part", "current", "last shown"):
        table.add_column(name, overflow="fold", justify="right" if name in ("#", "responses judged") else "left")
    for number, found in enumerate(sets, start=1):
        ref = found.ref
        judge = ref.spec + (f" ({ref.samples} samples)" if ref.samples > 1 else "")
        table.add_row(
            str(number),
            judge,
            ref.prompt_set,
            ref.identity,
            str(found.responses),
            "whole run" if found.part.whole else found.part.described(),  # the part it was last asked to judge
            "yes" if found.current else "",
            found.shown or "never",
        )
    console = plain_console()
    (console if console.is_terminal else plain_console(width=240)).print(table)
