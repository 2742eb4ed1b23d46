"""Where an imported run's shown verdicts came from, as its import recorded it in the store.

`cobe import` stores the source's own verdicts as a verdict set named for it (`cobe-site (published)`)
and records in the run's config where they came from and who gave them. Every place that names the
run's judge (report.md, summary.json, the exports) reads that record here, so none credits a cobe
judge with the source's verdicts.
"""

from __future__ import annotations

import json
from typing import Any

from cobe.store.store import Store


def imported_verdicts(store: Store, run_id: str, spec: str | None) -> dict[str, Any] | None:
    """`{"from": …, "by": …}` where verdict set `spec` is the one run `run_id`'s import stored; else None."""
    row = store.latest_run()
    if spec is None or row is None or row.id != run_id:
        return None
    imported = json.loads(row.config or "{}").get("imported_from")
    verdicts = (imported.get("verdicts") if isinstance(imported, dict) else None) or {}
    if verdicts.get("set") != spec or not verdicts.get("from"):
        return None
    return {"from": str(verdicts["from"]), "by": verdicts.get("by")}
