"""`cobe plan`: how many scenarios, how many human labels, and the smallest difference a paired
comparison detects, from a pilot run or from stated rates (the arithmetic is cobe.score.planning)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from cobe.cli import options
from cobe.core.errors import InputError

SHARE = click.FloatRange(0, 1)
POINTS = click.FloatRange(0, 100, min_open=True)


def _value(answer: Any) -> str:
    if answer.value is None or (isinstance(answer.value, float) and math.isnan(answer.value)):
        return "not reachable"
    if answer.unit == "share":
        return f"{100 * answer.value:.1f} percentage points"
    return f"{answer.value} {answer.unit}"


def _input(name: str, value: Any, source: str) -> str:
    if isinstance(value, float) and name in ("half-width", "pass rate", "human pass rate", "discordant share ψ"):
        shown = f"{100 * value:.1f}%" if name != "half-width" else f"±{100 * value:.1f} points"
    elif isinstance(value, float) and "Connor" in name:
        shown = f"{100 * value:.1f} points"
    elif isinstance(value, float):
        shown = f"{value:.3g}"
    else:
        shown = str(value)
    return f"    {name}: {shown} ({source})"


@click.command("plan")
@click.argument("run", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--model", default=None, help="The pilot run's model (or label) to plan from, when it holds several.")
@options.STUDY
@click.option("--half-width", type=POINTS, default=3.0, show_default=True, help="Target ± of the accuracy, in points.")
@click.option(
    "--label-half-width",
    type=POINTS,
    default=3.0,
    show_default=True,
    help="Target ± of the calibrated rate, in points.",
)
@click.option("--pass-rate", type=SHARE, default=None, help="Stated pass rate (0–1) instead of the pilot's.")
@click.option("--phrasings", type=click.IntRange(min=1), default=None, help="Phrasings per scenario [pilot's, else 3].")
@click.option("--icc", type=SHARE, default=None, help="Correlation of one scenario's phrasings [pilot's, else 1].")
@click.option("--human-rate", type=SHARE, default=None, help="Stated human pass rate [pilot's, else the pass rate].")
@click.option("--judge-sensitivity", type=SHARE, default=None, help="Share of human passes the judge passes.")
@click.option("--judge-specificity", type=SHARE, default=None, help="Share of human fails the judge fails.")
@click.option(
    "--items", type=click.IntRange(min=1), default=None, help="Judged items per model [scenarios × phrasings]."
)
@click.option("--discordance", type=SHARE, default=None, help="Share of items where exactly one of two models passes.")
@options.ALPHA_OPTION
@click.option("--power", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.8, show_default=True)
@options.JSON
def plan_cmd(
    run: Path | None,
    model: str | None,
    study: str | None,
    half_width: float,
    label_half_width: float,
    judge_sensitivity: float | None,
    judge_specificity: float | None,
    alpha: float,
    power: float,
    as_json: bool,
    **rates: Any,
) -> None:
    """How big must a study be? Scenarios for a CI half-width of the accuracy, human labels for a
    half-width of the human-calibrated rate, and the smallest difference between two models that a
    paired comparison (exact McNemar, as `cobe compare`) detects. From a pilot RUN, from stated rates,
    or both (a stated rate overrides the pilot's). Formulas: docs/STATISTICS.md."""
    from cobe.score.planning import Stated, pilot_from_frame, plan_study

    if (judge_sensitivity is None) != (judge_specificity is None):
        raise InputError("--judge-sensitivity and --judge-specificity go together; give both or neither")
    pilot = None
    if run is not None:
        from cobe.annotate.labels import run_labels
        from cobe.report.load import load_runs

        pilots = pilot_from_frame(load_runs([run], run_labels([run], study)).frame)
        if not pilots:
            raise InputError(f"{run}: no scored row to plan from")
        if model is None and len(pilots) > 1:
            names = ", ".join(p.model for p in pilots)
            raise InputError(f"{run} holds several models ({names}); choose one with --model")
        chosen = [p for p in pilots if model is None or p.model == model]
        if not chosen:
            raise InputError(f"--model {model!r}: not in {run}; expected one of {', '.join(p.model for p in pilots)}")
        pilot = chosen[0]
    stated = Stated(sensitivity=judge_sensitivity, specificity=judge_specificity, **rates)
    answers = plan_study(
        pilot, stated, half_width=half_width / 100, label_half_width=label_half_width / 100, alpha=alpha, power=power
    )
    if as_json:
        click.echo(json.dumps({"pilot": asdict(pilot) if pilot else None, "answers": [asdict(a) for a in answers]}))
        return
    if pilot is not None:
        click.echo(
            f"Pilot {run} ({pilot.model}): {pilot.scenarios} scenarios × {pilot.phrasings} phrasings, pass rate "
            f"{100 * pilot.pass_rate:.1f}%, {pilot.rated} human-rated items."
        )
    for answer in answers:
        click.echo(f"{answer.question}: {_value(answer)}")
        for name, (value, source) in answer.inputs.items():
            click.echo(_input(name, value, source))
        click.echo(f"    method: {answer.method}")
        if answer.caveat:
            click.echo(f"    note: {answer.caveat}")
