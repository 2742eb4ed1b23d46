"""The site's `category-examples.json` names its graph groups `Chain-like` … `Hydrid` (sic): each key labels every
example under it, its core set's other examples take it too (a graph type is per core set), a `by_domain` key
labels its example alone, and a label no spelling of a known type is one warning naming it."""

from __future__ import annotations

import json
from pathlib import Path

from cobe.dataset import load_dataset, read_file
from cobe.dataset.graph_labels import read_graph_type
from cobe.dataset.schema import UNKNOWN_DOMAIN
from cobe.dataset.stats import dataset_stats
from support.cli import run_cobe

#: the site's by_graph keys as it spells them → the type each means
SITE_GRAPHS = {
    "Chain-like": "chain",
    "Collider-like": "collider",
    "Correlated": "correlated",
    "Diamond-like": "diamond",
    "Fork-like": "fork",
    "Hydrid": "hybrid",
}
DOMAINS = ["Health and Medicine", "Engineering", "Economics and Finance"]


def _example(core: int, variation: int) -> dict[str, object]:
    """One site example with the models' judged answers, as the site nests them."""
    return {
        "example_id": f"{core}v{variation}",
        "coreset_id": core,
        "variation_id": variation,
        "query_idx": 2,
        "original": f"Clerk {core} locked the depot at {variation} because the trucks had left. The yard stayed dark.",
        "query": "Rewrite the original text, based on what would have happened instead had the trucks stayed.",
        "gold_answer": "The trucks stayed, so the clerk kept the depot open and the yard stayed lit.",
        "should_not_change": [f"Clerk {core} worked at the depot."],
        "should_change": ["The yard stayed dark."],
        "model_outputs": {
            "gpt": {"response": "The trucks stayed; the depot stayed open.", "verdict": "correct"},
            "claude": {"response": "The clerk locked the depot anyway.", "verdict": "wrong"},
        },
    }


def category_file(path: Path, unknown: str | None = None) -> Path:
    """Six core sets (one per graph key), four variations each: variation 1 under by_graph, variations 1-3
    under by_domain (1 in both, as the site lists it), variation 4 in by_graph only if the core is hybrid."""
    by_graph: dict[str, list[dict[str, object]]] = {}
    by_domain: dict[str, list[dict[str, object]]] = {d: [] for d in DOMAINS}
    for i, key in enumerate([*SITE_GRAPHS, *([unknown] if unknown else [])]):
        core = 300 + i
        by_graph[key] = [_example(core, 1)]
        for variation in (1, 2, 3):
            by_domain[DOMAINS[variation - 1]].append(_example(core, variation))
    by_graph["Hydrid"].append(_example(305, 4))
    document = {"examples_per_category": 10, "by_domain": by_domain, "by_graph": by_graph}
    path.write_text(json.dumps(document, indent=1))
    return path


def test_the_sites_spellings_read_as_the_six_graph_types() -> None:
    assert {key: getattr(read_graph_type(key), "value", None) for key in SITE_GRAPHS} == SITE_GRAPHS
    assert read_graph_type(" chain like ") is not None and read_graph_type("Spiral-like") is None


def test_a_group_key_labels_every_example_and_its_core_set(tmp_path: Path) -> None:
    result = read_file(category_file(tmp_path / "category-examples.json"))
    assert not result.errors and len(result.scenarios) == 19
    assert not [p for p in result.problems if p.field == "graph_type"]
    graph = {s.id: s.graph_type.value if s.graph_type else None for s in result.scenarios}
    for i, label in enumerate(SITE_GRAPHS.values()):  # variations 2-3 sit in by_domain only: the core's type
        assert {graph[f"{300 + i}v{v}"] for v in (1, 2, 3)} == {label}
    assert graph["305v4"] == "hybrid"
    domain = {s.id: s.domain for s in result.scenarios}
    # a domain is per variation: 305v4, in by_graph only, takes none from its core's other examples
    assert domain["300v1"] == DOMAINS[0] and domain["300v3"] == DOMAINS[2] and domain["305v4"] == UNKNOWN_DOMAIN
    shares = dataset_stats(load_dataset(tmp_path / "category-examples.json").scenarios)["graph_type_shares"]
    assert set(shares) == set(SITE_GRAPHS.values()) and "unlabelled" not in shares
    assert shares["hybrid"] == 21.1 and shares["chain"] == 15.8  # 4 of 19, 3 of 19


def test_data_stats_shows_six_graph_types_and_an_unknown_label_is_one_warning(tmp_path: Path) -> None:
    path = category_file(tmp_path / "category-examples.json", unknown="Spiral-like")
    r = run_cobe("data", "stats", str(path), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    shares = json.loads(r.stdout)["graph_type_shares"]
    assert shares == {
        "hybrid": 18.2,
        "unlabelled": 13.6,
        **dict.fromkeys(["chain", "collider", "correlated", "diamond", "fork"], 13.6),
    }
    r = run_cobe("data", "validate", str(path), cwd=tmp_path)
    said = [line for line in (r.stdout + r.stderr).splitlines() if "graph type" in line]
    assert len(said) == 1 and "'Spiral-like' on 3 scenarios" in said[0] and "left unlabelled" in said[0]


def test_an_imported_site_file_carries_the_graph_types_into_its_rows(tmp_path: Path) -> None:
    path = category_file(tmp_path / "category-examples.json")
    r = run_cobe("import", str(path), "--from", "cobe-site", "--out", "site", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in (tmp_path / "site" / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2 * 19 and {row["graph_type"] for row in rows} == set(SITE_GRAPHS.values())
