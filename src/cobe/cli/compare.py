"""`cobe compare`: a paired comparison of two runs, or of every pair of several models (cobe.score)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.table import Table

from cobe.cli import options
from cobe.cli.display import plain_console, print_table
from cobe.cli.json_end import done
from cobe.core.errors import InputError
from cobe.score.bootstrap import CORE_UNIT
from cobe.score.rule import POOLED_RULE

if TYPE_CHECKING:
    import pandas as pd

    from cobe.score.compare import Comparison
    from cobe.score.pairwise import AllPairs

RUNS = click.Path(exists=True)


def _console() -> Console:
    # piped output has no width to detect; rich's 80-column guess would wrap every line (tables: print_table)
    console = plain_console()
    return console if console.is_terminal else plain_console(width=120)


def _num(value: float) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.2f}"


def _p(value: float) -> str:
    return f"{value:.3g}" if value > 0 else "< 1e-300"


def _interval(result: Comparison) -> str:
    return "–" if math.isnan(result.ci_low) else f"[{result.ci_low:+.2f}, {result.ci_high:+.2f}]"


def _drawn(result: Comparison) -> str:
    unit = ("core example", "core examples") if result.ci_unit == CORE_UNIT else ("scenario", "scenarios")
    return f"{result.clusters} {unit[0] if result.clusters == 1 else unit[1]}"


def _rule_line(comparisons: list[Comparison]) -> str:
    """How the accuracies compared were taken on the shared items (cobe.score.rule), and so what A − B is."""
    if all(c.rule != POOLED_RULE for c in comparisons):
        return "Accuracy on the shared items: the mean over phrasings of passes / scored."
    return (
        "Accuracy on the shared items: pooled passes / scored (their phrasings were asked of different scenarios), "
        "so A − B is the paired difference mean(pass A − pass B) = (A only − B only) / items"
        + ("" if all(c.rule == POOLED_RULE for c in comparisons) else " where a pair is pooled")
        + "."
    )


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, type=RUNS)
@click.option(
    "--model-a", default=None, help="With two runs: the model (or label) of the first, when it holds several."
)
@click.option(
    "--model-b", default=None, help="With two runs: the model (or label) of the second, when it holds several."
)
@options.BOOTSTRAP
@options.ALPHA_OPTION
@options.ACROSS_JUDGES
@options.JSON
def compare_cmd(
    runs: tuple[str, ...],
    model_a: str | None,
    model_b: str | None,
    resamples: int,
    seed: int,
    alpha: float,
    across_judges: bool,
    as_json: bool,
) -> None:
    """Paired comparison on the items scored in both: bootstrap CI and exact McNemar test.

    Two runs of one model each (or --model-a/--model-b): that pair. Otherwise every pair of the models the
    runs hold (one run with nine models, or nine runs): one row per pair with the difference, its paired CI,
    McNemar's p and that p adjusted by Holm over all the pairs; --json also lists each pair's discordant items.
    Runs judged by different judges or prompt sets are refused (exit 2, naming them) unless --across-judges."""
    from cobe.report.judged import judges_of, require_alike
    from cobe.report.load import judged_part_notes, load_runs

    # loaded one at a time so that each run keeps its own labels (and its judges are told apart)
    frames = [load_runs([run]).frame for run in runs]
    note = require_alike(judges_of(list(runs), frames), across_judges, "comparison")
    parts = judged_part_notes(runs)  # a verdict set of a part: said before the numbers of its shared items
    if parts:
        for line in parts:
            click.echo(f"note: {line}", err=True)
    one_model_each = len(runs) == 2 and all(frame["label"].nunique() == 1 for frame in frames)
    if model_a or model_b or one_model_each:
        if len(runs) != 2:
            raise InputError(f"--model-a and --model-b pick one model of each of two runs; {len(runs)} runs given")
        _two_runs(frames, model_a, model_b, resamples, seed, alpha, note, as_json)
        return
    _every_pair(runs, resamples, seed, alpha, note, as_json)


def _two_runs(
    frames: list[pd.DataFrame],
    model_a: str | None,
    model_b: str | None,
    resamples: int,
    seed: int,
    alpha: float,
    note: str | None,
    as_json: bool,
) -> None:
    from cobe.score.compare import paired_comparison, select_model

    df_a, label_a = select_model(frames[0], model_a, "RUN_A")
    df_b, label_b = select_model(frames[1], model_b, "RUN_B")
    if label_a == label_b:
        label_a, label_b = f"{label_a} (A)", f"{label_b} (B)"
    result = paired_comparison(df_a, df_b, label_a, label_b, resamples=resamples, seed=seed, alpha=alpha)
    if as_json:
        click.echo(done(result.to_dict() | {"judges_differ": note}))
        return
    table = Table(title=f"Paired comparison on {result.items} items ({result.scenarios} scenarios)")
    if note:
        table.caption = f"Note: {note}."
    table.add_column("")
    table.add_column(label_a, justify="right")
    table.add_column(label_b, justify="right")
    table.add_row("accuracy", _num(result.accuracy_a), _num(result.accuracy_b))
    table.add_row("passes only here", str(result.a_only), str(result.b_only))
    table.add_row("both pass / both fail", f"{result.both_pass} / {result.both_fail}", "")
    table.add_row("difference (A − B)", f"{result.difference:+.2f}", _interval(result))
    table.add_row("McNemar exact p", _p(result.p_value), "")
    console = _console()
    print_table(table, console)
    console.print(result.verdict(), soft_wrap=True)
    console.print(_rule_line([result]), soft_wrap=True)
    if result.resamples:
        console.print(
            f"The CI's paired bootstrap draws {_drawn(result)} ({result.resamples} resamples).", soft_wrap=True
        )
    else:
        console.print(f"No CI: --resamples 0 draws no bootstrap ({_drawn(result)} paired).", soft_wrap=True)


def _every_pair(
    runs: tuple[str, ...], resamples: int, seed: int, alpha: float, note: str | None, as_json: bool
) -> None:
    from cobe.report.load import load_runs
    from cobe.score.pairwise import all_pairs

    # together, so that a model in two runs gets two labels ("model (run)"); a run named twice counts once
    distinct = list(dict.fromkeys(str(Path(run).resolve()) for run in runs))
    frame = load_runs(distinct).frame
    by_label = {str(label): part for label, part in frame.groupby("label", sort=False)}
    if len(by_label) < 2:
        raise InputError(
            f"{', '.join(runs)}: {len(by_label)} model in all; expected two or more models to compare "
            "(the same run twice compares it with itself only when it holds one model: name two runs)"
        )
    result = all_pairs(by_label, resamples=resamples, seed=seed, alpha=alpha)
    if as_json:
        click.echo(done(result.to_dict() | {"judges_differ": note}))
        return
    console = _console()
    print_table(pairs_table(result, note), console)
    for line in pairs_notes(result):
        console.print(line, soft_wrap=True)


def pairs_table(result: AllPairs, note: str | None = None) -> Table:
    """One row per pair, A the better-ranked: difference, paired CI, discordant counts, raw and Holm p."""
    pairs = f"{len(result.pairs)} pair{'' if len(result.pairs) == 1 else 's'}"
    table = Table(title=f"All {pairs} of {len(result.models)} models (A − B on the items both scored)")
    if note:
        table.caption = f"Note: {note}."
    for name in ("A", "B"):
        table.add_column(name, overflow="fold")
    for name in ("items", "A − B", "95% CI", "A only", "B only", "McNemar p", "Holm p", f"at {result.alpha:g}"):
        table.add_column(name, justify="right", no_wrap=True)
    for pair in result.pairs:
        c = pair.comparison
        table.add_row(
            c.label_a,
            c.label_b,
            str(c.items),
            f"{c.difference:+.2f}",
            _interval(c),
            str(c.a_only),
            str(c.b_only),
            _p(c.p_value),
            _p(pair.p_holm),
            "differ" if pair.significant else "–",
        )
    return table


def pairs_notes(result: AllPairs) -> list[str]:
    """The lines under the pairs table: how many pairs differ, how p was adjusted, what the bootstrap drew."""
    differ = sum(pair.significant for pair in result.pairs)
    ranked = ", ".join(f"{m} {_num(result.accuracies[m])}" for m in result.models)
    lines = [
        f"Models by accuracy: {ranked}.",
        f"{differ} of {len(result.pairs)} pairs differ at {result.alpha:g} after Holm's adjustment of the exact "
        f"McNemar p-values over all {len(result.pairs)} pairs (family-wise error rate).",
    ]
    lines.append(_rule_line([pair.comparison for pair in result.pairs]))
    drawn = sorted({_drawn(pair.comparison) for pair in result.pairs})
    if result.resamples:
        lines.append(f"The CIs' paired bootstrap draws {' / '.join(drawn)} ({result.resamples} resamples).")
    else:
        lines.append("No CI: --resamples 0 draws no bootstrap.")
    lines.append("--json lists each pair's discordant items (a_only_items, b_only_items).")
    return lines
