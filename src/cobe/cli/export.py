"""`cobe export`: a run in another project's format (inspect log, Hugging Face dataset, Every Eval Ever, DPO pairs)
or in the project site's own (eval-statistics.json, category-examples.json)."""

from __future__ import annotations

from pathlib import Path

import click

from cobe.core.errors import InputError

FORMATS = ("inspect", "hf", "eee", "preference", "cobe-site")
#: formats that take several runs at once
SEVERAL = ("preference", "cobe-site")


@click.command("export")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True))
@click.argument("out", type=click.Path())
@click.option(
    "--to",
    "fmt",
    required=True,
    type=click.Choice(FORMATS),
    help="inspect: an inspect_ai log (OUT.eval or OUT.json), or one per model in the folder OUT; hf: a dataset folder (Parquet details, results "
    "JSON, card); eee: Every Eval Ever records under OUT/data/; preference: chosen/rejected pairs (OUT.jsonl); "
    "cobe-site: the site's eval-statistics.json and category-examples.json under the folder OUT.",
)
@click.option(
    "--model",
    default=None,
    help="With --to inspect: the model to export; without it OUT is a folder and every model gets its own log.",
)
@click.option(
    "--organization",
    default="unknown",
    show_default=True,
    help="With --to eee: who ran the evaluation (source_organization_name).",
)
@click.option(
    "--examples-per-category",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="With --to cobe-site: the examples category-examples.json keeps per domain and per graph type.",
)
def export_cmd(
    runs: tuple[str, ...], out: str, fmt: str, model: str | None, organization: str, examples_per_category: int
) -> None:
    """Export RUN (a run directory) to OUT in another project's format, or in the CoBe site's own.

    --to preference takes several runs: pairs compare responses of every model and run given. --to cobe-site
    takes several too: the site's files hold every model.
    """
    if fmt == "cobe-site":
        from cobe.integrations.site_export import export_site

        site = export_site(runs, out, examples_per_category)
        for note in site.notes:
            click.echo(f"note: {note}", err=True)
        click.echo(
            f"Wrote {', '.join(p.name for p in site.files)} under {site.out}: {site.items} rows of "
            f"{len(site.models)} models ({', '.join(site.models)}), {site.examples} examples"
        )
        return
    if fmt not in SEVERAL and len(runs) != 1:
        raise InputError(f"--to {fmt} exports one run; got {len(runs)} ({', '.join(runs)})")
    if fmt == "inspect":
        from cobe.integrations.inspect_log import export_inspect, export_inspect_all

        if Path(out).suffix:  # a file: .eval or .json (any other suffix is refused in one line)
            path = export_inspect(runs[0], out, model=model)
            click.echo(f"Wrote {path}; open it with `inspect view --log-dir {path.parent}`")
            return
        paths = export_inspect_all(runs[0], out, [model] if model else None)
        click.echo(f"Wrote {len(paths)} inspect logs, one per model, under {out}; open them with "
                   f"`inspect view --log-dir {out}`")  # fmt: skip
    elif fmt == "hf":
        from cobe.integrations.hf import export_hf

        hf = export_hf(runs[0], out)
        click.echo(f"Wrote {hf.rows} responses to {hf.out}: {', '.join(str(f.relative_to(hf.out)) for f in hf.files)}")
    elif fmt == "eee":
        from cobe.integrations.eee import export_eee, validator_command

        eee = export_eee(runs[0], out, organization=organization)
        click.echo(f"Wrote {len(eee.files)} files under {eee.out / 'data'}")
        if eee.validated:
            click.echo("validated with every-eval-ever's validator")
        else:
            click.echo(
                "note: not validated: the every-eval-ever package is not installed "
                "(pip install 'cobe[eee]'; it needs Python 3.12 or later)",
                err=True,
            )
        click.echo(
            f"To check it with every-eval-ever's validator, run it from {eee.out}, the folder holding data/ (it "
            f"reads the paths the records name from the folder it runs in): {validator_command(eee.out)}"
        )
    else:
        from cobe.integrations.preference import export_preference

        pairs = export_preference(runs, out)
        click.echo(f"Wrote {pairs.pairs} preference pairs from {pairs.queries} queries to {pairs.out}")
