"""The one table of importers: every `cobe import --from NAME`, the files it reads, its help, the options it
refuses and what it prints, as the provider registry is the one table of providers.

`cobe import` offers the table's names and help, a file that is no results file is told the table's kinds
(`cobe.integrations.file_kinds`), and `run_import` refuses what an importer does not take before it reads
anything. Each importer is named as `module:function` and imported only when it runs, as the provider registry
names its modules: `cobe import --help` reads no file format, and the importers, which take this module's
`ImportRequest` and give its `ImportDone`, make no import circle with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

from cobe.core.errors import InputError

#: the models a line names before it counts the rest
NAMED = 10


@dataclass(frozen=True)
class ImportRequest:
    """What `cobe import` was given: the file, the run directory to make, and its options."""

    file: Path
    out: Path
    mapping: str | None = None
    columns: tuple[str, ...] = ()
    model: str | None = None
    data: str | None = None


@dataclass
class ImportDone:
    """What an import made, in the words `cobe import` prints: its lines, and notes said before them."""

    out: Path
    lines: list[str]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Importer:
    """One `--from` of `cobe import`."""

    name: str
    kinds: str  # the files it reads, as the line for a file that is none lists them
    help: str  # its part of --from's help
    runs: str  # `module:function` taking an ImportRequest, imported only when it runs
    mapped: bool = False  # it takes --map and --col
    refuses: tuple[tuple[str, str], ...] = ()  # (option, its line): an option it has no use for
    responses: bool = False  # its run holds responses for `cobe judge` to judge


def named(models: list[str]) -> str:
    """The models an import holds, in one line of readable length: a file of 100,000 models named all of them."""
    shown = ", ".join(models[:NAMED])
    return shown if len(models) <= NAMED else f"{shown} and {len(models) - NAMED:,} more models"


IMPORTERS: dict[str, Importer] = {
    importer.name: importer
    for importer in (
        Importer(
            "verdicts",
            "judged results one per item: a CSV, a JSON array of objects or JSON lines",
            "judged results (CSV, JSON or JSONL)",
            "cobe.integrations.verdict_files:import_request",
            mapped=True,
        ),
        Importer(
            "cobe-site",
            "the CoBe site's category-examples.json or flat rows with model_outputs",
            "the CoBe project site's judged result files (category-examples.json or flat rows with model_outputs)",
            "cobe.integrations.site_results:import_request",
            refuses=(("data", "--data: the site's files carry their scenarios; drop --data"),),
        ),
        Importer(
            "inspect",
            "an inspect_ai log of the cobe task",
            "an inspect_ai log of the cobe task",
            "cobe.integrations.inspect_log:import_request",
            refuses=(("model", "--model: an inspect log names its model; drop --model"),),
            responses=True,
        ),
        Importer(
            "lm-eval",
            "an lm-eval --log_samples file",
            "an lm-evaluation-harness --log_samples file",
            "cobe.integrations.lm_eval:import_request",
            responses=True,
        ),
    )
}
#: what `cobe import` reads without --from
DEFAULT = "verdicts"


def from_help() -> str:
    """--from's help: each importer's files, and which bring responses to judge."""
    judged = " and ".join(i.name for i in IMPORTERS.values() if i.responses)
    return "; ".join(f"{i.name}: {i.help}" for i in IMPORTERS.values()) + f". {judged} bring responses to judge."


def importable() -> str:
    """Which files `cobe import` takes, for the end of a line refusing one."""
    kinds = (f"{i.kinds} (--from {i.name}{', the default' if i.name == DEFAULT else ''})" for i in IMPORTERS.values())
    return "`cobe import` takes " + "; ".join(kinds)


def run_import(name: str, request: ImportRequest) -> ImportDone:
    """Import `request.file` as the run directory `request.out` with the importer `name`, all or nothing; an option
    the importer has no use for is refused in one line before anything is read."""
    importer = IMPORTERS.get(name)
    if importer is None:
        raise InputError(f"--from {name!r}: no such importer; expected one of {', '.join(IMPORTERS)}")
    if not importer.mapped and (request.mapping or request.columns):
        mapped = ", ".join(i.name for i in IMPORTERS.values() if i.mapped)
        raise InputError(f"--map and --col apply to --from {mapped} only, not --from {name}")
    for option, line in importer.refuses:
        if getattr(request, option):
            raise InputError(line)
    module, _, function = importer.runs.partition(":")
    run: Callable[[ImportRequest], ImportDone] = getattr(import_module(module), function)
    return run(request)
