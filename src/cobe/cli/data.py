"""`cobe data`: validate, convert, describe, list, show and sample datasets."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cobe.cli import options
from cobe.cli.display import listing, plain_console, print_table
from cobe.cli.json_end import done
from cobe.core.errors import InputError
from cobe.dataset import (
    SHAPES,
    dataset_stats,
    load_dataset,
    sample_scenarios,
    validate,
    write_dataset,
)
from cobe.dataset.hub import is_table_source
from cobe.dataset.loaders import BUILTIN_PREFIX
from cobe.dataset.problems import Problem
from cobe.dataset.sources import data_sources, describe_shape
from cobe.dataset.stats import METHODS, graph_type_of
from cobe.dataset.validate import problem_dict

# every `data` command takes its dataset as SOURCE, and as --data SOURCE like the commands that run models
source_argument = click.argument("source", required=False, metavar="[SOURCE]")
data_option = options.DATA.but(dest="data_source", default=None, show_default=options.DEFAULT_DATA)


def _source(source: str | None, data_source: str | None) -> str:
    """The dataset named by SOURCE or --data (or COBE_DATA), builtin:starter when neither is given."""
    if source and data_source and source != data_source:
        flag = click.get_current_context().get_parameter_source("data_source")
        if flag is click.core.ParameterSource.COMMANDLINE:
            raise InputError(f"two datasets given, {source} and --data {data_source}; give one")
    return source or data_source or options.DEFAULT_DATA


def _console() -> Console:
    return plain_console()


@click.group()
def data() -> None:
    """Inspect, validate, convert and sample datasets."""


@data.command("validate")
@click.argument("paths", nargs=-1, required=True)
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@options.JSON
def validate_cmd(paths: tuple[str, ...], strict: bool, as_json: bool) -> None:
    """Check dataset files: one line per problem, then a summary; exit 1 on any error (exit 2 for a file that
    is not there, as every command)."""
    for path in paths:  # bad input, refused before any file is read; what a file holds is reported below
        if not path.startswith(BUILTIN_PREFIX) and not is_table_source(path) and not os.path.lexists(path):
            raise InputError(f"{path}: file not found")
    # each problem is printed as it is found and then forgotten, so a file of any length validates
    # in flat memory; --json streams its list the same way and gives the counts after it
    if not as_json:
        report = validate(paths, strict=strict, on_problem=lambda p: click.echo(f"{p.severity}: {p}"))
        for path, shape in report.shapes.items():
            if shape != "unknown":  # an unreadable file says why among the problems
                click.echo(f"{path}: read as {shape} ({describe_shape(shape)})")
        click.echo(report.summary())
        sys.exit(1 if report.errors else 0)
    listed = 0

    def emit(problem: Problem) -> None:
        nonlocal listed
        item = json.dumps(problem_dict(problem), ensure_ascii=False, indent=2).replace("\n", "\n    ")
        click.echo(("" if listed else "\n") + ("    " if not listed else ",\n    ") + item, nl=False)
        listed += 1

    click.echo('{\n  "problems": [', nl=False)
    report = validate(paths, strict=strict, on_problem=emit)
    code = 1 if report.errors else 0
    ending: dict[str, object] = {**report.counts(), "shapes": report.shapes}
    ending |= {
        "state": "error" if code else "complete",
        "exit_code": code,
        "message": report.summary() if code else None,
    }
    counts = "".join(f',\n  "{name}": {json.dumps(value, ensure_ascii=False)}' for name, value in ending.items())
    click.echo(("\n  ]" if listed else "]") + counts + "\n}")
    sys.exit(code)


@data.command("sources")
@options.JSON
def sources_cmd(as_json: bool) -> None:
    """What CoBe data exists, the shapes it comes in, and how to point cobe at each."""
    sources = data_sources()
    if as_json:
        click.echo(done({"sources": [s.to_dict() for s in sources]}))
        return
    for source in sources:
        click.echo(f"{source.name}\n  what:   {source.what}\n  shapes: {source.shapes}\n  use:    {source.use}\n")


@data.command("convert")
@click.argument("source")
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("--to", "shape", type=click.Choice(SHAPES), default="native", show_default=True, help="Output shape.")
def convert_cmd(source: str, out: str, shape: str) -> None:
    """Convert a dataset file (any shape) to another shape."""
    dataset = load_dataset(source)
    write_dataset(dataset.scenarios, out, to=shape)
    click.echo(f"wrote {len(dataset)} scenarios to {out} ({shape})", err=True)


@data.command("stats")
@source_argument
@data_option
@options.JSON
@click.option(
    "--method", type=click.Choice(METHODS), default="auto", show_default=True, help="How clauses are counted."
)
def stats_cmd(source: str | None, data_source: str | None, as_json: bool, method: str) -> None:
    """Size, story length, domain and graph-type shares (the paper's Tables 2–4) of SOURCE."""
    source = _source(source, data_source)
    stats = dataset_stats(load_dataset(source).scenarios, method=method)
    if as_json:
        click.echo(done(stats))
        return
    console = _console()
    size = Table(title=f"Dataset: {source}")
    size.add_column("statistic")
    size.add_column("value", justify="right")
    for label, key in [
        ("scenarios", "scenarios"),
        ("core examples", "core_examples"),
        ("domains", "domains"),
        ("avg. words per story", "avg_words"),
        ("avg. sentences per story", "avg_sentences"),
        ("avg. clauses per story", "avg_clauses"),
        ("clauses per sentence", "clauses_per_sentence"),
    ]:
        size.add_row(label, str(stats[key]))
    print_table(size, console)
    for title, key, column in [
        ("Domains (%)", "domain_shares", "domain"),
        ("Graph types (%)", "graph_type_shares", "graph type"),
    ]:
        table = Table(title=title)
        table.add_column(column)
        table.add_column("%", justify="right")
        for name, share in stats[key].items():
            table.add_row(name, f"{share:.1f}")
        if key == "domain_shares" and stats["unlabelled_domain"]:
            # no domain in the file is no domain: its own line under the domains, never one of them
            table.add_section()
            table.add_row(
                f"unlabelled: {stats['unlabelled_domain']} scenarios", f"{stats['unlabelled_domain_share']:.1f}"
            )
        print_table(table, console)
    console.print(f"clauses counted by: {stats['clause_method']}")


@data.command("list")
@source_argument
@data_option
@click.option("--domain", help="Only scenarios of this domain (case-insensitive).")
@click.option("--graph-type", help="Only scenarios of this graph type.")
def list_cmd(source: str | None, data_source: str | None, domain: str | None, graph_type: str | None) -> None:
    """List the scenarios of SOURCE as a table."""
    data_source = _source(source, data_source)
    scenarios = load_dataset(data_source).scenarios
    if domain:
        scenarios = [s for s in scenarios if s.domain.lower() == domain.lower()]
    if graph_type:
        scenarios = [s for s in scenarios if graph_type_of(s) == graph_type.lower()]
    rows = [(s.id, s.domain, graph_type_of(s), s.story) for s in scenarios]
    listing(("id", "domain", "graph type", "story"), rows, title=f"{len(scenarios)} scenarios in {data_source}")


@data.command("show")
@click.argument("scenario_id")
@source_argument
@data_option
def show_cmd(scenario_id: str, source: str | None, data_source: str | None) -> None:
    """Show one scenario of SOURCE in full."""
    s = load_dataset(_source(source, data_source)).get(scenario_id)
    console = _console()
    meta = f"domain: {s.domain}   graph type: {graph_type_of(s)}"
    if s.failure_modes:
        meta += "   failure modes: " + ", ".join(m.value for m in s.failure_modes)
    if s.tags:
        meta += "   tags: " + ", ".join(s.tags)
    # a panel reads markup in its title whatever the console says: the dataset's words go in as Text
    console.print(Panel(s.story, title=Text(f"{s.id}  story"), subtitle=Text(meta)))
    for name, query in zip(s.phrasings, s.queries):
        console.print(Text.assemble((name, "bold"), " ", query))
    if s.illustrative_answer:
        console.print(Panel(s.illustrative_answer, title="illustrative answer (not scored)"))
    console.print(Panel("\n".join(f"• {p}" for p in s.preserve), title="must stay true (preserve)"))
    console.print(Panel("\n".join(f"• {c}" for c in s.change), title="must no longer hold (change)"))


@data.command("sample")
@click.option("--n", "n", type=int, default=500, show_default=True, help="How many scenarios.")
@options.SEED.but(env=False)
@click.option("--by-core", is_flag=True, help="Keep every variation of a drawn core example together.")
@source_argument
@data_option
@click.option("--out", type=click.Path(dir_okay=False), help="Write the sample here (default: JSONL to stdout).")
@click.option("--to", "shape", type=click.Choice(SHAPES), default="native", show_default=True, help="Shape of --out.")
def sample_cmd(
    n: int, seed: int, by_core: bool, source: str | None, data_source: str | None, out: str | None, shape: str
) -> None:
    """Draw a reproducible sample of SOURCE (sorted by id first, so file order does not matter)."""
    dataset = load_dataset(_source(source, data_source))
    chosen = sample_scenarios(dataset.scenarios, n, seed, by_core=by_core)
    if out:
        write_dataset(chosen, Path(out), to=shape)
    else:
        if shape != "native":
            raise InputError("--to needs --out; the sample is printed as native JSONL otherwise")
        for s in chosen:
            click.echo(json.dumps(s.model_dump(mode="json"), ensure_ascii=False))
    cores = len({s.core_id for s in chosen})
    note = f"sampled {len(chosen)} scenarios ({cores} core examples) of {len(dataset)} with seed {seed}"
    if len(chosen) != n:
        note += f"; asked for {n}"
    click.echo(note + (f"; wrote {out}" if out else ""), err=True)
