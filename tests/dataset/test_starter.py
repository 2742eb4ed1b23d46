"""The bundled starter dataset: 20 cores × 3 variations, with sound criteria and graphs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from cobe.dataset.queries import tier1_queries
from cobe.dataset.schema import FailureMode, GraphType, Scenario

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "src" / "cobe" / "dataset" / "builtin" / "starter.jsonl"
BUILD = ROOT / "scripts" / "starter" / "build_starter.py"


def _load() -> list[Scenario]:
    lines = STARTER.read_text(encoding="utf-8").splitlines()
    return [Scenario.model_validate(json.loads(line)) for line in lines if line.strip()]


SCENARIOS = _load()
IDS = [s.id for s in SCENARIOS]


# ── local graph helpers (directed edges only; bidirected edges mark a hidden common cause) ──


def _children(s: Scenario) -> dict[str, list[str]]:
    kids: dict[str, list[str]] = defaultdict(list)
    for edge in s.graph.edges:
        if not edge.bidirected:
            kids[edge.source].append(edge.target)
    return kids


def _descendants(s: Scenario, node: str) -> set[str]:
    kids, seen, stack = _children(s), set(), list(_children(s)[node])
    while stack:
        current = stack.pop()
        if current not in seen:
            seen.add(current)
            stack.extend(kids[current])
    return seen - {node}


def _graph_type(s: Scenario) -> str:
    """correlated: a bidirected edge; chain: one directed path, ≤1 parent and ≤1 child each;
    fork: a node with ≥2 children, none with ≥2 parents; collider: the reverse; diamond:
    exactly X→A, X→B, A→Y, B→Y; hybrid: both kinds of node otherwise."""
    edges = s.graph.edges
    if any(e.bidirected for e in edges):
        return "correlated"
    kids = _children(s)
    parents: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        parents[e.target].append(e.source)
    nodes = set(s.graph.variables)
    forks = [n for n in nodes if len(kids[n]) >= 2]
    colliders = [n for n in nodes if len(parents[n]) >= 2]
    if not forks and not colliders:
        roots = [n for n in nodes if not parents[n]]
        return "chain" if len(roots) == 1 and len(edges) == len(nodes) - 1 else "none"
    if forks and not colliders:
        return "fork"
    if colliders and not forks:
        return "collider"
    if len(nodes) == 4 and len(edges) == 4 and len(forks) == 1 and len(colliders) == 1:
        x, y = forks[0], colliders[0]
        middle = set(kids[x])
        if len(middle) == 2 and y not in middle and all(kids[m] == [y] for m in middle):
            return "diamond"
    return "hybrid"


# ── the set as a whole ─────────────────────────────────────────────────────────────────────


def test_size_and_ids():
    assert len(SCENARIOS) >= 60
    assert len(set(IDS)) == len(IDS)
    by_core = defaultdict(list)
    for s in SCENARIOS:
        assert s.id == f"{s.core_id}v{s.variation}"
        by_core[s.core_id].append(s.variation)
    assert sorted(by_core) == list(range(1, 21))
    assert all(sorted(v) == [1, 2, 3] for v in by_core.values())


def test_sorted_by_core_then_variation():
    keys = [(s.core_id, s.variation) for s in SCENARIOS]
    assert keys == sorted(keys)


def test_coverage():
    assert len({s.domain for s in SCENARIOS}) >= 7
    assert {s.graph_type for s in SCENARIOS} == set(GraphType)
    assert {m for s in SCENARIOS for m in s.failure_modes} == set(FailureMode)
    tags = Counter(t for s in SCENARIOS for t in s.tags)
    assert tags["numeric"] >= 6
    assert tags["latent"] >= 6


def test_graph_types_roughly_balanced():
    counts = Counter(s.graph_type for s in SCENARIOS)
    assert min(counts.values()) >= 6
    assert max(counts.values()) <= 15


def test_variations_keep_core_metadata():
    by_core = defaultdict(list)
    for s in SCENARIOS:
        by_core[s.core_id].append(s)
    for group in by_core.values():
        assert len({(g.graph_type, tuple(g.failure_modes), tuple(g.tags)) for g in group}) == 1
        assert len({len(g.graph.variables) for g in group}) == 1
        assert len({len(g.graph.edges) for g in group}) == 1
        assert len({g.story for g in group}) == 3


def test_file_is_up_to_date_with_its_source():
    done = subprocess.run([sys.executable, str(BUILD), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# ── every scenario ─────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("s", SCENARIOS, ids=IDS)
def test_fields(s: Scenario):
    assert s.story.strip() and 15 <= len(s.story.split()) <= 60
    assert s.illustrative_answer.strip()
    assert s.illustrative_answer != s.story
    assert 1 <= len(s.preserve) <= 3 and all(p.strip() for p in s.preserve)
    # up to 4: each derived figure has a change sentence of its own (see the corrections below)
    assert 1 <= len(s.change) <= 4 and all(c.strip() for c in s.change)
    assert s.intervention and " had " in s.intervention
    assert s.original_condition and s.original_condition.strip()
    assert s.graph_type is not None
    assert s.failure_modes
    assert s.domain.strip()


@pytest.mark.parametrize("s", SCENARIOS, ids=IDS)
def test_queries_follow_tier1(s: Scenario):
    assert len(s.queries) == 3
    assert s.queries == tier1_queries(s.intervention)


@pytest.mark.parametrize("s", SCENARIOS, ids=IDS)
def test_criteria_linked_to_graph(s: Scenario):
    g = s.graph
    assert g is not None and g.intervened in g.variables
    for sentences, linked in ((s.preserve, g.preserve_facts), (s.change, g.change_facts)):
        texts = [f.text for f in linked]
        assert sorted(texts) == sorted(sentences)
        for sentence in sentences:
            assert texts.count(sentence) == 1
    for fact in g.preserve_facts + g.change_facts:
        assert fact.variable in g.variables
    for edge in g.edges:
        assert edge.source in g.variables and edge.target in g.variables


@pytest.mark.parametrize("s", SCENARIOS, ids=IDS)
def test_preserve_outside_and_change_inside_the_intervention(s: Scenario):
    g = s.graph
    reach = _descendants(s, g.intervened) | {g.intervened}
    for fact in g.preserve_facts:
        assert fact.invariant or fact.holds_despite or fact.variable not in reach, fact.text
    for fact in g.change_facts:
        assert not fact.invariant and not fact.holds_despite and fact.variable in reach, fact.text


@pytest.mark.parametrize("s", SCENARIOS, ids=IDS)
def test_the_intervened_fact_is_listed_in_change(s: Scenario):
    """7v1 and 7v2 once left it out: an answer that kept the old choice could pass."""
    assert any(f.variable == s.graph.intervened for f in s.graph.change_facts), s.change


@pytest.mark.parametrize("s", [s for s in SCENARIOS if "numeric" in s.tags], ids=lambda s: s.id)
def test_each_numeric_change_sentence_states_one_figure(s: Scenario):
    """A total and its derived figure in one sentence ("$42 in total, or $21 each") let an answer
    update one, keep the other stale, and still pass the change check."""
    for sentence in s.change:
        assert len(re.findall(r"\d[\d,.]*", sentence)) <= 1, sentence


# ── the corrections, one by one ────────────────────────────────────────────────────────────

BY_ID = {s.id: s for s in SCENARIOS}


def test_core_17_gives_the_total_and_each_share_their_own_sentences():
    assert BY_ID["17v1"].change == [
        "Uma paid $30 for the two tickets.",
        "The evening cost $42 in total.",
        "Uma and Rex each paid $21.",
    ]
    assert BY_ID["17v2"].change[1:] == ["The soup came to 4 litres.", "The soup filled eight jars."]
    assert BY_ID["17v3"].change[1:] == ["The club rode 105 kilometres in all.", "The ride raised $105."]
    for s in (BY_ID["17v1"], BY_ID["17v2"], BY_ID["17v3"]):
        # the total and the figure derived from it are facts about two different variables
        linked = [f.variable for f in s.graph.change_facts]
        assert len(set(linked)) == len(linked) == 3


def test_9v1_replaces_the_stay_and_keeps_no_custom_the_answer_drops():
    s = BY_ID["9v1"]
    assert "instead" in s.intervention and all("instead of returning to Lisbon" in q for q in s.queries)
    assert s.preserve == ["Twenty years ago Carla spent her honeymoon at a small guesthouse in Lisbon."]
    assert not any("greets every returning guest" in p for p in s.preserve)


@pytest.mark.parametrize(
    ("sid", "law", "kept"),
    [
        ("3v3", "Yeast dough rises very slowly in the cold.", "Farid mixed fresh yeast into his bread dough."),
        (
            "15v2",
            "Beans cook more slowly in water that boils below 100 degrees.",
            "Ana lives in a mountain town where water boils at about 92 degrees.",
        ),
        (
            "15v3",
            "Frost damages tomato plants that are left uncovered.",
            "A hard frost fell on Tuesday night and whitened the lawn.",
        ),
    ],
)
def test_laws_the_story_never_states_are_not_criteria(sid: str, law: str, kept: str):
    s = BY_ID[sid]
    assert law not in s.preserve and s.preserve == [kept]
    assert not any(f.invariant for f in s.graph.preserve_facts)


def test_7v1_and_7v2_name_the_intervened_choice_in_change():
    assert BY_ID["7v1"].change[0] == "Lena went to the office on Tuesday."
    assert BY_ID["7v2"].change[0] == "Aisha went into town on Monday to buy a birthday present."


@pytest.mark.parametrize("s", SCENARIOS, ids=IDS)
def test_graph_matches_its_type(s: Scenario):
    assert _graph_type(s) == s.graph_type.value


def test_local_type_rules():
    from cobe.dataset.schema import CausalGraph, Edge

    def typed(spec: str) -> str:
        edges = []
        for token in spec.split():
            bidirected = "<>" in token
            source, target = token.split("<>" if bidirected else ">")
            edges.append(Edge(source=source, target=target, bidirected=bidirected))
        names = list(dict.fromkeys(n for e in edges for n in (e.source, e.target)))
        graph = CausalGraph(variables=names, edges=edges, intervened=names[0])
        return _graph_type(
            Scenario(
                id="1v1",
                core_id=1,
                variation=1,
                domain="x",
                story="x",
                queries=[],
                preserve=["x"],
                change=["x"],
                graph=graph,
            )
        )

    assert typed("a>b b>c") == "chain"
    assert typed("a>b a>c") == "fork"
    assert typed("a>c b>c") == "collider"
    assert typed("x>a x>b a>y b>y") == "diamond"
    assert typed("x>a x>b a>y b>y y>z") == "hybrid"
    assert typed("a>b a<>c") == "correlated"
    assert typed("a>b c>d") == "none"


def test_the_cli_validator_accepts_it_strictly():
    validate = pytest.importorskip("cobe.dataset.validate")
    problems = validate.validate_paths([STARTER], strict=True)
    assert problems == [], [str(p) for p in problems]


def test_readme_and_card_say_the_set_is_easier_than_cobe():
    card = (STARTER.parent / "starter.md").read_text(encoding="utf-8")
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "**easier than CoBe**" in card and "builtin:starter" in card
    assert "The bundled starter set (`builtin:starter`, our own 60 stories) is easier than CoBe" in readme
