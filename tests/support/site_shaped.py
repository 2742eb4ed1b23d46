"""A judged results file shaped like the CoBe site's `category-examples.json`, large enough that its breakdown
cells hold several phrasings each: one query per scenario, `unknown` verdicts, examples grouped by key
(`by_graph`: a graph type per core set; `by_domain`: one domain per variation), three models. Our own stories."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

#: the site's graph keys (as it spells them) and a few domains, one per variation
GRAPHS = ("Chain-like", "Collider-like", "Diamond-like", "Fork-like")
DOMAINS = ("Health and Medicine", "Engineering", "Economics and Finance", "Human Activities and Behavior")
MODELS = ("model-a", "model-b", "model-c")
#: phrasing → (the site's query_idx, its template with the change to fill in)
QUERIES = {
    "A": (2, "Rewrite the original text, based on what would have happened instead had the {x}."),
    "B": (5, "Based on the preceding text, rewrite the scenario to reflect what would have happened if the {x}."),
    "C": (7, "Rewrite the above passage to illustrate what would have occurred had the {x}."),
}


def _example(core: int, variation: int, phrasing: str, outputs: dict[str, Any]) -> dict[str, Any]:
    idx, template = QUERIES[phrasing]
    return {
        "example_id": f"{core}v{variation}",
        "coreset_id": core,
        "variation_id": variation,
        "query_idx": idx,
        "original": f"Keeper {core}-{variation} locked the shed because rain was forecast. The tools stayed dry.",
        "query": template.format(x="forecast been clear"),
        "gold_answer": f"The forecast was clear, so keeper {core}-{variation} left the shed open; the tools stayed dry.",
        "should_not_change": [f"Keeper {core}-{variation} looked after the shed."],
        "should_change": ["The shed was locked."],
        "model_outputs": outputs,
    }


def site_shaped(path: Path, cores: int = 24, variations: int = 5, seed: int = 7) -> Path:
    """Write the file: `cores` core sets of `variations` scenarios, each asked once in a phrasing drawn unevenly,
    each model's verdict drawn with its own pass rate (about 6% unknown). Returns the path."""
    rng = random.Random(seed)
    rates = {"model-a": 0.7, "model-b": 0.5, "model-c": 0.35}
    nested: dict[str, dict[str, list[dict[str, Any]]]] = {"by_graph": {}, "by_domain": {}}
    for core in range(300, 300 + cores):
        graph = GRAPHS[core % len(GRAPHS)]
        for variation in range(1, variations + 1):
            phrasing = rng.choices("ABC", weights=(5, 3, 2))[0]  # uneven, as the site's files are
            outputs = {}
            for model in MODELS:
                roll = rng.random()
                verdict = "unknown" if roll < 0.06 else "correct" if rng.random() < rates[model] else "wrong"
                outputs[model] = {"response": f"A rewrite by {model} of {core}v{variation}.", "verdict": verdict}
            example = _example(core, variation, phrasing, outputs)
            nested["by_graph"].setdefault(graph, []).append(example)
            nested["by_domain"].setdefault(DOMAINS[(core + variation) % len(DOMAINS)], []).append(example)
    path.write_text(json.dumps(nested, indent=1), encoding="utf-8")
    return path


def site_counts(path: Path, grouping: str | None = None) -> dict[tuple[str, str], Counter[str]]:
    """(model, group) → the count of each site verdict, read the plain way (not through cobe); group `all` for
    every example once, else the keys of `grouping` (`by_graph`, `by_domain`)."""
    nested = json.loads(path.read_text(encoding="utf-8"))
    counts: dict[tuple[str, str], Counter[str]] = {}
    groups = nested[grouping] if grouping else {"all": _unique(nested)}
    for group, examples in groups.items():
        for example in examples:
            for model, output in example["model_outputs"].items():
                counts.setdefault((model, group), Counter())[output["verdict"]] += 1
    return counts


def site_rate(counts: Counter[str]) -> float:
    """The site's accuracy: correct / (correct + wrong), in percent."""
    return 100.0 * counts["correct"] / (counts["correct"] + counts["wrong"])


def _unique(nested: dict[str, dict[str, list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for grouping in nested.values():
        for examples in grouping.values():
            for example in examples:
                seen.setdefault(example["example_id"], example)
    return list(seen.values())
