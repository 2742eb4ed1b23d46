"""Augmentation: a model writes new variations of each core example; bad outputs are counted and redone."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections import Counter
from collections.abc import Coroutine
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError
from cobe.curate.neardup import DEFAULT_THRESHOLD, NearDupIndex
from cobe.curate.project import Item, Project, now
from cobe.dataset.graph import derive_graph_type
from cobe.dataset.queries import tier1_queries
from cobe.dataset.schema import Fact, Scenario
from cobe.dataset.validate import validate_record
from cobe.models.base import GenerateConfig, Message

PROMPT_DIR = Path(str(files("cobe.curate").joinpath("prompts")))
REJECT_REASONS = ("invalid_json", "schema", "wrong_query_count", "near_duplicate", "call_error")
AUGMENT_CONFIG = GenerateConfig(temperature=0.8, max_tokens=1500)
AUGMENTABLE = ("core", "approved", "released")
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.M)


class Rejected(Exception):
    """One generated output that cannot become an item, with the reason counted in the datasheet."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason, self.detail = reason, detail


@dataclass
class AugmentResult:
    """What one augmentation run added and rejected."""

    added: list[str] = field(default_factory=list)
    rejects: Counter[str] = field(default_factory=Counter)
    gave_up: int = 0  # slots that used every attempt without a valid output
    calls: int = 0


def prompt_texts() -> tuple[str, str]:
    """The system and user prompt templates shipped in `build/prompts/`."""
    return (
        (PROMPT_DIR / "augment_system.txt").read_text(encoding="utf-8"),
        (PROMPT_DIR / "augment.txt").read_text(encoding="utf-8"),
    )


def prompt_fingerprint() -> str:
    """A short hash of the prompt templates: an item's lineage names the prompt that wrote it."""
    system, user = prompt_texts()
    return hashlib.sha256(f"{system}\0{user}".encode()).hexdigest()[:12]


def _fact_note(fact: Fact) -> str:
    flags = [
        *(
            ["holds despite the change: it follows from it, but another cause keeps it true"]
            if fact.holds_despite
            else []
        ),
        *(["invariant"] if fact.invariant else []),
    ]
    return f"{fact.variable} ({'; '.join(flags)})" if flags else fact.variable


def _structure(core: Scenario) -> str:
    if core.graph is None:
        return f"graph type {core.graph_type.value}" if core.graph_type else "not given"
    graph = core.graph
    edges = ", ".join(f"{e.source} {'<->' if e.bidirected else '->'} {e.target}" for e in graph.edges)
    kind = f"{core.graph_type.value} graph; " if core.graph_type else ""
    text = f"{kind}variables {', '.join(graph.variables)}; edges {edges}; intervened {graph.intervened}"
    if graph.preserve_facts or graph.change_facts:
        text += f"; preserve facts about {', '.join(_fact_note(f) for f in graph.preserve_facts) or 'none'}"
        text += f"; change facts about {', '.join(f.variable for f in graph.change_facts) or 'none'}"
    return text


# a graph with facts must link every criterion sentence (strict validation), so the model is asked for them
_GRAPH_KEY = (
    ', and "graph" (an object like the core example\'s graph: "variables", "edges" of '
    '{"source", "target"}, "intervened", with your own variable names)'
)
_GRAPH_KEY_WITH_FACTS = (
    ', and "graph" (an object like the core example\'s graph: "variables", "edges" of '
    '{"source", "target"}, "intervened", with your own variable names, and "preserve_facts" and '
    '"change_facts": one {"text", "variable"} object per preserve and per change sentence, "text" '
    'repeating the sentence exactly; add "holds_despite": true to a preserve fact that follows from '
    'the changed variable yet stays true because something else keeps it so, and "invariant": true '
    "to a physical law or fixed rule)"
)


def augment_messages(core: Scenario, slot: int, attempt: int) -> list[Message]:
    """The chat messages asking for new variation number `slot` of a core example."""
    system, user = prompt_texts()
    graph_key = ""
    if core.graph is not None:
        graph_key = _GRAPH_KEY_WITH_FACTS if core.graph.preserve_facts or core.graph.change_facts else _GRAPH_KEY
    text = user.format(
        domain=core.domain,
        story=core.story,
        intervention=core.intervention or "(not given)",
        original_condition=core.original_condition or "(not given)",
        illustrative_answer=core.illustrative_answer,
        preserve="\n".join(f"  - {s}" for s in core.preserve),
        change="\n".join(f"  - {s}" for s in core.change),
        structure=_structure(core),
        n_preserve=len(core.preserve),
        n_change=len(core.change),
        slot=slot,
        attempt=attempt,
        graph_key=graph_key,
    )
    return [Message(role="system", content=system), Message(role="user", content=text)]


def parse_output(text: str, core: Scenario, item_id: str, variation: int) -> Scenario:
    """The Scenario a model's answer describes; Rejected(reason, detail) when it is not usable."""
    cleaned = _FENCE.sub("", text.strip())
    start, end = cleaned.find("{"), cleaned.rfind("}")
    try:
        data = json.loads(cleaned[start : end + 1] if start != -1 and end > start else cleaned)
    except json.JSONDecodeError as exc:
        raise Rejected("invalid_json", f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, dict):
        raise Rejected("invalid_json", f"expected a JSON object, got {type(data).__name__}")
    if "queries" in data:
        # the queries are written from the clause by template; a model that lists a different
        # number of them has misread the task, so its other fields are suspect too
        given = data.pop("queries")
        if not isinstance(given, list) or len(given) != 3:
            count = len(given) if isinstance(given, list) else "non-list"
            raise Rejected("wrong_query_count", f"expected 3 queries, got {count}")
    intervention = data.get("intervention")
    if not isinstance(intervention, str) or not intervention.strip():
        raise Rejected("schema", "intervention: missing or not a string")
    intervention = re.sub(r"^(if|had)\s+", "", intervention.strip().rstrip("."), flags=re.I)
    try:
        queries = tier1_queries(intervention)
    except InputError as exc:
        raise Rejected("schema", f"intervention: {exc}") from None
    record: dict[str, Any] = {
        key: data[key]
        for key in ("domain", "story", "illustrative_answer", "preserve", "change", "original_condition", "graph")
        if key in data
    }
    extra = sorted(set(data) - set(record) - {"intervention"})
    if extra:
        raise Rejected("schema", f"{extra[0]}: unknown field")
    record.update(
        id=item_id,
        core_id=core.core_id,
        variation=variation,
        queries=queries,
        intervention=intervention,
        failure_modes=[m.value for m in core.failure_modes],
        tags=list(core.tags),
    )
    if core.graph_type is not None:
        record["graph_type"] = core.graph_type.value
    scenario, problems = validate_record(record, label="model output")
    if scenario is None:
        first = problems[0]
        raise Rejected("schema", f"{first.field}: {first.message}")
    if scenario.graph is not None and core.graph_type is not None:
        derived = derive_graph_type(scenario.graph)
        if derived is not None and derived != core.graph_type:
            raise Rejected("schema", f"graph: a {derived.value} graph, but the core example is {core.graph_type.value}")
    return scenario


class _Run:
    """State shared by the concurrent slots of one augmentation run."""

    def __init__(self, project: Project, spec: str, threshold: float, max_attempts: int) -> None:
        self.project, self.spec, self.max_attempts = project, spec, max_attempts
        self.fingerprint = prompt_fingerprint()
        self.result = AugmentResult()
        self.index = NearDupIndex(threshold)
        for item in project.items():
            if item.status != "rejected":
                self.index.add(item.id, item.scenario.story)

    def reject(self, core: Item, reason: str, detail: str) -> None:
        self.result.rejects[reason] += 1
        with self.project.transaction() as conn:
            conn.execute(
                "INSERT INTO augment_rejects (core_item, reason, detail, model, prompt_fingerprint, at)"
                " VALUES (?,?,?,?,?,?)",
                (core.id, reason, detail, self.spec, self.fingerprint, now()),
            )

    def accept(self, core: Item, text: str) -> str:
        # no await from here to add_item: id assignment and the duplicate check stay atomic
        variation = self.project.next_variation(core.core_id)
        scenario = parse_output(text, core.scenario, f"{core.core_id}v{variation}", variation)
        match = self.index.find(scenario.story)
        if match is not None:
            raise Rejected("near_duplicate", f"story {match.score:.0f}% like item {match.other_id}")
        self.project.add_item(
            scenario,
            status="variation",
            source="augment",
            actor=f"model:{self.spec}",
            reason=f"generated from {core.id}",
            parent_id=core.id,
            model=self.spec,
            prompt_fingerprint=self.fingerprint,
        )
        self.index.add(scenario.id, scenario.story)
        self.result.added.append(scenario.id)
        return scenario.id


async def _slot(run: _Run, caller: Any, provider: Any, core: Item, slot: int) -> None:
    for attempt in range(1, run.max_attempts + 1):
        messages = augment_messages(core.scenario, slot, attempt)
        run.result.calls += 1
        # `attempt` is part of the cache key, so a regeneration is a new call, not the cached bad one
        record = await caller.call(provider, messages, AUGMENT_CONFIG, role="augment", attempt=attempt)
        if record.text is None:  # the call failed after the engine's retries: it costs one attempt
            run.reject(core, "call_error", record.error or "no output")
            continue
        try:
            run.accept(core, record.text)
            return
        except Rejected as rej:
            run.reject(core, rej.reason, rej.detail)
    run.result.gave_up += 1


def _existing_variations(project: Project, core: Item) -> int:
    row = project.conn.execute(
        "SELECT COUNT(*) FROM items WHERE parent_id = ? AND status != 'rejected'", (core.id,)
    ).fetchone()
    return int(row[0])


async def augment_async(
    project: Project,
    model: str,
    per_core: int = 25,
    concurrency: int = 4,
    max_attempts: int = 3,
    threshold: float = DEFAULT_THRESHOLD,
    core_ids: list[str] | None = None,
    timeout: float | None = None,
) -> AugmentResult:
    """Bring every core example up to `per_core` generated variations (already made ones count); `timeout`:
    seconds per call attempt."""
    from cobe.calls import Caller
    from cobe.models import get_provider

    if per_core < 1 or max_attempts < 1 or concurrency < 1:
        raise InputError("--per-core, --max-attempts and --concurrency must be at least 1")
    cores = [c for c in project.items(*AUGMENTABLE, core_only=True) if core_ids is None or c.id in core_ids]
    if not cores:
        raise InputError(f"{project.root}: no core examples to augment; promote candidates with `cobe curate promote`")
    provider = get_provider(model)
    run = _Run(project, model, threshold, max_attempts)
    gate = asyncio.Semaphore(concurrency)
    caller = Caller.open(project.calls_path, concurrency=concurrency, timeout=timeout)

    async def guarded(core: Item, slot: int) -> None:
        async with gate:
            await _slot(run, caller, provider, core, slot)

    try:
        jobs: list[Coroutine[Any, Any, None]] = []
        for core in cores:
            have = _existing_variations(project, core)
            jobs.extend(guarded(core, slot) for slot in range(have + 1, per_core + 1))
        await asyncio.gather(*jobs)
    finally:
        await _close(caller, provider)
    return run.result


async def _close(caller: Any, provider: Any) -> None:
    await provider.aclose()
    caller.store.close()


def augment(project: Project, model: str, **options: Any) -> AugmentResult:
    """Synchronous wrapper of `augment_async` for the CLI and scripts."""
    return asyncio.run(augment_async(project, model, **options))


def reject_counts(project: Project) -> dict[str, int]:
    """Augmentation rejects recorded in the project, by reason (every reason listed, zero included)."""
    counts = {reason: 0 for reason in REJECT_REASONS}
    for row in project.conn.execute("SELECT reason, COUNT(*) AS n FROM augment_rejects GROUP BY reason"):
        counts[row["reason"]] = row["n"]
    return counts
