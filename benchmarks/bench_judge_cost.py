"""The judge bill of the paper's grid at list price, through a batch API, and through a batch API with prompt
caching, each as a ratio to list price, from token counts measured on the contract fake.

    python benchmarks/bench_judge_cost.py            # 60 scenarios of builtin:starter × A, B, C: 540 judge calls a run
    python benchmarks/bench_judge_cost.py --limit 5  # a quick look (45 judge calls a run)

The grid (Table 5): 9 models × 2,000 scenarios × 3 phrasings = 54,000 responses, each judged on 3 checks
with the paper prompts by a Claude Opus judge, priced from the bundled price file. Nothing is assumed
about tokens: a sample goes through the real pipeline (mock/echo answers, the judge through the
Anthropic SDK) against the local fake server, which counts tokens as whitespace words and caches a
marked prefix as Anthropic documents it, never one shorter than the model's minimum (`cache_min_tokens`
of the price file). Two runs, one normal and one through Message Batches; the measured tokens per call
(input, read from the cache, written to it, output) are multiplied out to the grid's 162,000 calls.

The sample writes each check's cache once, so its share of cache writes per call (3 in 540) is kept for
the grid: more writes than a grid that reuses its cache would make, so the batch + cache figure is an
upper bound. A last line gives the same measurement with the fake's minimum at 0: what caching the
constant heads would save were they long enough for the model to cache them.

Target (issue 20): batch + cache <= 35% of list.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the fake server lives with the tests

from cobe.calls.cost import Price, load_prices  # noqa: E402
from cobe.core.results import CHECKS  # noqa: E402
from cobe.judge.prompt_sets import constant_head, load_judge_prompts  # noqa: E402
from cobe.run import EvalConfig, evaluate  # noqa: E402
from cobe.store.store import STORE_NAME  # noqa: E402
from support.openai_server import ThreadedServer  # noqa: E402

JUDGE = "anthropic/claude-opus-4-7"
# every response different (it echoes its prompt: the story and the query, a little longer than a rewrite),
# so no judge call is answered from another's stored answer
RESPONDENT = "mock/echo"
MODELS, SCENARIOS, PHRASINGS = 9, 2_000, 3
CALLS = MODELS * SCENARIOS * PHRASINGS * len(CHECKS)
TARGET = 0.35


@dataclass(frozen=True)
class PerCall:
    """Mean tokens of one judge call, as the fake counted them."""

    calls: int
    input: float  # every prompt token
    cached: float  # of input: read from the cache
    written: float  # of input: written to it
    output: float

    def cost(self, price: Price, n: int, *, batch: bool = False, cache: bool = True) -> float:
        """USD of `n` such calls; without `cache` every prompt token at the input price."""
        cached, written = (self.cached, self.written) if cache else (0.0, 0.0)
        one = price.cost(self.input, self.output, cached, written)
        return n * one * (price.batch_discount if batch else 1.0)


def measure(server: ThreadedServer, work: Path, limit: int, *, batch: bool, floor: int) -> PerCall:
    """One run of the sample through the real pipeline; the mean tokens of its judge calls."""
    server.control(reset=True, verdict="hash", cache_min_tokens=floor)
    run_dir = work / f"run-batch{int(batch)}-floor{floor}"
    config = EvalConfig(
        data="builtin:starter",
        limit=limit,
        models=[RESPONDENT],
        judge=JUDGE,
        run_dir=run_dir,
        judge_batch=batch,
        batch_poll=0.01,
        preflight=False,  # the grid's judge calls only
    )
    summary = evaluate(config)
    if summary.state != "complete":
        raise SystemExit(f"the sample run ended {summary.state}: {summary.notices}")
    db = sqlite3.connect(run_dir / STORE_NAME)
    try:
        row = db.execute(
            "SELECT count(*), avg(input_tokens), avg(cached_input_tokens), avg(cache_write_tokens), avg(output_tokens)"
            " FROM calls WHERE role = 'judge' AND error IS NULL"
        ).fetchone()
    finally:
        db.close()
    return PerCall(int(row[0]), *(float(value) for value in row[1:]))


def report(price: Price, normal: PerCall, batched: PerCall, open_floor: PerCall, limit: int) -> list[str]:
    """The printed lines: the grid, the measurement, the three ratios with their arithmetic, the target."""
    prompts = load_judge_prompts("paper")
    heads = [len(constant_head(prompts.texts[check]).split()) for check in CHECKS]
    listed = normal.cost(price, CALLS, cache=False)
    batch = normal.cost(price, CALLS, batch=True, cache=False)
    cached = batched.cost(price, CALLS, batch=True)
    what_if = open_floor.cost(price, CALLS, batch=True)
    fresh = batched.input - batched.cached - batched.written
    met = "met" if cached / listed <= TARGET else "NOT met"
    lines = [
        f"judge bill of the paper's grid: {MODELS} models x {SCENARIOS:,} scenarios x {PHRASINGS} phrasings = "
        f"{MODELS * SCENARIOS * PHRASINGS:,} responses x {len(CHECKS)} checks = {CALLS:,} judge calls",
        f"judge {JUDGE}, paper prompts; price file (USD per 1M tokens): input {price.input:.2f}, output "
        f"{price.output:.2f}, cache read {price.cached_input:.2f}, cache write {price.cache_write:.2f}; batch x "
        f"{price.batch_discount}; minimum cacheable prefix {price.cache_min_tokens} tokens",
        f"measured on the contract fake (tokens = whitespace words): builtin:starter, {limit} scenarios x A, B, C, "
        f"respondent {RESPONDENT}; {normal.calls} judge calls per run",
        f"  per call: input {normal.input:.1f}, output {normal.output:.2f}; constant heads (connectors, preserve, "
        f"change) {' / '.join(map(str, heads))} tokens",
        f"  through the batch API, per call: {batched.cached:.1f} read from the cache, {batched.written:.2f} written "
        f"to it, {fresh:.1f} uncached",
        f"list            ${listed:>12,.2f} = {CALLS:,} x ({normal.input:.1f} x {price.input} + {normal.output:.2f} x "
        f"{price.output}) / 1e6                      ratio {1.0:.3f}",
        f"batch           ${batch:>12,.2f} = list x {price.batch_discount}{' ' * 52}ratio {batch / listed:.3f}",
        f"batch + cache   ${cached:>12,.2f} = {CALLS:,} x {price.batch_discount} x ({fresh:.1f} x {price.input} + "
        f"{batched.cached:.1f} x {price.cached_input} + {batched.written:.2f} x {price.cache_write} + "
        f"{batched.output:.2f} x {price.output}) / 1e6   ratio {cached / listed:.3f}",
        f"target batch + cache <= {TARGET:.2f} of list: {met}",
    ]
    if batched.cached == 0 and batched.written == 0:
        lines.append(
            f"  nothing was cached: every check's constant head ({max(heads)} tokens at most) is shorter than the "
            f"{price.cache_min_tokens}-token minimum, so the provider caches none of it and bills it in full"
        )
    lines.append(
        f"were the heads cacheable (the fake's minimum at 0): {open_floor.cached:.1f} of {open_floor.input:.1f} "
        f"tokens per call read from the cache, batch + cache ${what_if:,.2f}, ratio {what_if / listed:.3f}"
    )
    return lines


def main(argv: list[str] | None = None) -> None:
    """Measure the sample three times (normal; batch; batch with no minimum) and print the bill."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=60, help="scenarios of builtin:starter in the sample")
    args = parser.parse_args(argv)
    price = load_prices().price(JUDGE)
    if price is None:
        raise SystemExit(f"no price for {JUDGE} in the bundled price file")
    server = ThreadedServer()
    os.environ.update({"ANTHROPIC_BASE_URL": server.root_url, "ANTHROPIC_API_KEY": "bench-key"})
    try:
        with tempfile.TemporaryDirectory() as work:
            normal = measure(server, Path(work), args.limit, batch=False, floor=price.cache_min_tokens)
            batched = measure(server, Path(work), args.limit, batch=True, floor=price.cache_min_tokens)
            open_floor = measure(server, Path(work), args.limit, batch=True, floor=0)
    finally:
        server.close()
    for line in report(price, normal, batched, open_floor, args.limit):
        print(line)


if __name__ == "__main__":
    main()
