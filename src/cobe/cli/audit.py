"""`cobe judges audit`: where a judge can be fooled, how stable it is, how far its confidence holds (the work is
`cobe.judge.audit`; docs/JUDGE_AUDIT.md explains every probe)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from cobe.cli import options
from cobe.cli.json_end import end_object
from cobe.core.errors import RunIncomplete

if TYPE_CHECKING:
    from cobe.judge.audit import AuditPlan
    from cobe.judge.audit_card import JudgeAudit
    from cobe.judge.audit_result import ReferenceCalibration


def run_data(run_dir: Path | None) -> str | None:
    """The data a run directory's run was run on (its summary.json), for an audit kept beside the run."""
    from cobe.core.jsonfile import read_json

    summary = run_dir / "summary.json" if run_dir is not None else None
    if summary is None or not summary.is_file():
        return None
    found = read_json(summary, "a run summary (JSON)")
    data = found.get("data") if isinstance(found, dict) else None
    return data if isinstance(data, str) and data else None


def audit_dir(runs_root: Path, judge: str, data: str) -> Path:
    """`<runs root>/audit__<judge>__<data>`: the same judge and data find the same directory, and its calls."""
    from cobe.run.rundir import data_slug, slug

    return runs_root / f"audit__{slug(judge.replace('/', '_'))}__{slug(data_slug(data))}"


@click.command("audit")
@click.option(
    "--judge",
    "-j",
    "judge",
    required=True,
    metavar="SPEC",
    help="The judge to audit, e.g. openai/gpt-5.4: one judge (audit a panel's members one by one).",
)
@options.JUDGE_PROMPTS.but(env=False)
@options.DATA.but(env=False, show_default="the run's, where --run-dir holds one; else builtin:starter")
@click.option("--n", "n", type=click.IntRange(min=1), default=20, show_default=True, help="Scenarios to probe.")
@options.REPEATS.but(default=2, show_default=True)
@click.option(
    "--probes",
    multiple=True,
    metavar="NAME[,NAME]",
    help="Only these probes (repeatable) [default: all]: identity, illustrative, swapped, omission, both_worlds, "
    "echo, empty, refusal, injection, padded, reordered.",
)
@options.JUDGE_TEMPERATURE.but(env=False)
@options.SEED.but(env=False)
@click.option(
    "--run-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the calls and audit.json / audit.md go; a run's own directory puts the card in its report "
    "[default: <runs root>/audit__<judge>__<data>].",
)
@click.option(
    "--reference",
    metavar="REF",
    default=None,
    help="Also set the judge's P(T) on the responses of the run in --run-dir (its stored verdicts; no call) against "
    "REF: `study` (the human majority of RUN/study/), `study:PATH` (another study of the run), or one of the run's "
    "verdict sets as `cobe judges agree --reference` names it (number, spec or fingerprint start: the published "
    "verdicts, a panel's majority, another judge).",
)
@options.RUNS_ROOT.but(env=False)
@options.PACING
@options.BUDGET
@options.PREFLIGHT
@options.DRY_RUN.but(env=False)
@options.JSON
def audit_cmd(
    judge: str,
    judge_prompts: str,
    data: str,
    n: int,
    repeats: int,
    probes: tuple[str, ...],
    judge_temperature: float | None,
    seed: int,
    run_dir: Path | None,
    reference: str | None,
    runs_root: Path,
    preflight: bool,
    dry_run: bool,
    max_cost: float | None,
    prices: Path | None,
    as_json: bool,
    **pacing: float | int | None,
) -> None:
    """Audit a judge with judge calls only, on probes built from each scenario: answers that try to fool it
    (the story with its changed facts removed, both worlds side by side, non-answers, a note to the judge),
    changes that must change no verdict, each check asked --repeats times, and its P(T) against the verdicts
    the probes must get (and, with --reference, against a reference on a run's responses). Prints the card
    (findings in plain words, then the tables) and writes audit.json, audit.md and the reliability figure
    (audit_reliability.svg) in the run directory; a repeated audit pays for no call twice."""
    from cobe.judge.audit import estimate_audit, plan_audit, run_audit
    from cobe.report.audit_figure import reliability_svg

    if click.get_current_context().get_parameter_source("data") is ParameterSource.DEFAULT:
        data = run_data(run_dir) or data
    plan = plan_audit(
        judge,
        judge_prompts,
        data,
        n=n,
        seed=seed,
        repeats=repeats,
        temperature=judge_temperature,
        probes=probes or None,
    )
    where = run_dir or audit_dir(runs_root, judge, data)
    against = run_reference(plan, run_dir, reference) if reference is not None else None  # refused before any call
    if dry_run:
        estimate = estimate_audit(plan, where, prices)
        if as_json:
            click.echo(end_object(0, None, "dry-run", estimate.as_dict()))
        else:
            click.echo("\n".join(estimate.lines()))
        return
    audit = run_audit(
        plan,
        where,
        prices=prices,
        max_cost=max_cost,
        preflight=preflight,
        on_wait=lambda line: click.echo(f"note: {line}", err=True),
        reference=against,
        figure=reliability_svg,
        **pacing,
    )
    _end(audit, where, as_json)


def run_reference(plan: AuditPlan, run_dir: Path | None, reference: str) -> ReferenceCalibration:
    """The audited judge's P(T) on the run's responses against REF, read from the run's store (and its study)."""
    from cobe.core.errors import InputError
    from cobe.report.judge_confidence import HumanReference, reference_calibration

    if run_dir is None:
        raise InputError(f"--reference {reference}: it reads the verdicts of a run; give the run with --run-dir RUN")
    if reference != "study" and not reference.startswith("study:"):
        return reference_calibration(run_dir, plan.judging.members[0].ref, reference)
    from cobe.annotate.labels import run_labels
    from cobe.annotate.store import study_file

    given = reference.partition(":")[2] or None
    path = study_file(given) if given else run_dir / "study"
    if given is None and not study_file(path).is_file():
        raise InputError(f"--reference study: {run_dir} has no rating study (RUN/study/); name one with study:PATH")
    answers = run_labels([run_dir], given).get(str(run_dir.resolve()), {})
    return reference_calibration(run_dir, plan.judging.members[0].ref, HumanReference(str(study_file(path)), answers))


def _end(audit: JudgeAudit, where: Path, as_json: bool) -> None:
    """The card (or its JSON object), then exit 5 where judge calls failed: the tables leave those questions out."""
    stopped = None
    if audit.calls_failed:
        stopped = RunIncomplete(
            f"{audit.calls_failed} of {audit.calls_made} judge calls failed after their retries, so the audit counts "
            "only the verdicts it got; run the same command again to ask the failed ones again"
        )
    if as_json:
        report = json.loads(audit.model_dump_json(exclude={"answers"})) | {"run_dir": str(where)}
        if stopped is not None:
            raise stopped.reporting(report)
        click.echo(end_object(0, None, "complete", report))
    else:
        click.echo("\n".join(audit.lines()))
        click.echo(f"Card written to {where / 'audit.md'} (every answer in {where / 'audit.json'}).")
    if stopped is not None:
        raise stopped
