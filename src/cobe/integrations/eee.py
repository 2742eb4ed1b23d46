"""A run as Every Eval Ever records (the EvalEval schema 0.3.0): per model one aggregate JSON and
its per-instance JSONL, laid out as the datastore wants them:

    DIR/data/cobe/<developer>/<model>/<uuid>.json
    DIR/data/cobe/<developer>/<model>/<uuid>_samples.jsonl

The aggregate holds four results: the accuracy (by its rule, with the std across phrasings where it is
their mean, the CI and the judge's identity) and the rate at which each check is satisfied. The
instance file holds, per response, one record per result it counts in (as the schema asks), each
carrying the three verdicts. When the `every-eval-ever` package is installed (the `eee` extra,
Python ≥ 3.12 by its own metadata), every file is checked with its validator before this returns.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import import_module
from pathlib import Path, PurePosixPath
from typing import Any

from cobe.core.errors import CobeError, InputError
from cobe.core.version import __version__
from cobe.integrations.source import JudgeIdentity, RunExport, Usage, key, load_run, scoreboard
from cobe.judge import CHECKS
from cobe.judge.prompt_sets import load_judge_prompts
from cobe.judge.published import IMPORTED, PUBLISHED
from cobe.score.rule import MEAN_RULE, rule_definition

SCHEMA_VERSION = "0.3.0"
COLLECTION = "cobe"
ACCURACY_ID = "cobe.accuracy"
# characters no datastore folder may hold; ':' stays in the id, its folder gets '_' (the datastore's own rule)
_UNSAFE = re.compile(r'[<>"\\|?*\x00-\x1f]')
_UNKNOWN_MODEL = {"deployment_type": "unknown", "model_availability": "unknown"}
CHECK_TEXT = {
    "connectors": "every causal connector states a plausible relation in the right direction",
    "preserve": "every fact of the preserve criterion still holds",
    "change": "every fact of the change criterion no longer holds",
}


@dataclass
class EeeExport:
    """What `export_eee` wrote, and whether every-eval-ever's validator checked it."""

    out: Path
    files: list[Path] = field(default_factory=list)
    validated: bool = False


def model_id(spec: str) -> str:
    """A cobe spec as a datastore model id `developer/model`: unsafe characters and empty parts dropped."""
    parts = [_UNSAFE.sub("-", part).strip(" .") for part in spec.split("/")]
    parts = [p for p in parts if p and p != "data"]
    return "/".join(parts) if len(parts) > 1 else f"cobe/{parts[0] if parts else 'model'}"


def model_dirs(identity: str) -> tuple[str, str]:
    """(developer, model) folders of an id, by the datastore's rule: the prefix, then the rest joined by `_`; a name
    no folder can have (the datastore files a model under its id, so it is never shortened) is one line."""
    developer, _, rest = identity.partition("/")
    folders = developer.replace(":", "_"), rest.replace(":", "_").replace("/", "_")
    for folder in folders:
        if len(folder.encode("utf-8")) > FOLDER_BYTES:
            raise InputError(
                f"model {identity[:60]!r}… ({len(identity):,} characters): Every Eval Ever files a model under a "
                f"folder named for its id, and a folder name holds at most {FOLDER_BYTES} bytes; nothing was written"
            )
    return folders


#: the longest folder name a file system takes, in bytes
FOLDER_BYTES = 255


def export_eee(run_path: str | Path, out: str | Path, *, organization: str = "unknown") -> EeeExport:
    """Write the aggregate and instance records of every model of a run under DIR/data/cobe/."""
    run = load_run(run_path)
    out_dir = Path(out)
    if not any(row["status"] in ("passed", "failed") for row in run.rows):
        raise InputError(f"{run.run_dir}: nothing is judged yet; run `cobe judge` before exporting scores")
    board = scoreboard(run)
    result = EeeExport(out_dir)
    stamp = datetime.now(UTC)
    folders = {model: model_dirs(model_id(model)) for model in run.models}  # every name checked before any write
    for model in run.models:
        part = run.only(model)
        identity = model_id(model)
        developer, name = folders[model]
        file_id = str(uuid.uuid4())
        folder = PurePosixPath("data", COLLECTION, developer, name)
        evaluation_id = f"{COLLECTION}/{identity}/{int(stamp.timestamp())}"
        instances = _instances(part, identity, evaluation_id)
        samples_path = out_dir / folder / f"{file_id}_samples.jsonl"
        samples_path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n" for record in instances)
        samples_path.write_text(text, encoding="utf-8")
        aggregate = _aggregate(part, model, identity, evaluation_id, stamp, board[model], organization)
        aggregate["detailed_evaluation_results"] = {
            "format": "jsonl",
            "file_path": (folder / samples_path.name).as_posix(),
            "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "total_rows": len(instances),
        }
        aggregate_path = out_dir / folder / f"{file_id}.json"
        aggregate_path.write_text(json.dumps(aggregate, indent=2, allow_nan=False) + "\n", encoding="utf-8")
        result.files += [aggregate_path, samples_path]
    result.validated = validate(out_dir, result.files)
    return result


def _model_info(spec: str, identity: str) -> dict[str, Any]:
    return {
        "name": spec,
        "id": identity,
        "developer": identity.split("/", 1)[0],
        "inference_platform": spec.split("/", 1)[0],
        "additional_details": {"cobe_spec": spec, **_UNKNOWN_MODEL},
    }


def _judge_block(judge: JudgeIdentity) -> dict[str, Any] | None:
    """The llm_scoring block of a cobe judge's verdicts; None for verdicts a source gave (an import), whose
    judge cobe never ran: the metric's additional_details name that source instead."""
    if judge.source or not judge.spec:
        return None
    spec = judge.spec
    entry: dict[str, Any] = {
        "model_info": _model_info(spec, model_id(spec)),
        "additional_details": {"prompt_set": str(judge.prompts), "prompt_fingerprint": str(judge.fingerprint)},
    }
    if judge.settings.get("temperature") is not None:
        entry["temperature"] = float(judge.settings["temperature"])
    return {
        "judges": [entry],
        "input_prompt": _judge_prompt(judge),
        "additional_details": {
            "checks": ", ".join(CHECKS),
            "pass_rule": "a response passes only when all three checks answer T",
            "unscored": "an unparseable verdict is unscored and left out of the denominator",
        },
    }


def _judge_prompt(judge: JudgeIdentity) -> str:
    """The judge's three prompt templates when the named set is the one used (same fingerprint), else its name."""
    try:
        prompts = load_judge_prompts(judge.prompts) if judge.prompts else None
    except CobeError:
        prompts = None
    if prompts is not None and prompts.fingerprint == judge.fingerprint:
        return "\n\n".join(f"[{check}]\n{prompts.texts[check].strip()}" for check in CHECKS)
    return f"cobe judge prompt set {judge.prompts} (fingerprint {judge.fingerprint}): one call per check, answer T or F"


def _source_data(run: RunExport) -> dict[str, Any]:
    data = str(run.summary.get("data") or "unknown")
    if data.startswith("hf:"):
        repo, _, split = data[3:].partition(":")
        return {"dataset_name": "CoBe", "source_type": "hf_dataset", "hf_repo": repo, "hf_split": split or None}
    return {"dataset_name": "CoBe", "source_type": "other", "additional_details": {"cobe_data": data}}


def _aggregate(
    run: RunExport,
    spec: str,
    identity: str,
    evaluation_id: str,
    stamp: datetime,
    scores: dict[str, Any],
    organization: str,
) -> dict[str, Any]:
    settings = run.summary.get("respondent_settings") or {}
    generation = {k: settings[k] for k in ("temperature", "max_tokens") if settings.get(k) is not None}
    common = {
        "source_data": _source_data(run),
        "generation_config": {"generation_args": generation},
    }
    judge = _judge_block(run.judge)
    accuracy = _accuracy_result(run, scores, common, judge) if scores.get("accuracy") is not None else None
    results = [*([accuracy] if accuracy else []), *_check_results(run, scores, common, judge)]
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "evaluation_timestamp": str(run.summary.get("updated") or stamp.isoformat(timespec="seconds")),
        "retrieved_timestamp": str(int(stamp.timestamp())),
        "source_metadata": _source_metadata(run, organization),
        "eval_library": {"name": "cobe", "version": __version__},
        "model_info": _model_info(spec, identity),
        "evaluation_results": results,
    }


def _accuracy_result(
    run: RunExport, scores: dict[str, Any], common: dict[str, Any], judge: dict[str, Any] | None
) -> dict[str, Any]:
    """The record's CoBe accuracy result: the score, its counts and per-template accuracies, its interval."""
    uncertainty: dict[str, Any] = {"num_samples": scores["scored"]}
    if scores.get("ci_low") is not None:
        uncertainty["confidence_interval"] = {
            "lower": scores["ci_low"],
            "upper": scores["ci_high"],
            "confidence_level": 0.95,
            "method": scores.get("ci_method") or "percentile bootstrap",
        }
        uncertainty["num_bootstrap_samples"] = scores["resamples"]
    # a pooled accuracy has no std across phrasings (cobe.score.rule): its rule says so instead
    spread = {"std_across_phrasings": str(scores["std"]), "std_ddof": "1"} if scores.get("std") is not None else {}
    details = {
        **spread,
        "rule": str(scores.get("rule") or MEAN_RULE),
        "n": str(scores["n"]),
        "passes": str(scores["passes"]),
        "unscored": str(scores["unscored"]),
        "errors": str(scores["errors"]),
        **{f"accuracy_{t}": str(v) for t, v in (scores.get("per_template") or {}).items()},
    }
    return {
        "evaluation_result_id": ACCURACY_ID,
        "evaluation_name": "CoBe",
        **common,
        "metric_config": _metric(
            ACCURACY_ID,
            "CoBe accuracy",
            rule_definition(scores.get("rule")) + "; " + _pass_rule(run),
            judge,
            run.judge.source,
        ),
        "score_details": {"score": scores["accuracy"], "details": details, "uncertainty": uncertainty},
    }


def _check_results(
    run: RunExport, scores: dict[str, Any], common: dict[str, Any], judge: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """One result per check with a satisfied rate."""
    results = []
    for check in CHECKS:
        rate = (scores.get("checks") or {}).get(check) or {}
        if rate.get("satisfied_rate") is None:
            continue
        results.append(
            {
                "evaluation_result_id": f"cobe.{check}",
                "evaluation_name": f"CoBe {check} check",
                **common,
                "metric_config": _metric(
                    f"cobe.{check}", f"{check} satisfied", CHECK_TEXT[check], judge, run.judge.source
                ),
                "score_details": {"score": rate["satisfied_rate"], "uncertainty": {"num_samples": rate["judged"]}},
            }
        )
    return results


def _source_metadata(run: RunExport, organization: str) -> dict[str, Any]:
    """Who provides the records: the exporting organisation, or, for verdicts a source gave (the site's), that
    source, with the exporter named beside it."""
    details = {"cobe_run_id": run.run_id}
    if not run.judge.source:
        return {
            "source_name": "cobe",
            "source_type": "evaluation_run",
            "source_organization_name": organization,
            "evaluator_relationship": "third_party",
            "additional_details": details,
        }
    details |= {"verdicts_from": run.judge.source, "exported_by": organization}
    if run.judge.spec:
        details["verdict_set"] = run.judge.spec
    return {
        "source_name": f"cobe import of {run.judge.spec or 'a verdict file'}",
        "source_type": "evaluation_run",
        # who gave the verdicts, where the import knew; never the exporter, who only passes them on
        "source_organization_name": run.judge.source_by or "not recorded (imported verdicts; see verdicts_from)",
        "evaluator_relationship": "third_party",
        "additional_details": details,
    }


def _pass_rule(run: RunExport) -> str:
    """How a response of this run passes: T on every check, or, for a source's one verdict per response, as that
    verdict says."""
    if any(v in ("T", "F") for row in run.rows for v in (row.get("verdicts") or {}).values()):
        return "a pass needs T on connectors, preserve and change"
    return "a pass is the source's own verdict on the response (no per-check verdicts)"


def _metric(
    metric_id: str, name: str, description: str, judge: dict[str, Any] | None, source: str | None = None
) -> dict[str, Any]:
    config: dict[str, Any] = {
        "evaluation_description": description,
        "metric_id": metric_id,
        "metric_name": name,
        "metric_kind": "accuracy" if metric_id == ACCURACY_ID else "pass_rate",
        "metric_unit": "percent",
        "lower_is_better": False,
        "score_type": "continuous",
        "min_score": 0.0,
        "max_score": 100.0,
    }
    if judge is not None:
        config["llm_scoring"] = judge
    if source is not None:  # verdicts no cobe judge gave: where they came from, in place of a judge
        config["additional_details"] = {"verdicts_from": source}
    return config


def _instances(run: RunExport, identity: str, evaluation_id: str) -> list[dict[str, Any]]:
    """Per response, one record for the accuracy (when it passed or failed) and one per check it was judged on."""
    records = []
    method = _extraction_method(run.judge)
    for row in run.rows:
        verdicts = {c: row["verdicts"].get(c) for c in CHECKS}
        prompt = row["prompt"] or row["query"] or ""
        usage = run.respondent_usage.get(key(row), Usage())
        base = {
            "schema_version": SCHEMA_VERSION,
            "evaluation_id": evaluation_id,
            "model_id": identity,
            "sample_id": f"{row['scenario_id']}-{row['template']}",
            "sample_hash": hashlib.sha256(json.dumps({"raw": prompt, "reference": []}).encode()).hexdigest(),
            "interaction_type": "single_turn",
            "input": {"raw": prompt, "reference": []},
            "output": {"raw": [row["response"] or ""]},
            "answer_attribution": [
                {
                    "turn_idx": 0,
                    "source": "output.raw",
                    "extracted_value": row["judged_response"] or row["response"] or "",
                    "extraction_method": method,
                    "is_terminal": True,
                }
            ],
            "token_usage": {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "total_tokens": usage.total_tokens,
            },
            "metadata": {
                "scenario_id": row["scenario_id"],
                "template": row["template"],
                "tier": row["tier"],
                "domain": row["domain"],
                "graph_type": row["graph_type"],
                "status": row["status"],
                "verdicts": verdicts,
                "unscored": row["unscored"],
                **({"verdicts_from": run.judge.source} if run.judge.source else {}),
            },
        }
        if row["response_error"]:
            base["error"] = row["response_error"]
        if row["status"] in ("passed", "failed"):
            records.append(_record(base, ACCURACY_ID, "CoBe", row["status"] == "passed"))
        for check in CHECKS:
            if verdicts[check] is not None:
                records.append(_record(base, f"cobe.{check}", f"CoBe {check} check", verdicts[check] == "T"))
    return records


def _extraction_method(judge: JudgeIdentity) -> str:
    """How each verdict was reached: cobe's LLM judge, or the source's own verdict set (an import), named."""
    if not judge.source:
        return "llm_judge"
    named = judge.spec if judge.prompts in (PUBLISHED, IMPORTED) else None  # a stored set, named for its source
    return f"source_verdict: {named or 'the imported file'}"


def _record(base: dict[str, Any], result_id: str, name: str, correct: bool) -> dict[str, Any]:
    return {
        **base,
        "evaluation_name": name,
        "evaluation_result_id": result_id,
        "evaluation": {"score": float(correct), "is_correct": correct, "num_turns": 1},
    }


def validator_command(out: Path) -> str:
    """The shell command that checks an export with every-eval-ever's own validator. The validator reads the
    paths a record names (`data/cobe/…`) from the folder it runs in, so it runs from OUT, the folder holding
    data/; it takes files or fixed-depth globs, not folders."""
    files = " ".join(f"'{PurePosixPath('data', COLLECTION, '*', '*', pattern)}'" for pattern in ("*.json", "*.jsonl"))
    return f"cd {shlex.quote(str(out))} && python -m every_eval_ever validate {files}"


def validate(root: Path, files: list[Path]) -> bool:
    """Check the files with every-eval-ever's own validator when it is installed; False when it is not."""
    try:
        checker = import_module("every_eval_ever.validator.validate")
    except ImportError:
        return False
    present = {f.relative_to(root).as_posix() for f in files}
    for path in files:
        repo_path = path.relative_to(root).as_posix()
        report = checker.validate_file(
            path,
            repo_path=repo_path,
            available_files=present,
            read_repo_file=lambda name: (root / name).read_text(encoding="utf-8"),
            run_semantic_checks=True,
        )
        problems = [*report.errors, *report.warnings]
        if problems:
            first = problems[0]
            raise CobeError(f"{path}: every-eval-ever rejects it: {first.get('loc')}: {first.get('msg')}")
    return True
