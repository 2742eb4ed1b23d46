"""lm-evaluation-harness `--log_samples` output (`samples_<task>_<time>.jsonl`) as a cobe run to judge.

Each line is one document of a generation task: `doc_id`, `doc` (the dataset row), `arguments`
(the prompt and generation settings), `resps` (the raw generations) and `filtered_resps`. A
CoBe-style task has one document per scenario and query, so its `doc` names the scenario
(`example_id`, `coreset_id` + `variation_id`, `id` …) and the query (`query_idx`, or `template`).
The judge sees the raw generation, as it would in `cobe eval`. The model's name comes from
`--model`, else from the `results_*.json` lm-eval writes beside the samples.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError
from cobe.core.files import check_new_directory
from cobe.core.jsonfile import FileProblem, iter_jsonl, kind_of, read_json
from cobe.dataset import Scenario, load_dataset
from cobe.dataset.loaders import read_rows
from cobe.dataset.schema import ID_PATTERN
from cobe.integrations.imported_run import ExternalResponse, ImportedRun, responses_done, write_response_run
from cobe.integrations.importers import ImportDone, ImportRequest
from cobe.judge.published import imported_ref

#: the official phrasings in query order: query_idx 0, 1, 2
QUERY_TEMPLATES = ("A", "B", "C")
#: the fields of a document that name which of its scenario's queries it asks
_QUERY_FIELDS = frozenset({"template", "query_idx", "query_index"})
#: the name the samples' own metric goes by as verdicts: their verdict set is `lm-eval (imported)`
SOURCE = "lm-eval"
_SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>[^_]+)\.jsonl$")


SAMPLES_FILE = "an lm-evaluation-harness --log_samples file (JSON lines)"


def read_samples(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line, record) of every sample in the file; anything but a --log_samples file is one line of error."""
    samples = []
    for number, record in iter_jsonl(path, SAMPLES_FILE):
        if not isinstance(record, dict) or "doc_id" not in record or "resps" not in record:
            raise InputError(
                f"{path}:{number}: not an lm-evaluation-harness --log_samples record (expected doc_id and resps)"
            )
        doc_id = record["doc_id"]
        if isinstance(doc_id, bool) or not isinstance(doc_id, int | str):
            raise InputError(f"{path}:{number}: doc_id: expected a number or a string, got {kind_of(doc_id)}")
        samples.append((number, record))
    if not samples:
        raise InputError(f"{path}: no samples")
    return samples


def scenario_id(doc: dict[str, Any]) -> str | None:
    """The scenario a document belongs to, from whichever official field names it carries."""
    for core, variation in (("coreset_id", "variation_id"), ("Core Set ID", "Variation ID"), ("core_id", "variation")):
        if doc.get(core) is not None and doc.get(variation) is not None:
            return f"{doc[core]}v{doc[variation]}"
    for name in ("scenario_id", "id", "example_id"):
        value = doc.get(name)
        if isinstance(value, str) and ID_PATTERN.match(value):
            return value
    return None


def template_of(doc: dict[str, Any]) -> str | None:
    """The template a document was asked under: its `template` field, else A-C by its query index."""
    if isinstance(doc.get("template"), str):
        return str(doc["template"])
    for name in ("query_idx", "query_index"):
        index = doc.get(name)
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(QUERY_TEMPLATES):
            return QUERY_TEMPLATES[index]
    return None


def model_name(path: Path) -> str | None:
    """The model lm-eval recorded in the results file written with these samples, if one is beside them.

    A results file that cannot be read, or holds no name, is passed over for the next; when none names
    the model, InputError says why the first one could not (the caller then asks for --model).
    """
    match = _SAMPLES_NAME.match(path.name)
    candidates = [path.parent / f"results_{match['stamp']}.json"] if match else []
    candidates += sorted(path.parent.glob("results_*.json"))
    unusable: list[str] = []
    for results in dict.fromkeys(candidates):
        if not results.exists():
            continue
        try:
            name = _recorded_model(read_json(results, "an lm-evaluation-harness results file (JSON)"))
        except FileProblem as problem:
            unusable.append(str(problem))
            continue
        if name:
            return name
        unusable.append(f"{results}: names no model (expected model_name, or config.model_args with pretrained=)")
    if unusable:
        raise InputError(f"{path}: no model name ({unusable[0]}); give --model")
    return None


def _recorded_model(data: Any) -> str | None:
    """The model named in a results file's content (model_name, else config.model_args' pretrained= or model=)."""
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("model_name"), str) and data["model_name"]:
        return str(data["model_name"])
    config = data.get("config")
    args = config.get("model_args") if isinstance(config, dict) else None
    if isinstance(args, str):  # "pretrained=org/name,dtype=float16"
        args = dict(part.partition("=")[::2] for part in args.split(","))
    if not isinstance(args, dict):
        return None
    for key, value in args.items():
        if str(key).strip() in ("pretrained", "model") and isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _generation(record: dict[str, Any]) -> str | None:
    """The raw generation: resps[0][0] (lm-eval keeps one list of answers per request)."""
    resps = record.get("resps")
    if isinstance(resps, list) and resps:
        first = resps[0][0] if isinstance(resps[0], list) and resps[0] else resps[0]
        if isinstance(first, str):
            return first
    return None


def _request(record: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """(prompt, generation settings) from `arguments`, in either layout lm-eval has written."""
    args = record.get("arguments")
    if isinstance(args, dict):
        first = args.get("gen_args_0")
        prompt, settings = (first.get("arg_0"), first.get("arg_1")) if isinstance(first, dict) else (None, None)
    elif isinstance(args, list) and args and isinstance(args[0], list):
        prompt, settings = args[0][0], args[0][1] if len(args[0]) > 1 else None
    else:
        prompt, settings = None, None
    return (prompt if isinstance(prompt, str) else None), (settings if isinstance(settings, dict) else {})


def import_request(request: ImportRequest) -> ImportDone:
    """`cobe import --from lm-eval`: the samples as a run to judge, and the lines saying what it holds."""
    return responses_done(import_lm_eval(request.file, request.out, model=request.model, data=request.data))


def import_lm_eval(
    samples_path: str | Path, out: str | Path, *, model: str | None = None, data: str | None = None
) -> ImportedRun:
    """Make an lm-eval samples file a cobe run directory whose responses `cobe judge` can judge."""
    path = Path(samples_path)
    check_new_directory(Path(out))
    samples = read_samples(path)
    name = model or model_name(path)
    if not name:
        raise InputError(f"{path}: no model name (no results_*.json beside it); give --model")
    docs = {line: record for line, record in _documents(path, samples)}
    asked = [_asked(path, line, record) for line, record in docs.items()]
    scenarios = _scenarios(path, [record["doc"] for record in docs.values()], data)
    responses: list[ExternalResponse] = []
    settings: dict[str, Any] = {}
    metric = _verdict_metric(list(docs.values()))
    for (line, record), (sid, template) in zip(docs.items(), asked):
        if sid not in scenarios:
            raise InputError(f"{path}:{line}: scenario {sid} is not in {data or 'the documents of this file'}")
        text = _generation(record)
        if text is None:
            raise InputError(f"{path}:{line}: resps holds no generated text; expected a generate_until task")
        prompt, settings = _request(record)
        response = ExternalResponse(name, scenarios[sid], template, text, prompt=prompt)
        if metric is not None:
            response.verdict = "T" if _binary(record.get(metric)) else "F"
        responses.append(response)
    ref = imported_ref(SOURCE) if metric is not None else None
    filters = sorted({str(record.get("filter")) for record in docs.values() if record.get("filter")})
    imported = write_response_run(
        out,
        responses,
        data=data or str(path),
        source=str(path),
        settings={"temperature": settings.get("temperature"), "max_tokens": settings.get("max_gen_toks")},
        published=ref,
        verdicts_from=(
            f"lm-eval's per-sample metric {metric} (filter {', '.join(filters) or 'none'}) of {path.name}, "
            "imported with `cobe import --from lm-eval`"
        )
        if metric is not None
        else None,
        extra={"source": SOURCE, "imported_from": str(path), "metric": metric},
    )
    if ref is not None:
        imported.notices.append(
            f"lm-eval's per-sample {metric} is the verdict set '{ref.spec}' (1 passed, 0 failed); it is the task's "
            f"own metric, not CoBe's judge: `cobe judge {imported.out} --judge SPEC` judges the responses beside it"
        )
    return imported


def _documents(path: Path, samples: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """(line, record) of each document once. lm-eval writes a document once per filter, the same generation on
    each line; a doc_id that comes back holding another document (two samples files joined) is that other
    document, kept; one document come back with another generation is one line of error."""
    kept: dict[tuple[Any, str], tuple[int, dict[str, Any]]] = {}
    for line, record in samples:
        first_line, first = kept.setdefault(
            (record["doc_id"], json.dumps(record.get("doc"), sort_keys=True)), (line, record)
        )
        if first is not record and _generation(first) != _generation(record):
            raise InputError(
                f"{path}:{line}: doc_id {record['doc_id']} repeats line {first_line} with another generation; a "
                "document has one answer here (are two runs' samples joined in one file?)"
            )
    return list(kept.values())


def _binary(value: Any) -> bool | None:
    """A per-sample metric value as a pass (True) or fail (False); None when it is not 0 / 1 or a boolean."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    return None


def _verdict_metric(records: list[dict[str, Any]]) -> str | None:
    """The first metric the samples list whose value is 0 / 1 (or a boolean) on every sample: a pass or a fail."""
    listed = records[0].get("metrics") if records else None
    if not isinstance(listed, list):
        return None
    for metric in listed:
        if isinstance(metric, str) and all(_binary(record.get(metric)) is not None for record in records):
            return metric
    return None


def _asked(path: Path, line: int, record: dict[str, Any]) -> tuple[str, str]:
    """(scenario id, template) of one document, or one line saying this is not a CoBe-style task."""
    doc = record.get("doc")
    if not isinstance(doc, dict):
        raise InputError(f"{path}:{line}: doc: expected the dataset row as an object")
    sid, template = scenario_id(doc), template_of(doc)
    if sid is None or template is None:
        raise InputError(
            f"{path}:{line}: doc names no CoBe scenario and query (expected coreset_id + variation_id or an id "
            "like 317v3, and query_idx or template); is this a CoBe-style task?"
        )
    return sid, template


def _one_per_scenario(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The documents less repeats of one whole scenario: a task over native or paper-shaped rows asks each
    scenario once per query, so its documents are the same row but for the field naming the query. Rows of one
    scenario that differ otherwise (the site's shape: one query each) all stay, for the loader to merge or refuse."""
    kept: list[dict[str, Any]] = []
    seen: dict[str, list[dict[str, Any]]] = {}
    for doc in docs:
        sid = scenario_id(doc)
        same = {name: value for name, value in doc.items() if name not in _QUERY_FIELDS}
        if sid is not None and same in seen.get(sid, []):
            continue
        if sid is not None:
            seen.setdefault(sid, []).append(same)
        kept.append(doc)
    return kept


def _scenarios(path: Path, docs: list[Any], data: str | None) -> dict[str, Scenario]:
    """Scenarios by id: from `--data`, else the documents themselves, checked as any dataset file is."""
    if data:
        return dict(load_dataset(data).by_id)
    result = read_rows(_one_per_scenario([d for d in docs if isinstance(d, dict)]), str(path))
    if result.errors:
        first = result.errors[0]
        why = (
            "the documents of one scenario differ beyond the query they ask"
            if first.message.startswith("duplicate id")
            else "the documents do not hold whole scenarios"
        )
        raise InputError(f"{first.brief()} ({why}; give the dataset with --data)")
    return {s.id: s for s in result.scenarios}
