"""Where each spec's calls go (migration 0010), and the calls a store made before their keys named it.

A call's key names its endpoint (`cobe.calls.keys`). Calls a store held before that were keyed without one;
the first command that sends a spec's calls from such a store gives them the key they would have at the
endpoint it uses (`adopt`), so the store keeps answering them as it did. From then on the spec's endpoint is
recorded, and a command that finds it pointing elsewhere says so and is answered by that server alone.
Neither write is made inside a `Store.batch`: both come before the calls of the spec they concern.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from cobe.core.clock import now
from cobe.core.sqlite import write_transaction
from cobe.store.store import Store

#: (old key, new key, new request JSON) for one call given its endpoint
Rekeyed = tuple[str, str, str]


def keys_without_endpoint(store: Store) -> bool:
    """Whether the store held calls before keys named their endpoint (the mark migration 0010 left)."""
    row = store.db.execute("SELECT 1 FROM store_marks WHERE name = 'keys_without_endpoint'").fetchone()
    return row is not None


def recorded_endpoint(store: Store, spec: str) -> str | None:
    """The endpoint `spec`'s calls last went to from this store, or None before its first call."""
    row = store.db.execute("SELECT endpoint FROM endpoints WHERE spec = ?", (spec,)).fetchone()
    return None if row is None else str(row[0])


def note_endpoint(
    store: Store,
    spec: str,
    endpoint: str,
    rekey: Callable[[str], tuple[str, str]],
    renamed: Callable[[str], str] | None = None,
) -> str | None:
    """Record that `spec`'s calls go to `endpoint`; the endpoint they went to before, when it was another one.

    On a store that keyed calls without an endpoint, the spec's first note adopts its old calls for this
    endpoint: `rekey(request JSON)` gives each its (request JSON, key) here, and every row naming the old key
    (the call, its responses and verdicts, a batch's list) names the new one, in one transaction. A recorded
    endpoint that `renamed` makes this one is this endpoint under the name an earlier cobe gave it (its URL's
    query values in the clear): its calls are adopted the same way, and no longer hold those values.
    """
    before = recorded_endpoint(store, spec)
    if before == endpoint:
        return None
    adopt: list[Rekeyed] = []
    same = before is not None and renamed is not None and renamed(before) == endpoint
    if (before is None and keys_without_endpoint(store)) or same:
        rows = store.db.execute("SELECT key, request FROM calls WHERE spec = ?", (spec,)).fetchall()
        for key, request in rows:
            if same and json.loads(request).get("endpoint") != before:
                continue  # a call made at another endpoint still: it keeps its own key
            text, new = rekey(request)
            if new != key:
                adopt.append((key, new, text))
    if same:  # the old requests held a token: their bytes are overwritten, not only freed (SQLite's own default
        store.db.execute("PRAGMA secure_delete = ON")  # where it is built so, as Debian's is; set where it is not)
    store.commit_turn()  # a transaction of its own, not inside the calls waiting for the loop's turn
    with write_transaction(store.db):
        _rekey(store, adopt)
        store.db.execute(
            "INSERT INTO endpoints (spec, endpoint, updated) VALUES (?, ?, ?)"
            " ON CONFLICT (spec) DO UPDATE SET endpoint = excluded.endpoint, updated = excluded.updated",
            (spec, endpoint, now()),
        )
    return None if same else before


def _rekey(store: Store, adopt: Sequence[Rekeyed]) -> None:
    if not adopt:
        return
    db = store.db
    db.executemany(
        "UPDATE calls SET key = ?, request = ? WHERE key = ?", [(new, text, old) for old, new, text in adopt]
    )
    pairs = [(new, old) for old, new, _ in adopt]
    db.executemany("UPDATE responses SET call_key = ? WHERE call_key = ?", pairs)
    db.executemany("UPDATE verdicts SET call_key = ? WHERE call_key = ?", pairs)
    db.executemany(
        "UPDATE batch_calls SET key = ?, request = ? WHERE key = ?", [(new, text, old) for old, new, text in adopt]
    )
