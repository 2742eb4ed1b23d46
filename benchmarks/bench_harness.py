"""Harness overhead: client CPU per call of cobe vs. a bare asyncio + openai SDK loop, same calls, same concurrency.

    python benchmarks/bench_harness.py                 # 2000 scenarios x 3 templates = 6000 + 18000 calls
    python benchmarks/bench_harness.py --scenarios 200 # the quick form

A zero-latency fake OpenAI-compatible server (tests/support/openai_server.py) runs in its own
process; each measured part runs in a fresh subprocess and reports its own CPU time and peak RSS.
Targets: harness CPU per call <= 1.5x the bare loop; a repeat of the finished run makes 0 calls in
< 5 s; harness peak RSS < 300 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
SPEC = "openai-api/bench/fake-model"


def write_data(path: Path, n: int) -> None:
    """Synthetic scenarios in the native shape (invented text, ~40-word stories)."""
    with path.open("w", encoding="utf-8") as out:
        for i in range(1, n + 1):
            had = f"the baker {i} closed early"
            out.write(
                json.dumps(
                    {
                        "id": f"{i}v0",
                        "core_id": i,
                        "variation": 0,
                        "domain": "Daily life",
                        "story": f"Baker {i} kept the shop open late because a festival was on in town. Many visitors bought "
                        f"bread and cakes, so the shelves were empty by night and the baker slept well.",
                        "queries": [
                            f"Rewrite the original text, based on what would have happened instead had {had}.",
                            f"Based on the preceding text, rewrite the scenario to reflect what would have happened if the baker {i} had closed early.",
                            f"Rewrite the above passage to illustrate what would have occurred had {had}.",
                        ],
                        "illustrative_answer": "Instead, the shop closed early.",
                        "preserve": ["A festival was on in town."],
                        "change": ["Many visitors bought bread."],
                    }
                )
                + "\n"
            )


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MB (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---- part (a): the bare loop ------------------------------------------------------------
JUDGE_TEXT = (
    "Story:\n{story}\n\nCriterion:\n{criterion}\n\nRewrite:\n{response}\n\n"
    "Check: {check}. Answer with exactly one letter: T or F."
)


async def bare(url: str, data: Path, concurrency: int) -> dict:
    """The same calls with the official SDK, no cache, no store, no retries: the floor."""
    import openai

    scenarios = [json.loads(line) for line in data.read_text().splitlines()]
    limits = openai._constants.DEFAULT_CONNECTION_LIMITS.__class__(max_connections=1024, max_keepalive_connections=1024)
    client = openai.AsyncOpenAI(
        api_key="EMPTY", base_url=url, max_retries=0, http_client=openai.DefaultAsyncHttpxClient(limits=limits)
    )
    sem = asyncio.Semaphore(concurrency)
    calls = 0

    async def call(content: str, **kw) -> str:
        nonlocal calls
        async with sem:
            r = await client.chat.completions.create(
                model="fake-model", messages=[{"role": "user", "content": content}], **kw
            )
        calls += 1
        return r.choices[0].message.content or ""

    async def item(s: dict, q: str) -> None:
        text = await call(f"{s['story']}\n\n{q}", temperature=0, max_tokens=512)
        await asyncio.gather(
            *(
                call(
                    JUDGE_TEXT.format(
                        story=s["story"], criterion=" ".join(s[c] if c != "connectors" else []), response=text, check=c
                    ),
                    temperature=0,
                    max_tokens=5,
                    logprobs=True,
                    top_logprobs=5,
                )
                for c in ("connectors", "preserve", "change")
            )
        )

    work = iter([(s, q) for s in scenarios for q in s["queries"]])

    async def worker() -> None:
        for s, q in work:
            await item(s, q)

    await asyncio.gather(*(worker() for _ in range(2 * concurrency)))
    await client.close()
    return {"calls": calls}


def run_part(args: argparse.Namespace) -> None:
    """One measured part in this (fresh) process; prints a JSON line."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    if args.part == "bare":
        out = asyncio.run(bare(args.url, args.data, args.concurrency))
    else:
        from cobe.run import EvalConfig, evaluate

        os.environ["BENCH_BASE_URL"] = args.url
        summary = evaluate(
            EvalConfig(
                data=str(args.data), models=[SPEC], judge=SPEC, run_dir=args.run_dir, concurrency=args.concurrency
            )
        )
        stats = summary.stats
        out = {
            "calls": stats["respondent"]["calls_made"] + stats["judge"]["calls_made"],
            "cached": stats["respondent"]["calls_cached"] + stats["judge"]["calls_cached"],
            "state": summary.state,
            "errors": stats["respondent"]["errors"] + stats["judge"]["errors"],
        }
    out |= {"cpu_s": time.process_time() - cpu0, "wall_s": time.perf_counter() - wall0, "rss_mb": peak_rss_mb()}
    print(json.dumps(out))


def measure(part: str, url: str, data: Path, run_dir: Path, concurrency: int, profile: Path | None = None) -> dict:
    """Run one part in a subprocess and read its JSON line."""
    cmd = [sys.executable]
    if profile is not None:
        cmd += ["-m", "cProfile", "-o", str(profile)]
    cmd += [
        __file__,
        "--part",
        part,
        "--url",
        url,
        "--data",
        str(data),
        "--run-dir",
        str(run_dir),
        "--concurrency",
        str(concurrency),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, env=os.environ | {"PYTHONPATH": str(ROOT / "src")})
    if done.returncode != 0:
        raise SystemExit(f"part {part} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--profile", type=Path, help="write a cProfile of the harness part here")
    parser.add_argument("--part", choices=["bare", "harness"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--run-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part:
        run_part(args)
        return

    server = subprocess.Popen(
        [sys.executable, "-m", "support.openai_server", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONPATH": str(TESTS)},
    )
    try:
        sys.path.insert(0, str(TESTS))
        from support.openai_server import ServerClient

        client = ServerClient(f"http://127.0.0.1:{int(server.stdout.readline())}")
        url = client.base_url
        with tempfile.TemporaryDirectory() as tmp:
            data, run_dir = Path(tmp) / "bench.jsonl", Path(tmp) / "run"
            write_data(data, args.scenarios)
            expected = args.scenarios * 3 * 4
            print(
                f"{args.scenarios} scenarios x 3 templates: {expected // 4} respondent + {expected // 4 * 3} judge calls, "
                f"concurrency {args.concurrency}, server in its own process"
            )
            a = measure("bare", url, data, run_dir, args.concurrency)
            n_a = client.stats()["requests"]
            b = measure("harness", url, data, run_dir, args.concurrency, args.profile)
            n_b = client.stats()["requests"] - n_a
            c = measure("harness", url, data, run_dir, args.concurrency)
            n_c = client.stats()["requests"] - n_a - n_b
    finally:
        server.kill()
        server.wait()
    per_a, per_b = a["cpu_s"] / max(n_a, 1) * 1e6, b["cpu_s"] / max(n_b, 1) * 1e6
    ratio = per_b / per_a
    print(
        f"(a) bare SDK loop : {n_a} calls, CPU {a['cpu_s']:.2f} s = {per_a:.0f} us/call, wall {a['wall_s']:.1f} s, peak RSS {a['rss_mb']:.0f} MB"
    )
    print(
        f"(b) cobe harness  : {n_b} calls, {b['errors']} failed, CPU {b['cpu_s']:.2f} s = {per_b:.0f} us/call, wall {b['wall_s']:.1f} s, peak RSS {b['rss_mb']:.0f} MB"
    )
    print(f"    ratio harness/bare CPU per call: {ratio:.2f}x (target <= 1.5x) {'OK' if ratio <= 1.5 else 'OVER'}")
    print(
        f"(c) repeat run    : {n_c} calls, wall {c['wall_s']:.2f} s (target 0 calls, < 5 s) "
        f"{'OK' if n_c == 0 and c['wall_s'] < 5 else 'OVER'}"
    )
    print(
        f"    harness peak RSS {max(b['rss_mb'], c['rss_mb']):.0f} MB (target < 300 MB) "
        f"{'OK' if max(b['rss_mb'], c['rss_mb']) < 300 else 'OVER'}"
    )
    if n_a != expected or n_b != expected:
        raise SystemExit(f"call counts differ from the plan: bare {n_a}, harness {n_b}, expected {expected}")


if __name__ == "__main__":
    main()
