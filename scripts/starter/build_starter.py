"""Build the bundled starter dataset, src/cobe/dataset/builtin/starter.jsonl, from stories.py.

Every record is a `Scenario` built and validated by the pydantic model; its three queries are
written from the intervention clause by `tier1_queries`. Besides the model's own validation this
script checks what makes the set usable as a benchmark sample: ids and variations, story length,
each criterion sentence linked to exactly one graph fact, the graph checks of
`cobe.dataset.graph.check_graph` (preserve facts outside the intervention's reach unless
invariant or holding despite it, change facts inside it), the graph-type label against the
graph's shape, and that the three variations of a core share one causal structure.

    .venv/bin/python scripts/starter/build_starter.py            # write the file
    .venv/bin/python scripts/starter/build_starter.py --check    # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))

from stories import CORES  # noqa: E402

from cobe.dataset.graph import check_graph, children_of  # noqa: E402
from cobe.dataset.queries import tier1_queries  # noqa: E402
from cobe.dataset.schema import CausalGraph, Edge, Fact, Scenario, make_id  # noqa: E402

OUTPUT = ROOT / "src" / "cobe" / "dataset" / "builtin" / "starter.jsonl"
MIN_WORDS, MAX_WORDS = 20, 55
MAX_CHANGE = 4


class StarterError(Exception):
    """A problem in the source data; the message names the scenario."""


# ── graph helpers (the rules in tests/dataset/test_starter.py and the dataset docs) ─────────


def parse_edges(spec: str) -> tuple[list[str], list[Edge]]:
    """'a>b b<>c' → variables in order of first appearance, and the edges."""
    variables: list[str] = []
    edges: list[Edge] = []
    for token in spec.split():
        bidirected = "<>" in token
        source, target = token.split("<>" if bidirected else ">")
        for name in (source, target):
            if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
                raise StarterError(f"variable {name!r} is not snake_case")
            if name not in variables:
                variables.append(name)
        edges.append(Edge(source=source, target=target, bidirected=bidirected))
    return variables, edges


def shape_of(graph: CausalGraph) -> str:
    """The graph type that the graph's structure gives."""
    if any(edge.bidirected for edge in graph.edges):
        return "correlated"
    directed = [(e.source, e.target) for e in graph.edges]
    kids = children_of(graph)
    parents: dict[str, list[str]] = defaultdict(list)
    for source, target in directed:
        parents[target].append(source)
    forks = [n for n, k in kids.items() if len(k) >= 2]
    colliders = [n for n, p in parents.items() if len(p) >= 2]
    nodes = set(graph.variables)
    if not forks and not colliders:
        starts = [n for n in nodes if not parents[n]]
        return "chain" if len(starts) == 1 and len(directed) == len(nodes) - 1 else "none"
    if forks and not colliders:
        return "fork"
    if colliders and not forks:
        return "collider"
    if len(nodes) == 4 and len(directed) == 4 and len(forks) == 1 and len(colliders) == 1:
        x, y = forks[0], colliders[0]
        middle = set(kids[x])
        if len(middle) == 2 and y not in middle and all(kids[m] == [y] for m in middle):
            return "diamond"
    return "hybrid"


def signature(graph: CausalGraph) -> tuple:
    """A structure fingerprint: degree profile of every node and of the intervened node."""
    indeg, outdeg, bidi = Counter(), Counter(), Counter()
    for edge in graph.edges:
        if edge.bidirected:
            bidi[edge.source] += 1
            bidi[edge.target] += 1
        else:
            outdeg[edge.source] += 1
            indeg[edge.target] += 1
    profile = sorted((indeg[n], outdeg[n], bidi[n]) for n in graph.variables)
    do = graph.intervened
    return len(graph.variables), tuple(profile), (indeg[do], outdeg[do], bidi[do])


# ── building ─────────────────────────────────────────────────────────────────────────────────


def facts(entries: list[tuple]) -> tuple[list[str], list[Fact]]:
    """Criterion sentences and their graph facts; a third element names a flag (INV or DESPITE)."""
    texts, linked = [], []
    for entry in entries:
        text, variable, *flags = entry
        unknown = set(flags) - {"invariant", "holds_despite"}
        if unknown:
            raise StarterError(f"fact {text!r}: unknown flag {sorted(unknown)[0]!r}")
        texts.append(text)
        linked.append(Fact(text=text, variable=variable, **{flag: True for flag in flags}))
    return texts, linked


def build_one(core_id: int, variation: int, core: dict, spec: dict) -> Scenario:
    sid = make_id(core_id, variation)
    variables, edges = parse_edges(spec["graph"])
    preserve, preserve_facts = facts(spec["preserve"])
    change, change_facts = facts(spec["change"])
    graph = CausalGraph(
        variables=variables,
        edges=edges,
        intervened=spec["do"],
        preserve_facts=preserve_facts,
        change_facts=change_facts,
    )
    scenario = Scenario(
        id=sid,
        core_id=core_id,
        variation=variation,
        domain=spec["domain"],
        story=spec["story"],
        queries=tier1_queries(spec["intervention"]),
        illustrative_answer=spec["illustrative_answer"],
        preserve=preserve,
        change=change,
        graph_type=core["graph_type"],
        failure_modes=core["failure_modes"],
        tags=core["tags"],
        intervention=spec["intervention"],
        original_condition=spec["original_condition"],
        graph=graph,
    )
    check(scenario)
    return scenario


def check(s: Scenario) -> None:
    """Raise StarterError on the first rule the scenario breaks."""

    def fail(message: str) -> None:
        raise StarterError(f"{s.id}: {message}")

    words = len(s.story.split())
    if not MIN_WORDS <= words <= MAX_WORDS:
        fail(f"story has {words} words (want {MIN_WORDS}–{MAX_WORDS})")
    # one change sentence per derived figure (core 17: the total and each share apart), so up to 4
    if not 1 <= len(s.preserve) <= 3 or not 1 <= len(s.change) <= MAX_CHANGE:
        fail(f"want 1–3 preserve and 1–{MAX_CHANGE} change sentences")
    if " had " not in (s.intervention or "") or s.intervention.rstrip() != s.intervention:
        fail("intervention must be a past-perfect clause with ' had '")
    g = s.graph
    assert g is not None
    # the same graph checks `cobe data validate --strict` applies: warnings count as errors here
    for finding in check_graph(g, s.preserve, s.change):
        fail(f"{finding.field}: {finding.message}")
    if shape_of(g) != s.graph_type.value:
        fail(f"labelled {s.graph_type.value} but the graph is {shape_of(g)}")
    if set(s.preserve) & set(s.change):
        fail("a sentence is both preserved and changed")


def build() -> list[Scenario]:
    if len(CORES) != 20:
        raise StarterError(f"expected 20 cores, found {len(CORES)}")
    scenarios: list[Scenario] = []
    for core_id, core in enumerate(CORES, start=1):
        variations = [build_one(core_id, v, core, spec) for v, spec in enumerate(core["variations"], start=1)]
        if len(variations) != 3:
            raise StarterError(f"core {core_id}: expected 3 variations, found {len(variations)}")
        shapes = {signature(s.graph) for s in variations}
        if len(shapes) != 1:
            raise StarterError(f"core {core_id}: variations do not share one causal structure: {shapes}")
        scenarios.extend(variations)
    stories = [s.story for s in scenarios]
    if len(set(stories)) != len(stories):
        raise StarterError("two scenarios tell the same story")
    return sorted(scenarios, key=lambda s: (s.core_id, s.variation))


def render(scenarios: list[Scenario]) -> str:
    return "".join(json.dumps(s.model_dump(mode="json"), ensure_ascii=False) + "\n" for s in scenarios)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--check", action="store_true", help="fail if the output file is not up to date")
    args = parser.parse_args(argv)
    try:
        scenarios = build()
    except StarterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    text = render(scenarios)
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date; run {Path(__file__).name}", file=sys.stderr)
            return 1
        print(f"{args.output}: up to date ({len(scenarios)} scenarios)")
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    counts = Counter(s.graph_type.value for s in scenarios)
    print(f"wrote {len(scenarios)} scenarios to {args.output} ({dict(sorted(counts.items()))})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
