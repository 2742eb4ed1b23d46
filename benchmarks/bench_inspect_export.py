"""`cobe export RUN --to inspect` of a nine-model run: one command per model (as it had to be done, `--model M`
nine times) against one command for every model (`OUT/` a folder, one log per model), each timed as a user runs
it, in a process of its own. Prints the seconds per model of each and their ratio, wall and CPU.

The run is a site-shaped import: nine models answering the same examples (1,143 responses at the default 127
examples, the size of the site's import), as `cobe import --from cobe-site` makes it.

Run: .venv/bin/python benchmarks/bench_inspect_export.py [--examples 127]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODELS = ("gpt", "gemini", "claude", "llama3-70b", "gemma2-27b", "phi4", "qwen2.5-7b", "llama3-8b", "mistral-7b")
GRAPHS = ("Chain-like", "Collider-like", "Correlated", "Diamond-like", "Fork-like", "Hydrid")
QUERIES = {
    2: "Rewrite the original text, based on what would have happened instead had the {x}.",
    5: "Based on the preceding text, rewrite the scenario to reflect what would have happened if the {x}.",
    7: "Rewrite the above passage to illustrate what would have occurred had the {x}.",
}


def site_file(path: Path, examples: int) -> Path:
    """A category-examples.json of `examples` examples, each answered by the nine models."""
    by_graph: dict[str, list[dict[str, object]]] = {key: [] for key in GRAPHS}
    for i in range(examples):
        core, variation, idx = 700 + i // 10, i % 10 + 1, (2, 5, 7)[i % 3]
        by_graph[GRAPHS[core % len(GRAPHS)]].append(
            {
                "example_id": f"{core}v{variation}",
                "coreset_id": core,
                "variation_id": variation,
                "query_idx": idx,
                "original": f"The ferry {core} left at {variation} because the tide was high. The market opened late.",
                "query": QUERIES[idx].format(x=f"tide been low on day {variation}"),
                "gold_answer": "The tide was low, so the ferry waited.",
                "should_not_change": [f"Ferry {core} sailed that week."],
                "should_change": ["The ferry left early."],
                "model_outputs": {
                    m: {
                        "response": f"{m}: the tide was low and ferry {core} waited.",
                        "verdict": ("correct", "wrong", "unknown")[(i + k) % 3],
                    }
                    for k, m in enumerate(MODELS)
                },  # fmt: skip
            }
        )
    path.write_text(json.dumps({"by_graph": by_graph}), encoding="utf-8")
    return path


def cobe(*args: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one `cobe` command in a process of its own."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    command = [sys.executable, "-c", "from cobe.cli.main import main; main()", *args]  # as the console script
    subprocess.run(command, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=127)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run = root / "run"
        cobe("import", str(site_file(root / "site.json", args.examples)), "--from", "cobe-site", "--out", str(run))
        one = [cobe("export", str(run), str(root / "one" / f"{i}.eval"), "--to", "inspect", "--model", m)
               for i, m in enumerate(MODELS)]  # fmt: skip
        before = (sum(w for w, _ in one), sum(c for _, c in one))
        after = cobe("export", str(run), str(root / "all"), "--to", "inspect")
        logs = sorted((root / "all").glob("*.eval"))
        assert len(logs) == len(MODELS), logs
    n = len(MODELS)
    print(f"{n} models, {args.examples * n:,} responses")
    print(f"one command per model:  {before[0] / n:6.2f} s a model wall, {before[1] / n:6.2f} s CPU")
    print(f"one command, every model: {after[0] / n:6.2f} s a model wall, {after[1] / n:6.2f} s CPU")
    print(f"ratio (before / after): {before[0] / after[0]:.1f}x wall, {before[1] / after[1]:.1f}x CPU")


if __name__ == "__main__":
    main()
