"""Run directories: a deterministic default name, opening or resuming a run in a store, the data fingerprint, listing."""

from __future__ import annotations

import hashlib
import re
import sqlite3
import uuid
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path
from typing import Any

from cobe.core.errors import InputError
from cobe.core.jsonfile import FileProblem, read_json
from cobe.core.lock import lock_holder
from cobe.core.sqlite import UnusableDatabase, database_error
from cobe.core.version import __version__
from cobe.run.config import EvalConfig
from cobe.run.respondents import model_settings
from cobe.store.damage import DamagedStore, run_config
from cobe.store.store import STORE_NAME, ReadOnlyStore, Store

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str, limit: int = 60) -> str:
    """A file-name-safe form of `text`; long ones keep a hash so distinct inputs stay distinct."""
    clean = _UNSAFE.sub("-", text).strip("-.") or "x"
    if len(clean) <= limit:
        return clean
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    return f"{clean[: limit - 9]}-{digest}"


def data_slug(data: str) -> str:
    """`builtin:starter` → `starter`; a path → its file stem."""
    if data.startswith("builtin:"):
        return data.split(":", 1)[1]
    return Path(data).stem or data


def default_run_dir(config: EvalConfig) -> Path:
    """`<root>/<models>__<data>[__tpl-…][__tier-N[-M…]][__ids-…][__limit-N][__sample-N-seed-S][__effort-E][__epochs-K]`:
    the same command finds the same dir."""
    parts = ["+".join(m.replace("/", "_") for m in config.models), data_slug(config.data)]
    if config.templates:
        parts.append("tpl-" + "-".join(config.templates))
    if config.tiers:
        parts.append("tier-" + "-".join(str(t) for t in config.tiers))
    if config.ids:
        parts.append(ids_slug(config.ids))
    if config.limit is not None:
        parts.append(f"limit-{config.limit}")
    if config.sample is not None:
        parts.append(f"sample-{config.sample}-seed-{config.seed}")
    if config.reasoning_effort is not None:
        parts.append(f"effort-{config.reasoning_effort}")
    if config.epochs > 1:
        parts.append(f"epochs-{config.epochs}")
    return config.runs_root / "__".join(slug(p) for p in parts)


def ids_slug(ids: list[str]) -> str:
    """`ids-115v3-317v3` for a few ids; `ids-<count>-<hash>` for many, so any choice names its own dir."""
    named = "ids-" + "-".join(ids)
    if len(ids) <= 4 and len(named) <= 40:
        return named
    digest = hashlib.sha256(",".join(sorted(ids)).encode()).hexdigest()[:8]
    return f"ids-{len(ids)}-{digest}"


def data_fingerprint(scenario_json: Iterable[str]) -> str:
    """A short hash of the scenarios a run evaluates, so an edited data file is noticed."""
    digest = hashlib.sha256()
    for doc in scenario_json:
        digest.update(doc.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()[:16]


def open_run(store: Store, config: EvalConfig, stored: dict[str, Any]) -> tuple[str, bool]:
    """(run id, resumed): resume the store's run when it asks for the same results, else refuse."""
    row = store.latest_run()
    if row is not None and not config.force_new:
        old = run_config(store.path, row)  # every cobe has stored its template_names: an old run resumes
        mine = {k: stored.get(k) for k in (*config.identity(), "data_fingerprint")}
        theirs: dict[str, Any] = {k: old.get(k) for k in mine}
        mine["respondent settings"], theirs["respondent settings"] = model_settings(stored), model_settings(old)
        if theirs.get("epochs") is None:  # a run stored before --epochs existed asked once per item
            theirs["epochs"] = 1
        if isinstance(theirs.get("models"), list):
            theirs["models"] = sorted(theirs["models"])
        mine["models"] = sorted(mine["models"] or [])
        differ = [k for k in mine if mine[k] != theirs[k]]
        if differ:
            what = ", ".join("data" if k == "data_fingerprint" else k for k in differ)
            raise InputError(
                f"{store.path.parent}: holds a run with different {what}; use another --run-dir, "
                "or --force-new to start a new run in this directory"
            )
        store.set_state(row.id, "running")
        return row.id, True
    run_id = uuid.uuid4().hex[:12]
    store.create_run(run_id, stored, __version__)
    return run_id, False


def _stored_run(store: Store) -> dict[str, Any]:
    """What `cobe runs` shows of a store's newest run: id, state, models, judge, updated, responses."""
    row = store.latest_run()
    if row is None:
        return {}
    responses = store.response_count(row.id)
    models = run_config(store.path, row)["models"]
    return {
        "run_id": row.id,
        "state": row.state,
        "models": models,
        "judge": row.judge,
        "updated": row.updated,
        "responses": responses,
    }


def _shown_judge(entry: dict[str, Any], summary: dict[str, Any]) -> None:
    """The judge of the numbers listed: summary.json's. While a re-judge runs the store already names the new
    judge, whose numbers are not written yet: it is listed apart, as `judging`."""
    written = summary.get("judge")
    if not isinstance(written, str) or not written:
        return
    if entry.get("judge") and entry["judge"] != written:
        entry["judging"] = entry["judge"]
    entry["judge"] = written


def list_runs(root: str | Path = "runs") -> list[dict[str, Any]]:
    """Every run directory under `root`: state, models, judge, counts and accuracy from summary.json."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root}: no such directory")
    found = []
    for path in sorted({p.parent for p in root.glob(f"**/{STORE_NAME}")}):
        entry: dict[str, Any] = {"run_dir": str(path), "state": "?", "models": [], "judge": None}
        holder = lock_holder(path)
        try:
            # read only, and with no writer at work read without making -wal / -shm files: a listing
            # changes nothing in the folders it reads, and works on a read-only mount
            with closing(ReadOnlyStore(path / STORE_NAME, idle=holder is None)) as store:
                entry.update(_stored_run(store))
        except sqlite3.DatabaseError as exc:  # a dropped table is damage; a lock or a permission is the machine's
            damage = isinstance(database_error(path / STORE_NAME, "cobe store", exc), UnusableDatabase)
            entry["state"] = f"{'damaged' if damage else 'unreadable'} ({exc})"
        except DamagedStore as exc:  # listed as what it is; the other runs are listed as usual
            entry["state"] = f"damaged ({exc.detail})"
        if holder is not None:  # a command is at work here now, whatever the store says
            entry["state"] = "running"
            entry["held_by"] = holder
        elif entry["state"] == "running":  # said running, but nobody holds the lock: killed
            entry["state"] = "interrupted"
        summary = path / "summary.json"
        if summary.is_file():
            try:
                written = read_json(summary, "a run summary (JSON)")
                entry["accuracy"] = {m: v.get("accuracy") for m, v in written.get("models", {}).items()}
                _shown_judge(entry, written)
            except (FileProblem, AttributeError):
                pass
        found.append(entry)
    return found
