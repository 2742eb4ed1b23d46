"""The call path's store lookups with typed rows (issue 41, item 5) against the `sqlite3.Row` read they replaced,
in the same run on the same store.

    python benchmarks/bench_store_rows.py              # 20,000 lookups of each kind, the median of 5 rounds
    python benchmarks/bench_store_rows.py --lookups 100000

Each lookup is what `Caller` does for a call the store may answer: `Store.get_call(key)` and the `CallRecord` made
of the row (`cobe.calls.caller._from_row`), and what resume does per item: `Store.response(...)`. The baseline runs
the same SQL on the same connection with `sqlite3.Row` and reads its columns by name, as cobe did before.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cobe.calls.caller import _from_row
from cobe.models.base import CallRecord
from cobe.store.store import Store, now


def _old_record(row: Any) -> CallRecord:
    """The CallRecord as cobe made it of a `sqlite3.Row` before typed rows."""
    logprobs = row["first_token_logprobs"]
    return CallRecord(
        key=row["key"],
        text=row["response"],
        error=row["error"],
        finish_reason=row["finish_reason"],
        input_tokens=row["input_tokens"],
        output_tokens=row["output_tokens"],
        cached_input_tokens=row["cached_input_tokens"],
        cache_write_tokens=row["cache_write_tokens"],
        latency_s=row["latency_s"],
        attempts=row["attempts"],
        first_token_logprobs=json.loads(logprobs) if logprobs else None,
        cost_usd=row["cost_usd"],
        cached=True,
    )


def _filled(path: Path, n: int) -> Store:
    store = Store(path)
    store.create_run("r1", {"data": "d", "models": ["m"], "template_names": ["A"]}, "bench")
    with store.batch():
        for i in range(n):
            call = {"key": f"k{i}", "role": "respondent", "spec": "m", "request": "{}", "response": "a story",
                    "finish_reason": "stop", "input_tokens": 100, "output_tokens": 50, "latency_s": 0.5,
                    "error": None, "attempts": 1, "first_token_logprobs": None, "cost_usd": 0.001, "created": now()}  # fmt: skip
            store.put_call(call)
            store.put_response({"run_id": "r1", "model": "m", "scenario_id": f"s{i}", "template": "A",
                                "call_key": f"k{i}", "prompt": "p", "text": "a story", "error": None,
                                "finish_reason": "stop", "input_tokens": 100, "output_tokens": 50,
                                "cost_usd": 0.001, "created": now()})  # fmt: skip
    return store


def _median(work: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    """Time each lookup both ways and print the typed rows' time as a ratio of the old one's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lookups", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    n = options.lookups
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        store = _filled(Path(folder) / "cobe.sqlite", n)
        db = store.db
        db.row_factory = sqlite3.Row
        keys = [f"k{i}" for i in range(n)]
        old_call = "SELECT * FROM calls WHERE key = ? AND error IS NULL"
        old_response = (
            "SELECT * FROM responses WHERE run_id = ? AND model = ? AND scenario_id = ? AND template = ? AND epoch = ?"
        )
        cases = {
            "get_call + CallRecord": (
                lambda: [_old_record(db.execute(old_call, (k,)).fetchone()) for k in keys],
                lambda: [_from_row(store.get_call(k)) for k in keys],
            ),
            "response (resume, per item)": (
                lambda: [db.execute(old_response, ("r1", "m", f"s{i}", "A", 1)).fetchone()["text"] for i in range(n)],
                lambda: [store.response("r1", "m", f"s{i}", "A").text for i in range(n)],
            ),
        }
        for name, (old, new) in cases.items():
            old(), new()  # warm the page cache and the statement cache
            before, after = _median(old, options.rounds), _median(new, options.rounds)
            print(
                f"{name:30} sqlite3.Row {before / n * 1e6:6.2f} us  typed row {after / n * 1e6:6.2f} us"
                f"  ratio {after / before:5.2f}"
            )
        store.close()


if __name__ == "__main__":
    main()
