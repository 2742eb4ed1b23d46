"""The causal graph of a scenario: its graph type, and the checks its criteria must pass.

Graph-type rules (edges are directed cause → effect unless `bidirected`; the degrees below
count directed edges only; a *fork node* has two or more children, a *collider node* two or
more parents):

- **correlated**: the graph has at least one bidirected edge (a shared hidden cause);
- **chain**: no fork or collider node, and the directed edges form one path through every
  variable they touch (two or more variables);
- **fork**: at least one fork node and no collider node;
- **collider**: at least one collider node and no fork node;
- **diamond**: exactly one fork node X and exactly one collider node Y, and two different
  children of X each reach Y or are Y (X→A→Y and X→B→Y, or the collapsed X→A→Y, X→Y):
  the graph splits at X and re-joins at Y;
- **hybrid**: fork and collider nodes that do not form exactly one such split-and-rejoin;
- no type (None): no directed edge at all, or paths that are not connected.

Checks on a graph with facts: every preserve fact is about a variable that the intervention
cannot reach (not the intervened variable, not a descendant), unless the fact is invariant
(a physical law or a definition) or marked `holds_despite` (a descendant that another cause
keeps true; the flag must sit on a descendant, not on the intervened variable or on a variable
out of reach); every change fact is about the intervened variable or a descendant and carries
neither flag; edges and facts name known variables; the directed edges have no cycle.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from cobe.dataset.schema import CausalGraph, Fact, GraphType


@dataclass(frozen=True)
class GraphFinding:
    """One problem with a scenario's graph."""

    severity: str  # error | warning
    field: str
    message: str


def children_of(graph: CausalGraph) -> dict[str, list[str]]:
    """Each variable's direct effects along directed edges."""
    children: dict[str, list[str]] = defaultdict(list)
    for edge in graph.edges:
        if not edge.bidirected:
            children[edge.source].append(edge.target)
    return children


def descendants(graph: CausalGraph, variable: str) -> set[str]:
    """Every variable reachable from `variable` along directed edges (itself excluded)."""
    children = children_of(graph)
    seen: set[str] = set()
    stack = list(children.get(variable, []))
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(children.get(node, []))
    seen.discard(variable)
    return seen


def find_cycle(graph: CausalGraph) -> list[str] | None:
    """A directed cycle as a list of variables, or None when the graph is acyclic."""
    children = children_of(graph)
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for child in children.get(node, []):
            if state.get(child) == 1:
                return path[path.index(child) :] + [child]
            if child not in state and (found := visit(child)):
                return found
        state[node] = 2
        path.pop()
        return None

    for start in sorted(children):
        if start not in state and (found := visit(start)):
            return found
    return None


def derive_graph_type(graph: CausalGraph) -> GraphType | None:
    """The graph type the module docstring's rules give for `graph`."""
    if any(edge.bidirected for edge in graph.edges):
        return GraphType.correlated
    directed = [(e.source, e.target) for e in graph.edges if not e.bidirected]
    if not directed:
        return None
    children, parents = children_of(graph), defaultdict(list)
    for source, target in directed:
        parents[target].append(source)
    forks = [node for node, kids in children.items() if len(set(kids)) >= 2]
    colliders = [node for node, ups in parents.items() if len(set(ups)) >= 2]
    if not forks and not colliders:
        return GraphType.chain if _is_single_path(directed) else None
    if forks and not colliders:
        return GraphType.fork
    if colliders and not forks:
        return GraphType.collider
    if len(forks) == 1 and len(colliders) == 1 and _splits_and_rejoins(graph, forks[0], colliders[0]):
        return GraphType.diamond
    return GraphType.hybrid


def _is_single_path(directed: list[tuple[str, str]]) -> bool:
    nodes = {n for edge in directed for n in edge}
    targets = {t for _, t in directed}
    starts = nodes - targets
    if len(starts) != 1 or len(set(directed)) != len(nodes) - 1:
        return False
    following = dict(directed)
    node, visited = next(iter(starts)), 1
    while node in following:
        node, visited = following[node], visited + 1
    return visited == len(nodes)


def _splits_and_rejoins(graph: CausalGraph, fork: str, collider: str) -> bool:
    reaching = [kid for kid in set(children_of(graph)[fork]) if kid == collider or collider in descendants(graph, kid)]
    return len(reaching) >= 2


def check_graph(graph: CausalGraph, preserve: list[str], change: list[str]) -> list[GraphFinding]:
    """Every problem with `graph` and its links to the preserve and change criteria."""
    found: list[GraphFinding] = []
    known = set(graph.variables)
    if len(known) != len(graph.variables):
        found.append(GraphFinding("error", "graph.variables", "a variable is listed twice"))
    for i, edge in enumerate(graph.edges):
        for end in (edge.source, edge.target):
            if end not in known:
                found.append(GraphFinding("error", f"graph.edges[{i}]", f"edge names unknown variable {end!r}"))
    if graph.intervened not in known:
        found.append(GraphFinding("error", "graph.intervened", f"unknown variable {graph.intervened!r}"))
    if cycle := find_cycle(graph):
        found.append(GraphFinding("error", "graph.edges", f"directed cycle {' → '.join(cycle)}"))
        return found  # descendants are meaningless in a cyclic graph
    below = descendants(graph, graph.intervened)
    reach = below | {graph.intervened}
    for i, fact in enumerate(graph.preserve_facts):
        where = f"graph.preserve_facts[{i}]"
        if fact.variable not in known:
            found.append(GraphFinding("error", where, f"unknown variable {fact.variable!r}"))
        else:
            found += _preserve_findings(graph, fact, where, below)
    for i, fact in enumerate(graph.change_facts):
        where = f"graph.change_facts[{i}]"
        if fact.variable not in known:
            found.append(GraphFinding("error", where, f"unknown variable {fact.variable!r}"))
        elif fact.invariant:
            found.append(GraphFinding("error", where, "a fact that must change cannot be invariant"))
        elif fact.holds_despite:
            found.append(GraphFinding("error", where, "a fact that must change cannot hold despite the intervention"))
        elif fact.variable not in reach:
            found.append(
                GraphFinding(
                    "error",
                    where,
                    f"changed fact is about {fact.variable!r}, which the intervention on {graph.intervened!r} cannot reach; expected the intervened variable or a descendant",
                )
            )
    found += _unlinked("preserve", preserve, graph.preserve_facts)
    found += _unlinked("change", change, graph.change_facts)
    return found


def _preserve_findings(graph: CausalGraph, fact: Fact, where: str, below: set[str]) -> list[GraphFinding]:
    """What is wrong with one preserve fact about a known variable, given the intervention's descendants."""
    on, variable = graph.intervened, fact.variable
    if fact.holds_despite and variable == on:
        return [
            GraphFinding(
                "error",
                where,
                f"holds_despite on the intervened variable {on!r}: the intervention always changes it; expected a descendant",
            )
        ]
    if fact.holds_despite and variable not in below:
        return [
            GraphFinding(
                "warning",
                where,
                f"holds_despite, but the intervention on {on!r} cannot reach {variable!r}; drop the flag or fix the edges",
            )
        ]
    if (variable == on or variable in below) and not (fact.invariant or fact.holds_despite):
        return [
            GraphFinding(
                "error",
                where,
                f"preserved fact is about {variable!r}, which the intervention on {on!r} reaches; expected a non-descendant, an invariant fact, or holds_despite: true for a consequence that another cause keeps true",
            )
        ]
    return []


def _unlinked(name: str, sentences: list[str], facts: list[Fact]) -> list[GraphFinding]:
    linked = {fact.text.strip() for fact in facts}
    return [
        GraphFinding("warning", f"{name}[{i}]", f"sentence is linked to no graph fact: {sentence!r}")
        for i, sentence in enumerate(sentences)
        if sentence.strip() not in linked
    ]
