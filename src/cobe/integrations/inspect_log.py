"""cobe runs ⇄ inspect_ai logs, through inspect's own log API.

`export_inspect` writes one model's responses as an EvalLog of the shape `inspect eval cobe/cobe`
writes (one sample per response, the three verdicts as its score, inspect's metrics computed by
the task's own metric functions). `import_inspect` reads such a log back as a cobe run whose
responses `cobe judge` can judge. inspect_ai is the `inspect` extra, imported on first use.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from cobe.core.errors import InputError, validation_problem
from cobe.core.extras import require
from cobe.core.files import check_new_directory, check_output, ensure_dir
from cobe.core.jsonfile import open_regular
from cobe.core.version import __version__
from cobe.dataset import Scenario, load_dataset
from cobe.integrations.imported_run import ExternalResponse, ImportedRun, responses_done, write_response_run
from cobe.integrations.importers import ImportDone, ImportRequest
from cobe.integrations.inspect_scores import SampleVerdicts, described, sample_verdicts
from cobe.integrations.source import RunExport, Usage, key, load_run, pick_model
from cobe.judge import CHECKS
from cobe.judge.published import imported_ref
from cobe.models import Message
from cobe.models.base import finish_reason

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample, EvalScore

#: the task names a CoBe log carries: the registered task, or the bare name outside an installed package
TASK_NAMES = ("cobe/cobe", "cobe")
JUDGED = ("passed", "failed", "unscored")
#: the name an imported log's verdicts go by: their verdict set is `inspect (imported)`
SOURCE = "inspect"


def _inspect(purpose: str) -> Any:
    """inspect_ai, or one line naming the extra that brings it."""
    return require("inspect_ai", "inspect", purpose)


def export_inspect(run_path: str | Path, out: str | Path, model: str | None = None) -> Path:
    """Write one model of a run as an inspect log (`.eval`, or `.json` by the file's suffix)."""
    run = load_run(run_path)  # a run of several models is refused before inspect is loaded (seconds)
    if model is None and len(run.models) > 1:
        raise InputError(
            f"{run.run_dir}: holds {len(run.models)} models ({', '.join(run.models)}); choose one with --model, or "
            "give a folder for OUT (no .eval or .json suffix) to write one log per model"
        )
    chosen = pick_model(run, model)
    _inspect("cobe export --to inspect")
    target = _check_target(Path(out))
    _write(_log(run.only(chosen), chosen), target)
    return target


def export_inspect_all(run_path: str | Path, out_dir: str | Path, models: Sequence[str] | None = None) -> list[Path]:
    """Write each model of a run (or each of `models`) as its own inspect log in the folder `out_dir`, one
    `MODEL.eval` each: the run is read once and inspect loaded once, whatever the number of models."""
    run = load_run(run_path)
    chosen = [pick_model(run, m) for m in models] if models else run.models
    _inspect("cobe export --to inspect")
    folder = ensure_dir(Path(out_dir), "folder for the inspect logs")
    targets = {m: _check_target(folder / name) for m, name in zip(chosen, log_names(chosen))}
    rows: dict[str, list[dict[str, Any]]] = {m: [] for m in chosen}
    for row in run.rows:  # one pass over the run, not one per model
        if row["model"] in rows:
            rows[row["model"]].append(row)
    for m in chosen:
        _write(_log(run.only(m, rows[m]), m), targets[m])
    return list(targets.values())


def log_names(models: Sequence[str]) -> list[str]:
    """A file name per model: its spec with `/` and other unsafe characters as `_`, cut short with a digest where
    it is long, and a number where two would meet."""
    names: list[str] = []
    for model in models:
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("._") or "model"
        if len(stem) > 80:
            stem = f"{stem[:64]}-{hashlib.sha256(model.encode()).hexdigest()[:12]}"
        name, number = f"{stem}.eval", 2
        while name in names:
            name, number = f"{stem}-{number}.eval", number + 1
        names.append(name)
    return names


def _log(run: RunExport, chosen: str) -> EvalLog:
    """One model's rows of a run as an EvalLog of the cobe task."""
    from inspect_ai.log import EvalConfig as InspectConfig
    from inspect_ai.log import EvalDataset, EvalLog, EvalPlan, EvalSpec, EvalStats
    from inspect_ai.model import GenerateConfig, ModelUsage

    samples = [_sample(run, row) for row in run.rows]
    settings = run.summary.get("respondent_settings") or {}
    task_name = _task_name()
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    return EvalLog(
        status="success",
        eval=EvalSpec(
            created=stamp,
            run_id=run.run_id,
            task_id=hashlib.sha256(f"{run.run_id}/{chosen}".encode()).hexdigest()[:22],  # one id per run × model
            task=task_name,
            task_registry_name=task_name,
            task_args={
                "data": run.summary.get("data"),
                "templates": ",".join(dict.fromkeys(str(r["template"]) for r in run.rows)),
                "judge": run.judge.spec,
                "judge_prompts": run.judge.prompts,
            },
            dataset=EvalDataset(name=run.summary.get("data"), samples=len(samples), sample_ids=[s.id for s in samples]),
            model=chosen,
            model_generate_config=GenerateConfig(
                temperature=settings.get("temperature"), max_tokens=settings.get("max_tokens")
            ),
            config=InspectConfig(epochs=1),
            packages={"cobe": __version__},
            metadata={
                "exported_by": EXPORTED_BY,
                "cobe_run_id": run.run_id,
                "cobe_run_dir": str(run.run_dir),
                "judge": {
                    "spec": run.judge.spec,
                    "prompts": run.judge.prompts,
                    "fingerprint": run.judge.fingerprint,
                    **({"verdicts_from": run.judge.source} if run.judge.source else {}),
                },
            },
        ),
        plan=EvalPlan(),
        results=_results(samples),
        stats=EvalStats(
            started_at=stamp,
            completed_at=stamp,
            model_usage={chosen: _total(ModelUsage, run.respondent_usage.values())},
            role_usage={"grader": _total(ModelUsage, run.judge_usage.values())} if run.judge_usage else {},
        ),
        samples=samples,
    )


@lru_cache(maxsize=1)
def _task_name() -> str:
    from inspect_ai.util import registry_info

    from cobe.integrations import inspect_task

    return str(registry_info(inspect_task.cobe).name)


def _write(log: EvalLog, target: Path) -> None:
    """The log written beside the target and renamed over it: a failure (a full disk) leaves no half log behind."""
    from inspect_ai.log import write_eval_log

    partial = target.with_name(f".{target.stem}.{os.getpid()}.partial{target.suffix}")
    try:
        write_eval_log(log, str(partial), format=target.suffix[1:].lower())  # type: ignore[arg-type]
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


#: what `export_inspect` records in a log's metadata, and looks for before replacing an existing file
EXPORTED_BY = "cobe export --to inspect"
LOG_SUFFIXES = (".eval", ".json")


def _check_target(target: Path) -> Path:
    """`target` as a place for an inspect log: a .eval or .json path in a folder that can be made, holding
    nothing or a log this command wrote before (anything else there is the user's, and never replaced)."""
    if target.suffix.lower() not in LOG_SUFFIXES:
        raise InputError(
            f"{target}: inspect writes its logs as .eval or .json files; got {target.suffix or 'no suffix'}"
        )
    ensure_dir(target.parent, "folder for the inspect log")
    if not os.path.lexists(target):
        return check_output(target, "an inspect log file")
    check_output(target, "an inspect log file (.eval or .json)")
    if not _written_by_cobe(target):
        raise InputError(
            f"{target}: already exists and is not an inspect log cobe exported; cobe replaces only its own "
            "exports, so choose another path or remove the file first"
        )
    return target


def _written_by_cobe(path: Path) -> bool:
    from inspect_ai.log import read_eval_log

    try:
        open_regular(path, "an inspect log").close()  # never hand a FIFO or a device to the reader
        header = read_eval_log(str(path), header_only=True)
    except Exception:  # any file inspect cannot read as a log is not one cobe wrote
        return False
    return bool((header.eval.metadata or {}).get("exported_by") == EXPORTED_BY)


def _total(usage_type: Callable[..., Any], usages: Any) -> Any:
    items = list(usages)
    i, o = sum(u.input_tokens for u in items), sum(u.output_tokens for u in items)
    return usage_type(input_tokens=i, output_tokens=o, total_tokens=i + o)


def _sample(run: RunExport, row: dict[str, Any]) -> EvalSample:
    """One result row as an inspect sample: input, output, usage, metadata, and its score once judged."""
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ModelOutput, ModelUsage

    from cobe.integrations import inspect_task

    model = str(row["model"])
    usage = run.respondent_usage.get(key(row), Usage())
    model_usage = ModelUsage(
        input_tokens=usage.input_tokens, output_tokens=usage.output_tokens, total_tokens=usage.total_tokens
    )
    prompt = inspect_task.chat_input([Message(role="user", content=row["prompt"] or row["query"] or "")])
    text = row["response"] or ""
    reply = ChatMessageAssistant(content=text, model=model)
    output = ModelOutput(model=model, choices=[ChatCompletionChoice(message=reply, stop_reason="stop")])
    output.usage = model_usage
    doc = run.scenarios.get(row["scenario_id"])
    metadata = inspect_task.sample_metadata(
        doc or _partial_scenario(row), str(row["template"]), int(row["tier"]), int(row["phrasing"])
    )
    if doc is None:
        metadata.pop("scenario")  # results.jsonl alone cannot rebuild the whole scenario
    scores = {}
    if row["status"] in JUDGED:
        judge_usage = run.judge_usage.get(key(row), Usage())
        identity = {
            "judge": row["judge"],
            "judge_prompts": row["judge_prompts"],
            "judge_fingerprint": run.judge.fingerprint,
            "judge_raw": row["judge_raw"],
            "judge_tokens": {"input": judge_usage.input_tokens, "output": judge_usage.output_tokens},
        }
        judged = row["judged_response"] if row["judged_response"] is not None else row["response"]
        if run.judge.source:
            identity["verdicts_from"] = run.judge.source
        # a source's one verdict per response (the site's) has no per-check letters: the row's own pass decides
        overall = row["passed"] if not any((row["verdicts"] or {}).values()) else None
        scores[inspect_task.SCORER_NAME] = inspect_task.verdict_score(
            row["verdicts"], row["unscored"], judged, identity, overall=overall
        )
    error = row["response_error"]
    return EvalSample(
        id=inspect_task.sample_id(row["scenario_id"], row["template"]),
        epoch=1,
        input=prompt,
        target="",
        messages=[*prompt, reply],
        output=output,
        scores=scores,
        metadata=metadata,
        model_usage={model: model_usage},
        error=EvalError(message=error, traceback="", traceback_ansi="") if error else None,
    )


def _partial_scenario(row: dict[str, Any]) -> dict[str, Any]:
    fields = ("core_id", "variation", "domain", "story", "preserve", "change", "graph_type", "failure_modes", "tags")
    return {"id": row["scenario_id"], **{name: row[name] for name in fields}}


def _results(samples: list[EvalSample]) -> Any:
    """inspect's results block, computed by the same metric functions the cobe task registers."""
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore
    from inspect_ai.scorer import SampleScore, Score, mean
    from inspect_ai.util import registry_info

    from cobe.integrations import inspect_task

    metrics: dict[str, list[Any]] = {
        inspect_task.PASSED: [inspect_task.cobe_accuracy(), inspect_task.phrasing_std()],
        **{check: [mean()] for check in CHECKS},
    }
    judged = [s for s in samples if s.scores and inspect_task.SCORER_NAME in s.scores]
    blocks: list[EvalScore] = []
    for name, functions in metrics.items():
        scored = []
        for sample in judged:
            value = (sample.scores or {})[inspect_task.SCORER_NAME].as_dict()[name]
            if isinstance(value, float) and math.isnan(value):
                continue  # unscored: left out of every metric, as inspect's own scoring does
            scored.append(SampleScore(score=Score(value=value), sample_id=sample.id, sample_metadata=sample.metadata))
        values = {}
        for function in functions:
            # inspect names its own metrics without their package ("mean"), any other with it ("cobe/…")
            metric_name = registry_info(function).name.removeprefix("inspect_ai/")
            values[metric_name] = EvalMetric(name=metric_name, value=function(scored) if scored else math.nan)
        blocks.append(
            EvalScore(
                name=name,
                scorer=inspect_task.SCORER_NAME,
                scored_samples=len(scored),
                unscored_samples=len(judged) - len(scored),
                metrics=values,
            )
        )
    return EvalResults(
        total_samples=len(samples),
        completed_samples=sum(1 for s in samples if s.error is None),
        scores=blocks if judged else [],
    )


def import_request(request: ImportRequest) -> ImportDone:
    """`cobe import --from inspect`: the log as a run to judge, and the lines saying what it holds."""
    return responses_done(import_inspect(request.file, request.out, data=request.data))


def import_inspect(log_path: str | Path, out: str | Path, data: str | None = None) -> ImportedRun:
    """Make the responses of a CoBe inspect log a cobe run directory, ready for `cobe judge`."""
    _inspect("cobe import --from inspect")
    from inspect_ai.log import read_eval_log

    check_new_directory(Path(out))
    path = Path(log_path)
    open_regular(path, "an inspect log (.eval or .json)").close()  # a FIFO or a device would block the reader
    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # a file that is not an inspect log fails in many ways; one line for all
        raise InputError(f"{path}: not a readable inspect log ({type(exc).__name__})") from None
    task = log.eval.task
    if task not in TASK_NAMES:
        raise InputError(
            f"{path}: an inspect log of task {task!r}, not of CoBe; expected a log of `inspect eval cobe/cobe` "
            "or of `cobe export --to inspect`"
        )
    if not log.samples:
        raise InputError(f"{path}: the log holds no samples (was it written with --no-log-samples?)")
    source = data or log.eval.task_args.get("data")
    dataset = load_dataset(data) if data else None
    responses, found, later_epochs = [], [], 0
    for sample in log.samples:
        if sample.epoch != 1:
            later_epochs += 1  # cobe keeps one response per scenario × template
            continue
        verdicts = sample_verdicts(sample)
        responses.append(_with_verdicts(_response(path, log, sample, dataset), verdicts))
        found.append(verdicts)
    unanswered = sum(1 for r in responses if r.error is not None)
    config = log.eval.model_generate_config
    scored = [v for v in found if v.scored]
    imported = write_response_run(
        out,
        responses,
        data=str(source or path),
        source=str(path),
        settings={"temperature": config.temperature, "max_tokens": config.max_tokens},
        # the log's own scores, where it has them, are the verdict set `inspect (imported)`
        published=imported_ref(SOURCE) if scored else None,
        verdicts_from=described(path.name, scored) if scored else None,
        extra={"source": SOURCE, "imported_from": str(path)},
    )
    if scored:
        imported.notices.append(
            f"the log's scores of {len(scored)} of {len(responses)} samples are the verdict set "
            f"'{imported_ref(SOURCE).spec}'; `cobe judge {imported.out} --judge SPEC` judges them anew beside it"
        )
    if later_epochs:
        imported.notices.append(f"{later_epochs} samples of epochs after the first were left out")
    if unanswered:
        imported.notices.append(
            f"{unanswered} of {len(responses)} samples hold an error or no model output (an interrupted or failed "
            "run); imported as errored responses, which `cobe judge` leaves unjudged"
        )
    return imported


def _response(path: Path, log: EvalLog, sample: EvalSample, dataset: Any) -> ExternalResponse:
    metadata = sample.metadata or {}
    where = f"{path}: sample {sample.id}"
    if "scenario_id" not in metadata or "template" not in metadata:
        raise InputError(f"{where}: metadata lacks scenario_id and template; expected a sample of the cobe task")
    if dataset is not None:
        scenario = dataset.get(str(metadata["scenario_id"]))
    elif "scenario" in metadata:
        try:
            scenario = Scenario.model_validate(metadata["scenario"])
        except ValidationError as exc:
            raise InputError(f"{where}: metadata.scenario is not a CoBe scenario ({validation_problem(exc)})") from None
    else:
        raise InputError(f"{where}: the sample does not carry its scenario; give the dataset with --data")
    output = sample.output
    answered = output is not None and not output.empty  # an interrupted or failed sample may have no choice
    usage = output.usage if output else None
    if sample.error:
        error: str | None = sample.error.message or "the sample failed"
    else:
        error = None if answered else "no model output (the sample was interrupted or failed)"
    return ExternalResponse(
        model=log.eval.model,
        scenario=scenario,
        template=str(metadata["template"]),
        text=output.completion if answered and error is None and output else None,
        prompt=_prompt(sample),
        error=error,
        input_tokens=usage.input_tokens if usage else 0,
        output_tokens=usage.output_tokens if usage else 0,
        finish_reason=finish_reason(output.stop_reason) if answered and output else None,
    )


def _with_verdicts(response: ExternalResponse, verdicts: SampleVerdicts) -> ExternalResponse:
    """The response with the sample's own verdicts, per check or overall, as the log scored it."""
    response.scored = verdicts.scored
    response.checks, response.check_reasons = verdicts.checks, verdicts.reasons
    response.verdict, response.verdict_reason = verdicts.overall, verdicts.reason
    return response


def _prompt(sample: EvalSample) -> str | None:
    if isinstance(sample.input, str):
        return sample.input
    users = [m.text for m in sample.input if m.role == "user"]
    return users[-1] if users else None
