"""`cobe import FILE --from cobe-site`: the project site's judged results, read as the site publishes them.

Two layouts, each a JSON array, JSON lines, or the nested `category-examples.json`:

- nested: `{"by_domain": {domain: [example, …]}, "by_graph": {graph type: [example, …]}}`; one example
  may be listed under both, and is imported once, with its domain from the one and graph type from the
  other;
- flat: one row per query.

An example is a site row (`example_id`, `coreset_id`, `variation_id`, `query_idx`, `original`, `query`,
`gold_answer`, `should_not_change`, `should_change`) carrying the models' answers, either all of them
(`model_outputs` → model → `{response, verdict}`) or one (`model`, `response`, `verdict`). A query's
phrasing is what it says, else its `query_idx` (2, 5, 7 → A, B, C), exactly as when the file is loaded
as a dataset. Verdicts: `correct` → passed, `wrong` → failed, `unknown` → unscored, kept and counted.
Per model, the summary's `pooled_accuracy` is then the site's correct / (correct + wrong).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError
from cobe.core.files import check_new_directory
from cobe.dataset.loaders import read_raw_file
from cobe.dataset.rawread import RawFile, RawRecord, read_raw
from cobe.dataset.schema import Scenario
from cobe.integrations.imported_run import ExternalResponse, write_response_run
from cobe.integrations.importers import ImportDone, ImportRequest, named
from cobe.integrations.site_totals import import_published, json_document
from cobe.integrations.verdict_files import ImportResult, model_figures, nothing_written
from cobe.judge.published import published_ref
from cobe.report.paper import is_transcription
from cobe.report.published import is_published_totals
from cobe.run.export import write_summary

#: the site's verdict words → (status, passed)
SITE_VERDICTS: dict[str, tuple[str, bool | None]] = {
    "correct": ("passed", True),
    "wrong": ("failed", False),
    "unknown": ("unscored", None),
}
UNKNOWN_REASON = "the site's verdict is unknown"
#: the name the site's verdicts go by in a run: their verdict set is `cobe-site (published)`
SOURCE = "cobe-site"
#: where that set's verdicts came from, as every export of the run names it
VERDICTS_BY = "the CoBe authors (the project site)"
VERDICTS_FROM = "published verdicts of the CoBe site (the authors' judge), imported with `cobe import --from cobe-site`"
ANSWER_KEYS = ("model_outputs", "model", "response", "verdict")
#: what of a result row the site's figures count, and the rule each model's accuracy is taken by needs
COUNTED = ("model", "template", "status", "scenario_id", "tier")


@dataclass
class Answer:
    """One model's answer to one example, where the file has it."""

    line: int | None
    example: dict[str, Any]  # the site row, without the answers
    model: str
    response: str | None
    verdict: Any


def _answers(record: RawRecord, model: str | None) -> list[Answer]:
    """The answers an example carries; ValueError when it carries none in a shape the site uses."""
    example = {key: value for key, value in record.data.items() if key not in ANSWER_KEYS}
    if record.group is not None and "domain" not in example:
        example["domain"] = record.group
    if record.graph is not None and "graph_type" not in example:
        example["graph_type"] = record.graph  # `Chain-like` and the like are read when the example is loaded
    outputs = record.data.get("model_outputs")
    if outputs is None and "verdict" in record.data:
        name = record.data.get("model") or model
        if not name:
            raise ValueError("model: missing; give a model field or --model")
        outputs = {name: {"response": record.data.get("response"), "verdict": record.data["verdict"]}}
    if not isinstance(outputs, dict) or not outputs:
        raise ValueError("model_outputs: expected an object of model → {response, verdict}")
    answers = []
    for name, output in outputs.items():
        if not isinstance(output, dict):
            raise ValueError(f"model_outputs.{name}: expected {{response, verdict}}, got {type(output).__name__}")
        response = output.get("response")
        answers.append(
            Answer(record.line, example, str(name), None if response is None else str(response), output.get("verdict"))
        )
    return answers


def _scenarios(raw: RawFile, answers: list[Answer]) -> dict[str, Scenario]:
    """The file's examples loaded as a dataset (each once), by id; InputError listing every error."""
    unique: dict[str, RawRecord] = {}
    for answer in answers:
        key = json.dumps(answer.example, sort_keys=True, default=str)
        unique.setdefault(key, RawRecord(answer.example, answer.line))
    loaded = read_raw_file(RawFile(raw.path, raw.container, records=list(unique.values())))
    nothing_written([problem.brief() for problem in loaded.errors], "example")
    return {scenario.id: scenario for scenario in loaded.scenarios}


def _scenario_of(example: dict[str, Any], scenarios: dict[str, Scenario]) -> tuple[Scenario, str]:
    """The scenario an example belongs to and the phrasing of its query."""
    core, variation = example.get("coreset_id"), example.get("variation_id")
    sid = f"{core}v{variation}" if core is not None and variation is not None else str(example.get("example_id"))
    scenario = scenarios[sid]
    position = scenario.queries.index(example["query"])
    return scenario, scenario.phrasings[position]


def _read_answers(raw: RawFile, model: str | None) -> list[Answer]:
    answers: list[Answer] = []
    problems = [problem.brief() for problem in raw.problems if problem.is_error]
    for record in raw.records:
        try:
            answers.extend(_answers(record, model))
        except ValueError as exc:
            problems.append(f"{raw.path}:{record.line}: {exc}")
    nothing_written(problems)
    if not answers:
        raise InputError(f"{raw.path}: no examples; expected the site's rows with model_outputs")
    return answers


def import_site_results(file: str | Path, out: str | Path, model: str | None = None) -> ImportResult:
    """Convert one of the site's judged result files into a run directory, all or nothing: its store holds the
    responses and the site's verdicts as the verdict set `cobe-site (published)`, which its exports show."""
    source, out_dir = Path(file), Path(out)
    check_new_directory(out_dir)
    raw = read_raw(source)
    answers = _read_answers(raw, model)
    scenarios = _scenarios(raw, answers)
    responses: list[ExternalResponse] = []
    problems: list[str] = []
    seen: dict[tuple[str, str, str], tuple[int | None, Any]] = {}
    for answer in answers:
        try:
            response = _response(answer, scenarios)
        except ValueError as exc:
            problems.append(f"{source}:{answer.line}: {answer.model}: {exc}")
            continue
        key = (response.model, response.scenario.id, response.template)
        found = (response.text, response.verdict, response.verdict_reason)
        if key in seen:
            if seen[key][1] != found:  # listed twice alike is one answer; listed twice unlike is a conflict
                problems.append(
                    f"{source}:{answer.line}: {key[0]}: {key[1]} template {key[2]} differs from line {seen[key][0]}"
                )
            continue
        seen[key] = (answer.line, found)
        responses.append(response)
    nothing_written(problems)
    verdicts = Counter((answer.model, str(answer.verdict).strip().lower()) for answer in answers)
    extra = {
        "imported_from": str(source),
        "source": SOURCE,
        "layout": raw.container,
        "site_verdicts": _per_model(verdicts),
    }
    sample = showcase_sample(raw.meta, source)
    if sample is not None:  # a showcase: every table made from it says it is a per-category sample
        extra["sample"] = sample
    run = write_response_run(
        out_dir,
        responses,
        data=str(source),
        source=str(source),
        published=published_ref(SOURCE),
        verdicts_from=VERDICTS_FROM,
        verdicts_by=VERDICTS_BY,
        extra=extra,
    )
    summary = json.loads((run.out / "summary.json").read_text(encoding="utf-8"))
    rows = _counted_rows(run.out / "results.jsonl")
    # the site's own figure beside the paper's arithmetic, and the rows' statuses, as the import said them before
    summary |= {"rows": len(rows), "status": dict(Counter(r["status"] for r in rows)), "accuracy": model_figures(rows)}
    write_summary(run.out / "summary.json", summary)
    return ImportResult(out=run.out, rows=len(rows), models=sorted(run.models), summary=summary)


def _counted_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of results.jsonl as far as the counts and the rule need them (COUNTED), read a line at a time:
    the whole rows, stories and answers included, were a copy of the import held at once."""
    with path.open(encoding="utf-8") as handle:
        return [{key: row[key] for key in COUNTED} for row in map(json.loads, handle)]


def _response(answer: Answer, scenarios: dict[str, Scenario]) -> ExternalResponse:
    scenario, template = _scenario_of(answer.example, scenarios)
    word = str(answer.verdict).strip().lower() if answer.verdict is not None else ""
    if word not in SITE_VERDICTS:
        raise ValueError(f"verdict: {answer.verdict!r} is not a site verdict; expected correct, wrong or unknown")
    passed = SITE_VERDICTS[word][1]
    return ExternalResponse(
        model=answer.model,
        scenario=scenario,
        template=template,
        text=answer.response,
        verdict=None if passed is None else "T" if passed else "F",
        verdict_reason=UNKNOWN_REASON if passed is None else None,
    )


def showcase_sample(meta: dict[str, Any], source: Path) -> dict[str, Any] | None:
    """summary.json's `sample` of a file that says it is a showcase (`examples_per_category: N`), else None."""
    per_category = meta.get("examples_per_category")
    if isinstance(per_category, bool) or not isinstance(per_category, int):
        return None
    note = (
        f"{source.name} is the site's per-category sample ({per_category} examples per domain and per graph type), "
        "not the benchmark: its figures are not the site's published totals (eval-statistics.json)"
    )
    return {"examples_per_category": per_category, "note": note}


def _per_model(counts: Counter[tuple[str, str]]) -> dict[str, dict[str, int]]:
    models = sorted({model for model, _ in counts})
    return {model: {word: counts[(model, word)] for word in SITE_VERDICTS} for model in models}


def import_request(request: ImportRequest) -> ImportDone:
    """`cobe import --from cobe-site`: the site's judged results, or its published totals, and the lines saying
    what they hold; the paper's figures are refused, pointing at `cobe report --against`."""
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
