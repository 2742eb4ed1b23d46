"""A store in its run directory: find it, open it, or set an unusable one aside with the run's exports."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from cobe.core.errors import InputError
from cobe.core.sqlite import UnusableDatabase
from cobe.store.damage import DamagedStore
from cobe.store.store import STORE_NAME, Store

# what a run directory holds besides what the user put there: the store and everything derived from it
RUN_FILES = (
    STORE_NAME,
    f"{STORE_NAME}-wal",
    f"{STORE_NAME}-shm",
    f"{STORE_NAME}-journal",
    "results.jsonl",
    "summary.json",
    "report.md",
    "report.html",
    "results.parquet",
    ".report-digest",
    "figures",
    "tables",
)


def open_run_store(run_dir: Path, force_new: bool) -> tuple[Store, list[str]]:
    """(store, notices): an unusable store is refused, or with `force_new` set aside with the run's exports."""
    path = run_dir / STORE_NAME
    try:
        return Store(path), []
    except UnusableDatabase as exc:
        if not force_new:
            fixes = "use another --run-dir, or --force-new to move it and this run's exports aside"
            if isinstance(exc, DamagedStore):  # one list of what to do, not the store's and this one's
                raise InputError(f"{path}: damaged cobe store ({exc.detail}); restore it from a copy, {fixes}") from exc
            raise InputError(f"{exc}: {fixes}") from exc
        reason = exc.reason.partition("; nothing was changed")[0]
    folder = set_aside(run_dir)
    return Store(path), [f"{path}: {reason}; it and the run's exports were moved to {folder}"]


def set_aside(run_dir: Path) -> Path | None:
    """Move the store and the exports of a run directory into `previous-<UTC time>/` inside it; None if none."""
    present = [run_dir / name for name in RUN_FILES if os.path.lexists(run_dir / name)]
    if not present:
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder, n = run_dir / f"previous-{stamp}", 1
    while True:  # a second set-aside within the same second gets its own folder
        try:
            folder.mkdir()
            break
        except FileExistsError:
            folder, n = run_dir / f"previous-{stamp}-{n}", n + 1
    for item in present:
        os.replace(item, folder / item.name)  # a rename within the directory: nothing is copied or lost
    return folder


def find_store(run_dir: Path) -> Path:
    """The store file of a run directory, or a one-line error."""
    path = Path(run_dir) / STORE_NAME
    if not path.is_file():
        raise InputError(f"{run_dir}: not a run directory (no {STORE_NAME})")
    return path
