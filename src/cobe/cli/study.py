"""`cobe plan`: how many scenarios, how many human labels, and the smallest difference a paired
comparison detects, from a pilot run or from stated rates (the arithmetic is cobe.score.study_size)."""

from __future__ import annotations

import math
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cobe.cli import options
from cobe.cli.json_end import done
from cobe.core.errors import InputError

if TYPE_CHECKING:  # a pilot's reader loads pandas and the arithmetic SciPy: neither before the flags are checked
    from cobe.score.pilot import Pilot
    from cobe.score.study_size import Answer

# numbers are parsed here and their ranges checked by cobe.score.study_inputs.check_ranges, so a value
# outside them is one line naming the option and what is sensible, never click's usage block
SINGULAR = {"scenarios": "scenario", "labels per model": "label per model"}


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _value(answer: Any) -> str:
    if _missing(answer.value):
        return str(answer.missing)
    if answer.unit == "share":
        return (
            f"{100 * answer.value:.2g} percentage points"
            if answer.value < 0.001
            else f"{100 * answer.value:.1f} percentage points"
        )
    unit = SINGULAR.get(answer.unit, answer.unit) if answer.value == 1 else answer.unit
    return f"{answer.value:,} {unit}"


#: inputs that are answers of their own: missing, no number reaches what was asked (other inputs are just unknown)
SOUGHT = ("normal approximation (Connor)", "independent pairs needed", "labels with twice the scenarios",
          "labels however many scenarios")  # fmt: skip


def _input(name: str, value: Any, source: str) -> str:
    if _missing(value):
        shown = "not reachable" if name in SOUGHT else "none"
    elif isinstance(value, float) and name == "difference":
        shown = f"{100 * value:.3g} points"
    elif isinstance(value, float) and name in ("half-width", "pass rate", "human pass rate", "discordant share ψ"):
        shown = f"{100 * value:.1f}%" if name != "half-width" else f"±{100 * value:.3g} points"
    elif isinstance(value, float) and "Connor" in name:
        shown = f"{100 * value:.2g} points" if value < 0.001 else f"{100 * value:.1f} points"
    elif isinstance(value, float):
        shown = f"{value:.3g}"
    elif isinstance(value, int):
        shown = f"{value:,}"
    else:
        shown = str(value)
    return f"    {name}: {shown} ({source})"


@click.command("plan")
@click.argument("run", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--model", default=None, help="The pilot run's model (or label) to plan from, when it holds several.")
@options.STUDY
@click.option(
    "--half-width", type=float, default=3.0, show_default=True, help="Target ± of the accuracy, in points (0.1–50)."
)
@click.option(
    "--label-half-width",
    type=float,
    default=3.0,
    show_default=True,
    help="Target ± of the calibrated rate, in points (0.1–50).",
)
@click.option("--pass-rate", type=float, default=None, help="Stated pass rate (0–1) instead of the pilot's.")
@click.option("--phrasings", type=int, default=None, help="Phrasings per scenario, 1–100 [pilot's, else 3].")
@click.option("--icc", type=float, default=None, help="Correlation of one scenario's phrasings [pilot's, else 1].")
@click.option(
    "--variations",
    type=int,
    default=None,
    help="Scenarios per core example (a family), 1–1000 [pilot's mean, else 1].",
)
@click.option(
    "--core-icc",
    type=float,
    default=None,
    help="Correlation of one core example's scenarios [pilot's, else 1 with --variations].",
)
@click.option("--human-rate", type=float, default=None, help="Stated human pass rate [pilot's, else the pass rate].")
@click.option("--judge-sensitivity", type=float, default=None, help="Share of human passes the judge passes.")
@click.option("--judge-specificity", type=float, default=None, help="Share of human fails the judge fails.")
@click.option("--items", type=int, default=None, help="Judged items per model [scenarios × phrasings].")
@click.option("--discordance", type=float, default=None, help="Share of items where exactly one of two models passes.")
@click.option(
    "--against",
    default=None,
    help="The pilot's other model whose discordance with --model is used [the most discordant, named].",
)
@click.option(
    "--detect",
    type=float,
    default=None,
    help="Also answer: scenarios and human labels per model to tell two models this many points apart.",
)
@options.ALPHA_OPTION
@click.option("--power", type=float, default=0.8, show_default=True, help="Power to detect the difference (0.5–0.999).")
@options.JSON
def plan_cmd(
    run: Path | None,
    model: str | None,
    study: str | None,
    half_width: float,
    label_half_width: float,
    judge_sensitivity: float | None,
    judge_specificity: float | None,
    detect: float | None,
    alpha: float,
    power: float,
    as_json: bool,
    **rates: Any,
) -> None:
    """How big must a study be? Scenarios for a CI half-width of the accuracy, human labels for a
    half-width of the human-calibrated rate, and the smallest difference between two models that a
    paired comparison (exact McNemar, as `cobe compare`) detects. From a pilot RUN, from stated rates,
    or both (a stated rate overrides the pilot's). Scenarios come in families (a core example and its
    variations): the scenario count carries their design effect. Formulas: docs/STATISTICS.md."""
    from cobe.score.study_inputs import Stated, check_ranges

    if (judge_sensitivity is None) != (judge_specificity is None):
        raise InputError("--judge-sensitivity and --judge-specificity go together; give both or neither")
    shared = None if detect is None else detect / 100
    stated = Stated(sensitivity=judge_sensitivity, specificity=judge_specificity, detect=shared, **rates)
    if stated.against is not None and run is None:
        raise InputError(f"--against {stated.against!r}: it names a model of a pilot RUN; give the RUN")
    if stated.against is not None and stated.discordance is not None:
        raise InputError(f"--against {stated.against!r} and --discordance: give one (a stated ψ needs no second model)")
    # checked before a pilot is read, so a bad flag costs nothing
    check_ranges(stated, half_width=half_width / 100, label_half_width=label_half_width / 100, alpha=alpha, power=power)
    from cobe.score.study_size import plan_study  # SciPy: only once the inputs are known to be sensible

    pilot = _pilot(run, model, study, stated.against) if run is not None else None
    answers = plan_study(
        pilot, stated, half_width=half_width / 100, label_half_width=label_half_width / 100, alpha=alpha, power=power
    )
    if as_json:  # JSON has no NaN: a figure that does not exist is null
        plan = {"pilot": asdict(pilot) if pilot else None, "answers": [asdict(a) for a in answers]}
        click.echo(done(plan))
        return
    _print(run, pilot, answers)


def _pilot(run: Path, model: str | None, study: str | None, against: str | None) -> Pilot:
    """The pilot model's rates from a run (and its study's human labels): the one model, or the one --model names."""
    from cobe.annotate.labels import run_labels
    from cobe.report.load import load_runs
    from cobe.score.pilot import pilot_from_frame

    pilots = pilot_from_frame(load_runs([run], run_labels([run], study)).frame)
    if not pilots:
        raise InputError(f"{run}: no scored row to plan from")
    if model is None and len(pilots) > 1:
        names = ", ".join(p.model for p in pilots)
        raise InputError(f"{run} holds several models ({names}); choose one with --model")
    chosen = [p for p in pilots if model is None or p.model == model]
    if not chosen:
        raise InputError(f"--model {model!r}: not in {run}; expected one of {', '.join(p.model for p in pilots)}")
    if against == chosen[0].model:
        raise InputError(f"--against {against!r}: the model planned from; name another model of {run}")
    return chosen[0]


def _print(run: Path | None, pilot: Pilot | None, answers: list[Answer]) -> None:
    """The pilot in one line, then each answer with every input it used, its method and its caveat."""
    if pilot is not None:
        families = f" in {pilot.cores} core examples" if pilot.cores and pilot.cores < pilot.scenarios else ""
        click.echo(
            f"Pilot {run} ({pilot.model}): {pilot.scenarios} scenario{'s' if pilot.scenarios != 1 else ''}{families} "
            f"× {pilot.phrasings} phrasing{'s' if pilot.phrasings != 1 else ''}, "
            f"pass rate {100 * pilot.pass_rate:.1f}%, {pilot.rated} human-rated items."
        )
    for answer in answers:
        click.echo(f"{answer.question}: {_value(answer)}")
        for name, (value, source) in answer.inputs.items():
            click.echo(_input(name, value, source))
        click.echo(f"    method: {answer.method}")
        if answer.caveat:
            click.echo(f"    note: {answer.caveat}")
