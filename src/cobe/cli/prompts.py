"""`cobe prompts show`: print exactly what a respondent or a judge receives for one scenario."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from cobe.cli import options
from cobe.cli.json_end import done
from cobe.core.results import CHECKS

if TYPE_CHECKING:
    from cobe.judge.preview import Preview


@click.group("prompts")
def prompts() -> None:
    """Look at the prompts respondents and judges are sent."""


@prompts.command("show")
@options.DATA
@click.option("--id", "scenario_id", required=True, metavar="ID", help="The scenario, e.g. 115v3.")
@click.option(
    "--template", metavar="NAME", help="Show what the respondent receives under this template (A-C, D-G, H1, H2)."
)
@click.option("--response", metavar="TEXT", help="Show what the judge receives for this reply.")
@click.option(
    "--probe",
    metavar="NAME",
    help="Show what the judge receives for one probe of `cobe judges audit` (omission, injection, ...: "
    "docs/JUDGE_AUDIT.md), built from the scenario.",
)
@click.option(
    "--response-file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Like --response, the reply read from a file.",
)
@options.JUDGE_PROMPTS
@click.option(
    "--check",
    "checks",
    type=click.Choice(CHECKS),
    multiple=True,
    help="Only this judge check (repeatable; default: all three).",
)
@options.JSON
def show(
    data: str,
    scenario_id: str,
    template: str | None,
    response: str | None,
    probe: str | None,
    response_file: Path | None,
    judge_prompts: str,
    checks: tuple[str, ...],
    as_json: bool,
) -> None:
    """Print the messages of one scenario's calls, exactly as they are sent.

    With --template: the respondent's prompt. With --response (or --response-file): the judge's
    prompt for each check; with both, the judge sees what a run would show it (after the
    "Final story:" line for H2). With --probe: the judge's prompt for that audit probe. For example:

        cobe prompts show --id 1v1 --check preserve --response "..."
        cobe prompts show --id 1v1 --template H2
        cobe prompts show --id 1v1 --probe omission --check change
    """
    from cobe.dataset.loaders import load_dataset
    from cobe.judge.preview import find_scenario, preview, probe_preview
    from cobe.judge.prompt_sets import load_judge_prompts
    from cobe.prompts.render import select_templates

    if probe is not None:
        if template is not None or response is not None or response_file is not None:
            raise click.UsageError("--probe builds the answer itself: give it without --template or --response")
        scenarios = load_dataset(data).scenarios
        scenario = find_scenario(scenarios, scenario_id, data)
        _print(probe_preview(scenario, probe, scenarios, load_judge_prompts(judge_prompts), checks or CHECKS), as_json)
        return
    if response is not None and response_file is not None:
        raise click.UsageError("give --response or --response-file, not both")
    if response_file is not None:
        from cobe.core.jsonfile import read_text

        response = read_text(response_file, "a text file holding the response")
    if template is None and response is None:
        raise click.UsageError(
            "give --template NAME (what the respondent receives), --response TEXT (what the judge receives), or both"
        )
    if checks and response is None:
        raise click.UsageError("--check needs --response: the judge's prompt holds the reply")
    scenario = find_scenario(load_dataset(data).scenarios, scenario_id, data)
    chosen = select_templates([template])[0] if template else None
    judge = load_judge_prompts(judge_prompts) if response is not None else None
    result = preview(scenario, template=chosen, response=response, prompts=judge, checks=checks or CHECKS)
    _print(result, as_json)


def _print(result: Preview, as_json: bool) -> None:
    """The calls' messages, each under a header line, and the notes; or all of it as one JSON object."""
    if as_json:
        views = [
            {"receiver": v.receiver, "title": v.title, "messages": [m.model_dump() for m in v.messages]}
            for v in result.views
        ]
        click.echo(done({"calls": views, "notes": result.notes}))
        return
    for view in result.views:
        for message in view.messages:
            click.echo(f"===== {view.receiver} · {view.title} · {message.role} message =====")
            click.echo(message.content)
            click.echo()
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
