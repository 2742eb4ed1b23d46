"""The one table of importers: every `cobe import --from NAME`, the files it reads, its help, the options it
refuses and what it prints, as the provider registry is the one table of providers.

`cobe import` offers the table's names and help, a file that is no results file is told the table's kinds
(`cobe.integrations.file_kinds`), and `run_import` refuses what an importer does not take before it reads
anything. Each importer's module loads only when it runs, so `cobe import --help` reads no file format.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cobe.core.errors import InputError

if TYPE_CHECKING:
    from cobe.integrations.imported_run import ImportedRun

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
    run: Callable[[ImportRequest], ImportDone]
    mapped: bool = False  # it takes --map and --col
    refuses: tuple[tuple[str, str], ...] = ()  # (option, its line): an option it has no use for
    responses: bool = False  # its run holds responses for `cobe judge` to judge


def named(models: list[str]) -> str:
    """The models an import holds, in one line of readable length: a file of 100,000 models named all of them."""
    shown = ", ".join(models[:NAMED])
    return shown if len(models) <= NAMED else f"{shown} and {len(models) - NAMED:,} more models"


def _verdicts(request: ImportRequest) -> ImportDone:
    from cobe.integrations.verdict_files import import_results

    result = import_results(
        request.file,
        request.out,
        mapping=request.mapping,
        columns=list(request.columns),
        model=request.model,
        data=request.data,
    )
    return ImportDone(result.out, [f"Imported {result.rows} rows ({named(result.models)}) into {result.out}"])


def _cobe_site(request: ImportRequest) -> ImportDone:
    from cobe.integrations.site_totals import import_published, json_document
    from cobe.report.paper import is_transcription
    from cobe.report.published import is_published_totals

    file, out = request.file, request.out
    document = json_document(file)
    if is_transcription(document):
        raise InputError(
            f"{file}: holds the paper's published figures, not the site's results; set a run beside them "
            f"with `cobe report RUN --against {file}` (`--against paper`: the figures cobe ships)"
        )
    if is_published_totals(document):  # eval-statistics.json: totals, not examples
        totals = import_published(file, out)
        return ImportDone(
            out,
            [
                f"Imported the site's published totals ({totals['model'].nunique()} models; overall, "
                f"{(totals['scope'] == 'by_domain').sum()} domain and {(totals['scope'] == 'by_graph').sum()} "
                f"graph-type figures) into {out}; set a run beside them with `cobe report RUN --published {out}`"
            ],
        )
    from cobe.integrations.site_results import import_site_results

    result = import_site_results(file, out, model=request.model)
    sample = result.summary.get("sample")
    notes = [sample["note"]] if isinstance(sample, dict) and sample.get("note") else []
    lines = _site_lines(result.summary, sampled=isinstance(sample, dict))
    lines.append(f"Imported {result.rows} rows ({named(result.models)}) into {result.out}")
    return ImportDone(result.out, lines, notes)


def _site_lines(summary: dict[str, Any], *, sampled: bool) -> list[str]:
    """Per model: the site's verdict counts and its accuracy, correct / (correct + wrong), said to be a sample's
    where the file is the site's showcase."""
    lines = []
    for model, counts in summary["site_verdicts"].items():
        pooled = summary["accuracy"].get(model, {}).get("pooled_accuracy")
        figure = "–" if pooled is None else f"{pooled:.2f}"
        lines.append(
            f"{model}: {counts['correct']} correct, {counts['wrong']} wrong, {counts['unknown']} unknown (unscored); "
            f"accuracy correct / (correct + wrong) = {figure}%" + (" on the per-category sample" if sampled else "")
        )
    return lines


def _inspect(request: ImportRequest) -> ImportDone:
    from cobe.integrations.inspect_log import import_inspect

    return _responses(import_inspect(request.file, request.out, data=request.data))


def _lm_eval(request: ImportRequest) -> ImportDone:
    from cobe.integrations.lm_eval import import_lm_eval

    return _responses(import_lm_eval(request.file, request.out, model=request.model, data=request.data))


def _responses(imported: ImportedRun) -> ImportDone:
    """The line of a run of responses to judge, its notices as notes."""
    shown = f", shown as the verdict set '{imported.verdict_set}'" if imported.verdict_set else ""
    line = (
        f"Imported {imported.responses} responses ({named(imported.models)}; {imported.scenarios} scenarios, "
        f"templates {','.join(imported.templates)}) into {imported.out}{shown}; judge them with "
        f"`cobe judge {imported.out} --judge SPEC`"
    )
    return ImportDone(imported.out, [line], list(imported.notices))


IMPORTERS: dict[str, Importer] = {
    importer.name: importer
    for importer in (
        Importer(
            "verdicts",
            "judged results one per item: a CSV, a JSON array of objects or JSON lines",
            "judged results (CSV, JSON or JSONL)",
            _verdicts,
            mapped=True,
        ),
        Importer(
            "cobe-site",
            "the CoBe site's category-examples.json or flat rows with model_outputs",
            "the CoBe project site's judged result files (category-examples.json or flat rows with model_outputs)",
            _cobe_site,
            refuses=(("data", "--data: the site's files carry their scenarios; drop --data"),),
        ),
        Importer(
            "inspect",
            "an inspect_ai log of the cobe task",
            "an inspect_ai log of the cobe task",
            _inspect,
            refuses=(("model", "--model: an inspect log names its model; drop --model"),),
            responses=True,
        ),
        Importer(
            "lm-eval",
            "an lm-eval --log_samples file",
            "an lm-evaluation-harness --log_samples file",
            _lm_eval,
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
    return importer.run(request)
