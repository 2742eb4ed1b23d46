"""The illustrative answer of each scenario a report shows, read from its run's store.

results.jsonl carries the story and criteria of every row but not the dataset's illustrative answer (one valid
rewrite, never scored against); the store keeps every scenario of its run whole, so the response browser reads
the answers there, once per scenario, and a report made from a bare results.jsonl simply shows none.
"""

from __future__ import annotations

import os
import socket
import sqlite3
from pathlib import Path

import pandas as pd

from cobe.core.lock import lock_holder
from cobe.store.damage import DamagedStore
from cobe.store.store import STORE_NAME, ReadOnlyStore


def _idle(directory: Path) -> bool:
    """No other process writes the store now: nobody holds the run's lock, or this very process does (`cobe eval`
    redraws its report under the lock, its store closed). Read idle, the store gains no -wal or -shm file."""
    holder = lock_holder(directory)
    return holder is None or (holder.get("pid") == os.getpid() and holder.get("host") == socket.gethostname())


def illustrative_answers(frame: pd.DataFrame) -> dict[str, str]:
    """Scenario id → its illustrative answer, for the scenarios of `frame`, from the store of each run directory
    its rows came from (the `source` column); read without writing there. A run with no store, or one that cannot
    be read, adds nothing: the answer is shown beside a response, never needed to make a report."""
    if frame.empty or not {"source", "run_id", "scenario_id"} <= set(frame.columns):
        return {}
    wanted = set(frame["scenario_id"])
    found: dict[str, str] = {}
    for (source, run_id), _ in frame.groupby(["source", "run_id"], sort=False):
        path = Path(str(source)) / STORE_NAME
        if not path.is_file() or wanted <= found.keys():
            continue
        try:
            store = ReadOnlyStore(path, idle=_idle(path.parent))
        except (sqlite3.DatabaseError, DamagedStore):
            continue
        try:
            for scenario, _ in store.scenarios(str(run_id)):
                sid, answer = scenario.id, scenario.illustrative_answer
                if sid in wanted and sid not in found and answer and answer.strip():
                    found[sid] = answer
        except (sqlite3.DatabaseError, DamagedStore):
            continue  # a store made before scenarios were kept, or a damaged one: no answers from it
        finally:
            store.close()
    return found
