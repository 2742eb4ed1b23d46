"""Responses produced elsewhere (another harness, the CoBe site), made into a cobe run directory.

The run holds what `cobe generate` would have left: the store with the run (its models, data and
templates), every scenario, and one response per model × scenario × template. `cobe judge` then
plans the run's items from the store exactly as it does for a run cobe generated itself. Where the
source published its own verdicts, they are stored as a verdict set named for it (`cobe.judge.published`),
shown by the run's exports until a judge's verdicts replace them (both are kept).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError
from cobe.core.files import check_new_directory, new_directory
from cobe.core.results import Verdict
from cobe.core.version import __version__
from cobe.dataset import Scenario
from cobe.integrations.importers import ImportDone, named
from cobe.judge.judge_plan import JudgeRef
from cobe.judge.published import OVERALL
from cobe.prompts import Template, select_templates, unphrased_reason
from cobe.run.config import EvalConfig
from cobe.run.rundir import data_fingerprint
from cobe.store.rows import NewResponse, NewVerdict
from cobe.store.store import STORE_NAME, Store, now


@dataclass
class ExternalResponse:
    """One response another harness produced, with the scenario and template it answers."""

    model: str
    scenario: Scenario
    template: str
    text: str | None
    prompt: str | None = None
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    # as cobe records it ("length" for a reply cut off by the token limit, which is then never judged)
    finish_reason: str | None = None
    # the source's own overall verdict, where it published one: T passed, F failed, None with a reason unscored
    verdict: Verdict | None = None
    verdict_reason: str | None = None
    # or the source's verdict on each check (an inspect log of the cobe task), with the reasons of unscored ones
    checks: dict[str, Verdict | None] | None = None
    check_reasons: dict[str, str] = field(default_factory=dict)
    # whether the source gave this response a verdict at all (one it never scored stays unjudged)
    scored: bool = True


@dataclass
class ImportedRun:
    """Where an imported run went and what it holds."""

    out: Path
    run_id: str
    responses: int
    models: list[str]
    scenarios: int
    templates: list[str]
    notices: list[str] = field(default_factory=list)
    verdict_set: str | None = None  # the source's own verdicts, where it had some: the set the run shows


def write_response_run(
    out: str | Path,
    responses: list[ExternalResponse],
    *,
    data: str,
    source: str,
    settings: dict[str, Any] | None = None,
    published: JudgeRef | None = None,
    verdicts_from: str | None = None,
    verdicts_by: str | None = None,
    extra: dict[str, Any] | None = None,
) -> ImportedRun:
    """Create the run directory `out` from `responses`, all or nothing; `settings` are respondent settings found.

    With `published`, each response's own verdict is stored as that verdict set, which the run shows, and
    the exports (results.jsonl, summary.json with `extra`, report.md) are written; `verdicts_from` says where
    the set's verdicts came from (e.g. "published verdicts of the CoBe site") and `verdicts_by` who gave them
    (e.g. "the CoBe authors"), for every export to name.
    """
    out_dir = Path(out)
    check_new_directory(out_dir)  # before any work: an import never mixes into an existing run
    if not responses:
        raise InputError(f"{source}: no responses to import")
    scenarios = _scenarios(responses, source)
    names = list(dict.fromkeys(r.template for r in responses))
    chosen = {t.name: t for t in select_templates(names)}  # unknown names fail here, in one line
    templates = list(chosen)
    _all_askable(responses, chosen, source)
    models = list(dict.fromkeys(r.model for r in responses))
    _no_repeats(responses, source)
    found = {k: v for k, v in (settings or {}).items() if v is not None}
    config = EvalConfig(
        data=data,
        models=models,
        templates=templates,
        temperature=found.get("temperature"),
        max_tokens=found.get("max_tokens", EvalConfig.model_fields["max_tokens"].default),
    )
    docs = [s.model_dump_json() for s in scenarios]
    stored = config.stored() | {
        "data_fingerprint": data_fingerprint(docs),
        "template_names": templates,
        "imported_from": {"source": source, "settings": found},
    }
    if published is not None:
        stored["imported_from"]["verdicts"] = {
            "set": published.spec,
            "from": verdicts_from or f"verdicts of {source}",
            "by": verdicts_by,
        }
    run_id = uuid.uuid4().hex[:12]
    # built in a sibling folder and renamed into place: a failure leaves no half-made run behind
    with new_directory(out_dir) as staging:
        _fill(staging, run_id, stored, list(zip(scenarios, docs)), responses, published, extra or {})
    verdict_set = published.spec if published is not None else None
    return ImportedRun(out_dir, run_id, len(responses), models, len(scenarios), templates, verdict_set=verdict_set)


def _fill(
    run_dir: Path,
    run_id: str,
    stored: dict[str, Any],
    scenarios: list[tuple[Scenario, str]],
    responses: list[ExternalResponse],
    published: JudgeRef | None,
    extra: dict[str, Any],
) -> None:
    """The run's store in `run_dir`: the run, its scenarios (each with its JSON) and responses, and with
    `published` the responses' own verdicts as that verdict set, shown, with the exports written."""
    store = Store(run_dir / STORE_NAME)
    try:
        store.create_run(run_id, stored, __version__)
        store.put_scenarios(run_id, [(s.id, doc) for s, doc in scenarios])
        ids = [store.put_response(_row(run_id, response)) for response in responses]
        store.set_state(run_id, "complete")
        if published is not None:
            store.put_verdicts([v for i, r in zip(ids, responses) for v in _verdicts(run_id, i, r, published)])
            store.set_judge(run_id, published.spec, published.prompt_set, published.identity)
            _exports(run_dir, store, run_id, published, extra)
    finally:
        store.close()


def responses_done(imported: ImportedRun) -> ImportDone:
    """What `cobe import` says of a run of responses to judge: the line naming what it holds, its notices as notes."""
    shown = f", shown as the verdict set '{imported.verdict_set}'" if imported.verdict_set else ""
    line = (
        f"Imported {imported.responses} responses ({named(imported.models)}; {imported.scenarios} scenarios, "
        f"templates {','.join(imported.templates)}) into {imported.out}{shown}; judge them with "
        f"`cobe judge {imported.out} --judge SPEC`"
    )
    return ImportDone(imported.out, [line], list(imported.notices))


def _scenarios(responses: list[ExternalResponse], source: str) -> list[Scenario]:
    """The distinct scenarios, in first-seen order; one id must always mean the same scenario."""
    seen: dict[str, Scenario] = {}
    for response in responses:
        earlier = seen.setdefault(response.scenario.id, response.scenario)
        if earlier != response.scenario:
            raise InputError(f"{source}: scenario {response.scenario.id} appears with two different contents")
    return list(seen.values())


def _all_askable(responses: list[ExternalResponse], templates: dict[str, Template], source: str) -> None:
    """Refuse a response to a scenario its template cannot be asked of (no query in that phrasing): a run plans only
    the pairs it can phrase, so no judge would ever score that row and its results would be silently empty."""
    for response in responses:
        why = unphrased_reason(response.scenario, templates[response.template])
        if why is not None:
            raise InputError(
                f"{source}: {why}, so no judge could score its response (expected the scenario with the query it was asked)"
            )


def _no_repeats(responses: list[ExternalResponse], source: str) -> None:
    seen: set[tuple[str, str, str]] = set()
    for r in responses:
        key = (r.model, r.scenario.id, r.template)
        if key in seen:
            raise InputError(f"{source}: two responses of {r.model} to scenario {r.scenario.id} template {r.template}")
        seen.add(key)


def _row(run_id: str, response: ExternalResponse) -> NewResponse:
    return {
        "run_id": run_id,
        "model": response.model,
        "scenario_id": response.scenario.id,
        "template": response.template,
        "call_key": None,  # no cobe call produced it
        "prompt": response.prompt,
        "text": response.text,
        "error": response.error,
        "finish_reason": response.finish_reason,
        "input_tokens": response.input_tokens,
        "output_tokens": response.output_tokens,
        "cost_usd": None,
        "created": now(),
    }


def _verdicts(run_id: str, response_id: int, response: ExternalResponse, ref: JudgeRef) -> list[NewVerdict]:
    """The store's rows of a response's own verdicts: one per check where the source judged each, else one under
    the check name `overall`; none for a response the source never scored or that failed."""
    if not response.scored or response.error is not None:
        return []
    if response.checks is not None:
        return [
            _verdict(run_id, response_id, ref, check, verdict, response.check_reasons.get(check))
            for check, verdict in response.checks.items()
        ]
    return [_verdict(run_id, response_id, ref, OVERALL, response.verdict, response.verdict_reason)]


def _verdict(
    run_id: str, response_id: int, ref: JudgeRef, check: str, verdict: Verdict | None, reason: str | None
) -> NewVerdict:
    return {
        "run_id": run_id,
        "response_id": response_id,
        "judge": ref.spec,
        "prompt_set": ref.prompt_set,
        "prompt_fingerprint": ref.fingerprint,
        "check_name": check,
        "verdict": verdict,
        "raw": None,
        "p_true": None,
        "unscored_reason": (reason or "the source gave no verdict") if verdict is None else None,
        "error": None,
        "judge_settings": "{}",
        "call_key": None,
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": None,
        "created": now(),
    }


def _exports(run_dir: Path, store: Store, run_id: str, ref: JudgeRef, extra: dict[str, Any]) -> None:
    """results.jsonl, summary.json and report.md of the imported run, as `cobe judge --show` writes them."""
    from cobe.run.export import write_exports
    from cobe.run.plan import plan_exports  # loads the providers' registry: only for an import with verdicts

    plan = plan_exports(store, run_dir)
    fields = plan.summary_fields() | {"state": "complete", "updated": now()} | extra
    write_exports(run_dir, store, run_id, plan.items, ref, fields, list(plan.notices))
