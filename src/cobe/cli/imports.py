"""`cobe import`: results made elsewhere as a run directory, through the one table of importers
(cobe.integrations.importers: each --from, its files, its help and the options it refuses)."""

from __future__ import annotations

from pathlib import Path

import click

from cobe.cli import options
from cobe.integrations.importers import DEFAULT, IMPORTERS, ImportRequest, from_help, run_import


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="The run directory to create.")
@click.option(
    "--from",
    "source",
    type=click.Choice(list(IMPORTERS)),
    default=DEFAULT,
    show_default=True,
    help=from_help(),
)
@click.option(
    "--map",
    "mapping",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="With --from verdicts: a YAML mapping file: columns: {field: column}, model:, query_index_base:.",
)
@click.option(
    "--col",
    "cols",
    multiple=True,
    metavar="FIELD=COLUMN",
    help="With --from verdicts: map one field to a column (repeatable).",
)
@click.option("--model", default=None, help="The model name, when the file does not say it.")
@options.DATA.but(env=False, default=None, show_default=False)
def import_cmd(
    file: str,
    out: str,
    source: str,
    mapping: str | None,
    cols: tuple[str, ...],
    model: str | None,
    data: str | None,
) -> None:
    """Import results produced elsewhere as a run directory.

    --from verdicts (the default) imports judged results; --from cobe-site the project site's judged
    result files as published (unknown verdicts unscored, counted); --from inspect and --from lm-eval
    import responses, with the log's scores (or the samples' 0/1 metric) as the verdict set
    'inspect (imported)' / 'lm-eval (imported)', which `cobe judge OUT --judge SPEC` judges anew beside.
    --data names the dataset the imported items' scenarios are taken from.
    """
    done = run_import(source, ImportRequest(Path(file), Path(out), mapping, cols, model, data))
    for note in done.notes:
        click.echo(f"note: {note}", err=True)
    for line in done.lines:
        click.echo(line)
