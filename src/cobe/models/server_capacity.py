"""How many calls an OpenAI-compatible server serves at once, where it says: a llama.cpp server's slots
(`GET /props`: `total_slots`; `GET /slots`: one entry per slot), a vLLM server's `max_num_seqs` where its
Prometheus metrics (`GET /metrics`) carry it as a label. A server that says none of these (llama-cpp-python's own
server, a hosted API) has no advertised capacity, and its calls start at the provider's default window.

The scheduler reads it once per provider, before the first call (`cobe.calls.scheduler`), so a one-slot server is
never sent eight calls to queue until they time out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import urlsplit, urlunsplit

#: where each server family says it, tried in order; the first that answers decides
PATHS = ("/props", "/slots", "/metrics")
_MAX_NUM_SEQS = re.compile(r'max_num_seqs="(\d+)"')

#: GET url → (status, body text); raises on a connection error
Fetch = Callable[[str], Awaitable[tuple[int, str]]]


def server_root(base_url: str) -> str:
    """The server's root from an OpenAI base URL: `http://host:8000/v1` → `http://host:8000`."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    path = path[: -len("/v1")] if path.endswith("/v1") else path
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], path, "", ""))


def capacity_from(path: str, body: str) -> int | None:
    """The calls served at once that one answer says, or None where it says nothing usable."""
    if path == "/metrics":
        found = _MAX_NUM_SEQS.search(body)
        return int(found.group(1)) if found and int(found.group(1)) > 0 else None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if path == "/props" and isinstance(data, dict):
        slots = data.get("total_slots")
        return slots if isinstance(slots, int) and not isinstance(slots, bool) and slots > 0 else None
    if path == "/slots" and isinstance(data, list) and data:
        return len(data)
    return None


async def one_server(root: str, fetch: Fetch) -> int | None:
    """What one server says of its capacity, from the first of PATHS that answers with it."""
    for path in PATHS:
        try:
            status, body = await fetch(root + path)
        except Exception:  # noqa: BLE001 - a path the server lacks or refuses says nothing
            continue
        if status == 200:
            found = capacity_from(path, body)
            if found is not None:
                return found
    return None


async def advertised_capacity(servers: Iterable[tuple[str, Fetch]]) -> int | None:
    """The calls a fleet of servers (each its base URL and a way to GET from it) serves at once: their sum where
    every one says, else None (a fleet with a server that does not say is not bounded by those that do)."""
    said = [await one_server(server_root(url), fetch) for url, fetch in servers]
    return None if not said or None in said else sum(n for n in said if n is not None)
