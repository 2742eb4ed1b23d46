"""Harness overhead: client CPU per call and peak RSS of cobe vs. a bare asyncio + openai SDK loop.

    python benchmarks/bench_harness.py               # 3 rounds at N = 2,000 samples, a repeat run, `cobe eval` at N = 10,000
    python benchmarks/bench_harness.py --scale-bare  # the bare loop at N = 10,000 too
    python benchmarks/bench_harness.py --quick       # 3 rounds at N = 300, a repeat run, N = 3,000 (a few minutes)
    python benchmarks/bench_harness.py --profile p.prof  # and a cProfile of one more `cobe eval` (--profile-part)
    python benchmarks/bench_harness.py --scale 0     # the rounds and the repeat only
    python benchmarks/bench_harness.py --scale-models 10  # N = 20,000 as 2,000 scenarios x 10 models too

A sample is one respondent call and three judge calls (connectors, preserve, change); both sides keep
the same number of calls in flight (--concurrency, 64). The fake OpenAI-compatible server
(tests/support/openai_server.py) runs in its own process with zero latency and `--unique`: every
reply ends with a line naming its request, so no two replies are equal and nothing can be answered
from a cache. Each measured part runs in a fresh subprocess and reports the CPU time of the whole
process (interpreter start and imports included) and its peak RSS. Parts run interleaved in rounds
(bare, cobe, replay, cli, bare, ...) so a neighbour loading the machine weighs on every side of a round;
each figure is the median over rounds of one part's CPU per call divided by a floor's. Each part's line also says
when the server gave its first answer, counted from the part's process start (interpreter, imports, plan, store).

The parts:
- `bare`: the same calls written as a short asyncio loop over the official SDK (prompts of its own).
- `bare-aio`: that loop over the SDK's aiohttp transport (`http_client=DefaultAioHttpClient(...)`, the
  `openai[aiohttp]` extra), the floor a careful user reaches; cobe talks through it where it is installed.
- `replay`: a floor that sends cobe's own requests byte for byte: every call the round's `cobe` part
  stored (its messages and the settings it sent, `calls.sent`), through the same SDK loop. Against it the
  ratio holds nothing of prompt lengths or settings, only what the harness spends per call.
- `cobe`: `cobe.run.evaluate` in-process (the run, its store and its exports).
- `cli`: the whole `cobe eval` command as a user runs it (`cobe.cli.main`: argument parsing, every import,
  the store, the exports, report.md, report.html), measured from outside like the others.

After the rounds, one more `cobe eval` (not counted in any ratio) says where the whole command's CPU goes:
every import (`-X importtime`), the plan, the calls and the store's share of them, the exports, the report
and the end-of-run table, beside the replay floor's whole process (`--no-breakdown` skips it). cobe's source
is compiled first, as an install leaves a package: a checkout run with PYTHONDONTWRITEBYTECODE would
otherwise compile it again in every cobe part, which neither an installed cobe nor the floor pays.

Targets (issues 13, 28, 42): every ratio <= 1.2x, the whole command against the replayed floor included; evaluate()
<= 1.0x the default-transport loop and its wall <= 1.1x that loop's at zero latency (--latency S: a slower server); a repeat of the finished run makes 0 calls in < 5 s; cobe's peak RSS
at the large N within 15% of the small N. `--scale-models K` adds a scale point that reaches the large N
with K respondent models on N/K scenarios: the same number of calls with the dataset held fixed, which
separates what a run holds per item from what holding the dataset itself costs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
SPEC = "openai-api/bench/fake-model"
CHECKS = ("connectors", "preserve", "change")


def write_data(path: Path, n: int) -> None:
    """`n` synthetic scenarios in the native shape (invented text, ~40-word stories), one per sample."""
    with path.open("w", encoding="utf-8") as out:
        for i in range(1, n + 1):
            had = f"the baker {i} closed early"
            scenario = {
                "id": f"{i}v0",
                "core_id": i,
                "variation": 0,
                "domain": "Daily life",
                "story": f"Baker {i} kept the shop open late because a festival was on in town. Many visitors bought "
                "bread and cakes, so the shelves were empty by night and the baker slept well.",
                "queries": [
                    f"Rewrite the original text, based on what would have happened instead had {had}.",
                    f"Based on the preceding text, rewrite the scenario to reflect what would have happened if the baker {i} had closed early.",
                    f"Rewrite the above passage to illustrate what would have occurred had {had}.",
                ],
                "illustrative_answer": "Instead, the shop closed early.",
                "preserve": ["A festival was on in town."],
                "change": ["Many visitors bought bread."],
            }
            out.write(json.dumps(scenario) + "\n")


def process_cpu_s() -> float:
    """User + system CPU of this whole process so far, interpreter start and imports included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MB (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---- the bare loop ------------------------------------------------------------------------
JUDGE_TEXT = (
    "Story:\n{story}\n\nCriterion:\n{criterion}\n\nRewrite:\n{response}\n\n"
    "Check: {check}. Answer with exactly one letter: T or F."
)


def sdk_http_client(openai: Any, aio: bool) -> Any:
    """The SDK's own async HTTP client with a pool of 1,024: its default httpx transport, or its aiohttp one."""
    # the limits class of the HTTP library this SDK version is built on
    limits = type(openai._constants.DEFAULT_CONNECTION_LIMITS)(max_connections=1024, max_keepalive_connections=1024)
    return (openai.DefaultAioHttpClient if aio else openai.DefaultAsyncHttpxClient)(limits=limits)


async def bare(url: str, data: Path, concurrency: int, aio: bool = False) -> dict:
    """The same calls with the official SDK, no cache, no store, no retries: the floor (`aio`: over the SDK's
    aiohttp transport, `DefaultAioHttpClient`, instead of its default httpx one)."""
    import openai

    client = openai.AsyncOpenAI(api_key="EMPTY", base_url=url, max_retries=0, http_client=sdk_http_client(openai, aio))
    sem = asyncio.Semaphore(concurrency)
    calls = 0

    async def call(content: str, **kw: Any) -> str:
        nonlocal calls
        async with sem:
            r = await client.chat.completions.create(
                model="fake-model", messages=[{"role": "user", "content": content}], **kw
            )
        calls += 1
        return r.choices[0].message.content or ""

    async def sample(s: dict) -> None:
        text = await call(f"{s['story']}\n\n{s['queries'][0]}", temperature=0, max_tokens=512)
        await asyncio.gather(
            *(
                call(
                    JUDGE_TEXT.format(story=s["story"], criterion=" ".join(s.get(c, [])), response=text, check=c),
                    temperature=0,
                    max_tokens=5,
                    logprobs=True,
                    top_logprobs=5,
                )
                for c in CHECKS
            )
        )

    with data.open(encoding="utf-8") as lines:  # read as it goes, like a loop written for a big file
        work = (json.loads(line) for line in lines)

        async def worker() -> None:
            for s in work:
                await sample(s)

        await asyncio.gather(*(worker() for _ in range(2 * concurrency)))
    await client.close()
    return {"calls": calls, "errors": 0}


def stored_requests(store: Path) -> list[tuple[list[dict], dict]]:
    """(messages, sent settings) of every call a finished cobe run stored, respondents first."""
    import sqlite3

    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT request, sent FROM calls WHERE error IS NULL ORDER BY role DESC, rowid").fetchall()
    finally:
        db.close()
    out = []
    for request, sent in rows:
        settings = json.loads(sent)
        settings.pop("api", None)  # cobe's own note of the API it used: chat completions here
        out.append(([{"role": m["role"], "content": m["content"]} for m in json.loads(request)["messages"]], settings))
    return out


async def replay(url: str, store: Path, concurrency: int) -> dict:
    """cobe's own stored requests sent again with the official SDK, no cache, no store: the floor that holds
    exactly the bytes cobe sent."""
    import openai

    requests = stored_requests(store)
    client = openai.AsyncOpenAI(
        api_key="EMPTY", base_url=url, max_retries=0, http_client=sdk_http_client(openai, aio=False)
    )
    pending = iter(requests)
    calls = 0

    async def worker() -> None:
        nonlocal calls
        for messages, settings in pending:
            r = await client.chat.completions.create(model="fake-model", messages=messages, **settings)
            _ = r.choices[0].message.content
            calls += 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    await client.close()
    return {"calls": calls, "errors": 0}


def cli_part(args: argparse.Namespace) -> dict:
    """`cobe eval` as typed, in this process: what a user's command costs, report.md included."""
    from cobe.cli.main import main as cobe_main

    os.environ["BENCH_BASE_URL"] = args.url
    argv = ["eval", "--model", SPEC, "--judge", SPEC, "--data", str(args.data), "--templates", "A"]
    argv += ["--run-dir", str(args.run_dir), "--concurrency", str(args.concurrency), "--no-preflight", "-q"]
    sys.argv = ["cobe", *argv]
    try:
        cobe_main()
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    if not (args.run_dir / "report.md").is_file():
        raise SystemExit("the cli part wrote no report.md")
    return {"exit": code, "errors": 0 if code == 0 else 1}


#: the phases of a whole `cobe eval`, as (module, attribute): CPU seconds spent inside each, measured by wrapping
#: it in the one extra breakdown run (never in a round: the wrappers cost a little themselves)
PHASES = (
    ("plan: data, models, run dir", "cobe.run.plan", "plan_run"),
    ("calls (items: prompts, cache, calls, store)", "cobe.run.engine", "Session._work"),
    ("exports: results.jsonl, summary.json, report.md", "cobe.run.engine", "Session._close_out"),
    ("report.html, tables, figures", "cobe.cli.evaluate", "_refresh_report"),
    ("end-of-run table", "cobe.report.run_table", "run_table"),
)
#: the store's writes and reads during the calls, measured inside the calls phase
STORE_METHODS = ("get_call", "put_call", "put_response", "put_verdicts", "response", "response_verdicts")
STORE_LABEL = "  of which the store (SQLite reads and writes)"


def _timed(spent: dict[str, float], label: str, fn: Any) -> Any:
    """`fn` (sync or async) counting the process CPU spent inside it into spent[label]; nested calls count once."""
    import functools
    import inspect

    depth = [0]

    def enter() -> float:
        depth[0] += 1
        return time.process_time()

    def leave(start: float) -> None:
        depth[0] -= 1
        if depth[0] == 0:
            spent[label] = spent.get(label, 0.0) + time.process_time() - start

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def waited(*a: Any, **k: Any) -> Any:
            start = enter()
            try:
                return await fn(*a, **k)
            finally:
                leave(start)

        return waited

    @functools.wraps(fn)
    def called(*a: Any, **k: Any) -> Any:
        start = enter()
        try:
            return fn(*a, **k)
        finally:
            leave(start)

    return called


def breakdown_part(args: argparse.Namespace) -> dict:
    """The cli part with each phase's CPU counted: where the whole command's time goes, beside the floor's."""
    import importlib

    spent: dict[str, float] = {}
    for label, module, attribute in PHASES:
        owner: Any = importlib.import_module(module)
        *path, name = attribute.split(".")
        for part in path:
            owner = getattr(owner, part)
        setattr(owner, name, _timed(spent, label, getattr(owner, name)))
    from cobe.store.store import Store

    for name in STORE_METHODS:
        setattr(Store, name, _timed(spent, STORE_LABEL, getattr(Store, name)))
    out = cli_part(args)
    return out | {"phases": spent}


def run_part(args: argparse.Namespace) -> None:
    """One measured part in this (fresh) process; prints a JSON line."""
    wall0 = time.perf_counter()
    if args.part in ("bare", "bare-aio"):
        out = asyncio.run(bare(args.url, args.data, args.concurrency, aio=args.part == "bare-aio"))
    elif args.part == "replay":
        out = asyncio.run(replay(args.url, args.store, args.concurrency))
    elif args.part == "cli":
        out = cli_part(args)
    elif args.part == "breakdown":
        out = breakdown_part(args)
    else:
        from cobe.run import EvalConfig, evaluate

        os.environ["BENCH_BASE_URL"] = args.url
        models = [SPEC] if args.models == 1 else [f"{SPEC}-{i}" for i in range(1, args.models + 1)]
        summary = evaluate(
            EvalConfig(
                data=str(args.data),
                models=models,
                judge=SPEC,
                templates=["A"],
                run_dir=args.run_dir,
                concurrency=args.concurrency,
                # the preflight's probes are a fixed cost of a command (2 calls), not of each call: the bare
                # loop has none, so the pairs compare the calls alone
                preflight=False,
            )
        )
        stats = summary.stats
        out = {
            "calls": stats["respondent"]["calls_made"] + stats["judge"]["calls_made"],
            "cached": stats["respondent"]["calls_cached"] + stats["judge"]["calls_cached"],
            "state": summary.state,
            "errors": stats["respondent"]["errors"] + stats["judge"]["errors"],
        }
    out |= {"cpu_s": process_cpu_s(), "wall_s": time.perf_counter() - wall0, "rss_mb": peak_rss_mb()}
    print(json.dumps(out))


class Bench:
    """The server process, the data files and one subprocess per measured part."""

    def __init__(
        self, tmp: Path, concurrency: int, profile: Path | None, profiled: str = "cli", latency_s: float = 0.0
    ) -> None:
        self.tmp, self.concurrency, self.profile, self.profiled = tmp, concurrency, profile, profiled
        self.latency_s = latency_s
        self.server = subprocess.Popen(
            [sys.executable, "-m", "support.openai_server", "--port", "0", "--unique"],
            stdout=subprocess.PIPE,
            text=True,
            env=os.environ | {"PYTHONPATH": str(TESTS)},
        )
        sys.path.insert(0, str(TESTS))
        from support.openai_server import ServerClient

        # cobe's modules as an install leaves them, compiled: run from a checkout with PYTHONDONTWRITEBYTECODE
        # (as here), every part would compile ~120 modules again (0.2 s a command), which no installed package
        # pays and the floor, importing only the SDK from site-packages, never does
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "src" / "cobe")], check=True)

        assert self.server.stdout is not None
        self.client = ServerClient(f"http://127.0.0.1:{int(self.server.stdout.readline())}")
        self.runs = 0

    def data(self, n: int) -> Path:
        """The data file of `n` samples (written once)."""
        path = self.tmp / f"data-{n}.jsonl"
        if not path.exists():
            write_data(path, n)
        return path

    def measure(
        self,
        part: str,
        n: int,
        run_dir: Path | None = None,
        models: int = 1,
        store: Path | None = None,
        profiled: bool = False,
        importtime: bool = False,
    ) -> dict:
        """Run one part in a subprocess; its JSON line plus `served`, the requests the server counted.

        With `models` K > 1, the N samples are N/K scenarios each answered by K respondent models."""
        if run_dir is None:
            self.runs += 1
            run_dir = self.tmp / f"run-{self.runs}"
        cmd = [sys.executable]
        if profiled and self.profile is not None:  # only the extra run: a profiled round would count cProfile's cost
            cmd += ["-m", "cProfile", "-o", str(self.profile)]
        if importtime:  # each import's own time on stderr: what imports cost the whole command
            cmd += ["-X", "importtime"]
        cmd += [__file__, "--part", part, "--url", self.client.base_url, "--data", str(self.data(n // models))]
        cmd += ["--models", str(models)]
        cmd += ["--run-dir", str(run_dir), "--concurrency", str(self.concurrency)]
        if store is not None:
            cmd += ["--store", str(store)]
        # counters from zero, so the part's own peak of calls in flight at the server is read after it
        self.client.control(reset=True, unique=True, delay_s=self.latency_s)
        launched = time.monotonic()  # the server's clock too (CLOCK_MONOTONIC is the machine's): time to first call
        done = subprocess.run(cmd, capture_output=True, text=True, env=os.environ | {"PYTHONPATH": str(ROOT / "src")})
        if done.returncode != 0:
            raise SystemExit(f"part {part} failed:\n{done.stderr[-3000:]}")
        out = json.loads(done.stdout.strip().splitlines()[-1])
        if importtime:
            out["import_s"] = import_seconds(done.stderr)
        stats = self.client.stats()
        # a zero-latency server answers each request before reading the next, so its own in-flight count stays at
        # one; the client's pool opens a connection only when all it has are busy: the most calls it had in flight
        out["served"], out["peak_in_flight"] = stats["requests"], stats["peak_connections"]
        # from the part's process start to the server's first answer: interpreter, imports, plan and store
        first = stats.get("first_ok_s")
        out["first_call_s"] = None if first is None else first - launched
        out["run_dir"] = str(run_dir)
        out["us_per_call"] = out["cpu_s"] / max(out["served"], 1) * 1e6
        return out

    def close(self) -> None:
        """Stop the server."""
        self.server.kill()
        self.server.wait()


def import_seconds(stderr: str) -> float:
    """The sum of every import's own time in `-X importtime` lines ("import time: self | cumulative | name")."""
    total = 0
    for row in stderr.splitlines():
        if row.startswith("import time:") and "|" in row:
            own = row.removeprefix("import time:").split("|")[0].strip()
            total += int(own) if own.isdigit() else 0
    return total / 1e6


def print_breakdown(part: dict, floor: dict) -> None:
    """Where one whole `cobe eval` spends its CPU, phase by phase, beside the replay floor's whole process."""
    phases, calls = part["phases"], part["served"]
    print(f"where the whole command's CPU goes (one extra `cobe eval` at {calls} calls, phases wrapped):")
    print(f"  {'whole process':<50} {part['cpu_s']:6.2f} s")
    print(f"  {'imports, all of them (-X importtime, wall)':<50} {part['import_s']:6.2f} s")
    labels = [label for label, _, _ in PHASES]
    labels.insert(labels.index(PHASES[1][0]) + 1, STORE_LABEL)
    for label in labels:
        seconds = phases.get(label, 0.0)
        per_call = f"  = {seconds / calls * 1e6:5.0f} us/call" if label in (PHASES[1][0], STORE_LABEL) else ""
        print(f"  {label:<50} {seconds:6.2f} s{per_call}")
    print(f"  {'the replay floor, whole process (median round)':<50} {floor['cpu_s']:6.2f} s")


#: the CPU-per-call ratios of each round, (part, floor)
RATIOS = (
    ("bare-aio", "bare"),
    ("cobe", "bare"),
    ("cobe", "bare-aio"),
    ("cli", "bare"),
    ("cli", "replay"),
    ("cobe", "replay"),
)
#: each ratio's median as printed, and its target (issues 13, 28, 42); None: shown, no target
TARGETS: tuple[tuple[str, str, float | None], ...] = (
    ("bare-aio/bare", "CPU per call, bare loop on the SDK's aiohttp transport / on its default httpx one", None),
    ("cobe/bare", "CPU per call, evaluate() in-process / bare loop", 1.0),
    ("cobe/bare-aio", "CPU per call, evaluate() in-process / bare loop on aiohttp", 1.2),
    ("cli/bare", "CPU per call, whole `cobe eval` / bare loop", 1.2),
    ("cli/replay", "CPU per call, whole `cobe eval` / replay of its own requests", 1.2),
    ("cobe/replay", "CPU per call, evaluate() in-process / replay of its own requests", 1.2),
    ("cobe wall/bare wall", "wall, evaluate() in-process / bare loop", 1.1),
)


def line(label: str, r: dict) -> str:
    """One measured part as a line of the report."""
    return (
        f"  {label:<14} {r['served']:>6} calls, {r['errors']} failed, CPU {r['cpu_s']:6.2f} s = "
        f"{r['us_per_call']:5.0f} us/call, wall {r['wall_s']:6.1f} s, peak RSS {r['rss_mb']:5.0f} MB, "
        f"peak in flight {r['peak_in_flight']}, first answer at {_seconds(r.get('first_call_s'))}"
    )


def _seconds(value: float | None) -> str:
    """A time to first answer as shown, or `-` when no call was answered (a repeat run)."""
    return "-" if value is None else f"{value:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--samples", type=int, default=2000, help="N of the paired runs (default 2000)")
    parser.add_argument("--scale", type=int, default=10000, help="N of the scale point, cobe once (0: skip)")
    parser.add_argument("--scale-bare", action="store_true", help="run the bare loop at the scale point too")
    parser.add_argument(
        "--pairs", type=int, default=3, help="interleaved rounds of every part; each ratio is their median (default 3)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=64, help="calls in flight, the same on every side (default 64)"
    )
    parser.add_argument("--quick", action="store_true", help="N = 300 and a scale point of 3000")
    parser.add_argument(
        "--latency", type=float, default=0.0, help="seconds the fake server waits before each reply (default 0)"
    )
    parser.add_argument("--profile", type=Path, help="write a cProfile of one more part here, after the rounds")
    parser.add_argument(
        "--profile-part", choices=["cli", "cobe"], default="cli", help="the part --profile profiles (default cli)"
    )
    parser.add_argument("--json", type=Path, help="also write every measured part here")
    parser.add_argument(
        "--no-breakdown",
        dest="breakdown",
        action="store_false",
        help="skip the extra `cobe eval` that says where its CPU goes (imports, plan, calls, store, exports, report)",
    )
    parser.add_argument(
        "--scale-models",
        type=int,
        default=0,
        metavar="K",
        help="also reach the scale point with K respondent models on N/K scenarios (the dataset held fixed)",
    )
    parser.add_argument("--models", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument(
        "--part", choices=["bare", "bare-aio", "cobe", "replay", "cli", "breakdown"], help=argparse.SUPPRESS
    )
    parser.add_argument("--store", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--run-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part:
        run_part(args)
        return
    if args.quick:
        args.samples, args.scale = 300, 3000
    n, calls = args.samples, args.samples * 4
    print(
        f"N = {n} samples = {n} respondent + {3 * n} judge calls, {args.concurrency} in flight on both sides, "
        f"{args.pairs} interleaved rounds; server in its own process, unique replies, {args.latency:g} s latency"
    )
    failures: list[str] = []
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        bench = Bench(Path(tmp), args.concurrency, args.profile, args.profile_part, args.latency)
        try:
            rounds: list[dict[str, dict]] = []
            for i in range(args.pairs):
                r = {"bare": bench.measure("bare", n), "bare-aio": bench.measure("bare-aio", n)}
                r["cobe"] = bench.measure("cobe", n)
                r["replay"] = bench.measure("replay", n, store=Path(r["cobe"]["run_dir"]) / "cobe.sqlite")
                r["cli"] = bench.measure("cli", n)
                rounds.append(r)
                for part, floor in RATIOS:
                    r[f"{part}/{floor}"] = r[part]["us_per_call"] / r[floor]["us_per_call"]  # type: ignore[assignment]
                r["cobe wall/bare wall"] = r["cobe"]["wall_s"] / r["bare"]["wall_s"]  # type: ignore[assignment]
                for part in ("bare", "bare-aio", "replay", "cobe", "cli"):
                    shown = {"bare-aio": "bare-aio/bare", "cobe": "cobe/bare", "cli": "cli/replay"}.get(part)
                    print(line(f"round {i + 1} {part}", r[part]) + (f"   {shown} {r[shown]:.2f}x" if shown else ""))
                    if r[part]["served"] != calls or r[part]["errors"]:
                        failures.append(
                            f"{part} served {r[part]['served']} calls with {r[part]['errors']} failed; expected {calls}"
                        )
            medians = {}
            for key, what, target in TARGETS:
                medians[key] = statistics.median(float(r[key]) for r in rounds)  # type: ignore[arg-type]
                if target is None:
                    print(f"{what} (median of {args.pairs}): {medians[key]:.2f}x")
                    continue
                verdict = "OK" if medians[key] <= target else "OVER"
                print(f"{what} (median of {args.pairs}): {medians[key]:.2f}x (target <= {target}x) {verdict}")
                if medians[key] > target:
                    failures.append(f"ratio {key} {medians[key]:.2f}x")
            firsts = {
                p: statistics.median(r[p]["first_call_s"] or 0.0 for r in rounds)
                for p in ("bare", "bare-aio", "cobe", "cli")
            }
            print(
                "time from process start to the first answer (median of rounds): "
                + ", ".join(f"{p} {firsts[p]:.2f} s" for p in firsts)
            )
            pairs = [(r["bare"], r["cobe"]) for r in rounds]
            ratio = medians["cobe/bare"]
            ratios = [float(r["cobe/bare"]) for r in rounds]  # type: ignore[arg-type]
            if args.breakdown:  # apart from the rounds: the wrappers and -X importtime cost a little
                part = bench.measure("breakdown", n, importtime=True)
                floor = sorted((r["replay"] for r in rounds), key=lambda p: p["cpu_s"])[len(rounds) // 2]
                print_breakdown(part, floor)
                results["breakdown"] = part
            if args.profile is not None:  # apart from the rounds: a profiled process is slower
                bench.measure(bench.profiled, n, profiled=True)
                print(f"profile of one {bench.profiled} part at N = {n}: {args.profile}")
            repeat = bench.measure("cobe", n, Path(pairs[-1][1]["run_dir"]))
            ok = repeat["served"] == 0 and repeat["wall_s"] < 5
            print(
                f"repeat of the finished run: {repeat['served']} calls, wall {repeat['wall_s']:.2f} s, "
                f"CPU {repeat['cpu_s']:.2f} s, peak RSS {repeat['rss_mb']:.0f} MB (target 0 calls, < 5 s) "
                f"{'OK' if ok else 'OVER'}"
            )
            if not ok:
                failures.append("repeat run")
            results |= {"rounds": rounds, "medians": medians, "ratios": ratios, "ratio": ratio, "repeat": repeat}
            if args.scale:
                # peak RSS of the whole command, as a user's process grows with the data
                small = statistics.median(r["cli"]["rss_mb"] for r in rounds)
                scale_bare = bench.measure("bare", args.scale) if args.scale_bare else None
                b = bench.measure("cli", args.scale)
                print(f"scale point N = {args.scale}:")
                if scale_bare is not None:
                    print(line("bare", scale_bare))
                    print(line("cobe", b) + f"   ratio {b['us_per_call'] / scale_bare['us_per_call']:.2f}x")
                else:
                    print(line("cobe", b))
                growth = b["rss_mb"] / small
                verdict = "OK" if growth <= 1.15 else "OVER"
                print(
                    f"`cobe eval` peak RSS N = {args.scale} / N = {n}: {b['rss_mb']:.0f} / {small:.0f} MB = "
                    f"{growth:.2f}x (target <= 1.15x) {verdict}"
                )
                if growth > 1.15:
                    failures.append(f"RSS growth {growth:.2f}x")
                for r in (b,) if scale_bare is None else (scale_bare, b):
                    if r["served"] != args.scale * 4 or r["errors"]:
                        failures.append(f"scale part served {r['served']} calls with {r['errors']} failed")
                results |= {"scale": {"bare": scale_bare, "cobe": b, "rss_growth": growth}}
            if args.scale and args.scale_models > 1:
                k = args.scale_models
                small = statistics.median(b["rss_mb"] for _, b in pairs)
                b = bench.measure("cobe", args.scale, models=k)
                print(f"scale point N = {args.scale} as {args.scale // k} scenarios x {k} models:")
                print(line("cobe", b))
                growth = b["rss_mb"] / small
                print(
                    f"cobe peak RSS N = {args.scale} ({k} models) / N = {n}: {b['rss_mb']:.0f} / {small:.0f} MB = "
                    f"{growth:.2f}x (target <= 1.15x) {'OK' if growth <= 1.15 else 'OVER'}"
                )
                if b["served"] != args.scale // k * k * 4 or b["errors"]:
                    failures.append(f"models scale part served {b['served']} calls with {b['errors']} failed")
                results |= {"scale_models": {"models": k, "cobe": b, "rss_growth": growth}}
        finally:
            bench.close()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if failures:
        print("not met: " + "; ".join(failures))


if __name__ == "__main__":
    main()
