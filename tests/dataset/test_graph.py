"""Graph-type derivation for each of the six types, and the graph checks on criteria."""

from __future__ import annotations

import pytest

from cobe.dataset import CausalGraph, GraphType, check_graph, derive_graph_type


def graph(*edges: str, intervened: str = "X", **facts: list[dict]) -> CausalGraph:
    """A graph from edges written 'A>B' (directed) or 'A~B' (bidirected)."""
    parsed = []
    for e in edges:
        sep = ">" if ">" in e else "~"
        a, b = e.split(sep)
        parsed.append({"source": a, "target": b, "bidirected": sep == "~"})
    names = sorted({n for e in parsed for n in (e["source"], e["target"])} | {intervened})
    return CausalGraph(variables=names, edges=parsed, intervened=intervened, **facts)


@pytest.mark.parametrize(
    "edges, expected",
    [
        (("X>A", "A>Y"), GraphType.chain),
        (("X>Y",), GraphType.chain),
        (("X>A", "X>B"), GraphType.fork),
        (("A>Y", "X>Y"), GraphType.collider),
        (("X>A", "X>B", "A>Y", "B>Y"), GraphType.diamond),
        (("X>A", "A>Y", "X>Y"), GraphType.diamond),  # the collapsed split-and-rejoin
        (("X>A", "A>Y", "Z~A"), GraphType.correlated),
        (("X>A", "X>B", "A>Y", "C>Y", "C>D"), GraphType.hybrid),
        (("X>A", "B>C"), None),  # two disconnected paths follow no rule
    ],
)
def test_derived_graph_type(edges: tuple[str, ...], expected: GraphType | None) -> None:
    assert derive_graph_type(graph(*edges)) == expected


def test_consistent_graph_has_no_findings() -> None:
    g = graph(
        "X>A",
        "B>A",
        preserve_facts=[
            {"text": "B held.", "variable": "B"},
            {"text": "Water boils at 100 C.", "variable": "A", "invariant": True},
        ],
        change_facts=[{"text": "A happened.", "variable": "A"}],
    )
    assert check_graph(g, ["B held.", "Water boils at 100 C."], ["A happened."]) == []


def test_preserved_descendant_and_unreachable_change_are_errors() -> None:
    g = graph(
        "X>A",
        "B>A",
        preserve_facts=[{"text": "A happened.", "variable": "A"}],
        change_facts=[{"text": "B held.", "variable": "B"}],
    )
    found = [(f.severity, f.field) for f in check_graph(g, ["A happened."], ["B held.", "Unlinked."])]
    assert found == [
        ("error", "graph.preserve_facts[0]"),
        ("error", "graph.change_facts[0]"),
        ("warning", "change[1]"),
    ]


def test_unknown_variables_and_cycles_are_errors() -> None:
    g = CausalGraph(
        variables=["X", "A"],
        edges=[{"source": "X", "target": "A"}, {"source": "A", "target": "X"}, {"source": "A", "target": "Q"}],
        intervened="X",
    )
    messages = [f.message for f in check_graph(g, [], [])]
    assert messages[0] == "edge names unknown variable 'Q'"
    assert messages[1].startswith("directed cycle A → X → A")


def umbrella_graph(**flags: bool) -> CausalGraph:
    """Forecast → expects rain → takes umbrella ← bent spoke: the umbrella is taken either way."""
    return graph(
        "X>E",
        "E>U",
        "S>U",
        preserve_facts=[{"text": "Lena took her umbrella.", "variable": "U", **flags}],
        change_facts=[{"text": "Lena expected rain.", "variable": "E"}],
    )


def test_a_descendant_that_holds_despite_the_intervention_may_be_preserved() -> None:
    assert check_graph(umbrella_graph(holds_despite=True), ["Lena took her umbrella."], ["Lena expected rain."]) == []
    # without the flag the same fact is the error it always was
    unflagged = check_graph(umbrella_graph(), ["Lena took her umbrella."], ["Lena expected rain."])
    assert [(f.severity, f.field) for f in unflagged] == [("error", "graph.preserve_facts[0]")]
    assert "holds_despite: true" in unflagged[0].message


def test_holds_despite_is_checked_where_it_sits() -> None:
    g = graph(
        "X>A",
        "B>A",
        preserve_facts=[
            {"text": "X held.", "variable": "X", "holds_despite": True},
            {"text": "B held.", "variable": "B", "holds_despite": True},
        ],
        change_facts=[{"text": "A happened.", "variable": "A", "holds_despite": True}],
    )
    found = [
        (f.severity, f.field, f.message.split(":")[0]) for f in check_graph(g, ["X held.", "B held."], ["A happened."])
    ]
    assert found == [
        ("error", "graph.preserve_facts[0]", "holds_despite on the intervened variable 'X'"),
        (
            "warning",
            "graph.preserve_facts[1]",
            "holds_despite, but the intervention on 'X' cannot reach 'B'; drop the flag or fix the edges",
        ),
        ("error", "graph.change_facts[0]", "a fact that must change cannot hold despite the intervention"),
    ]
