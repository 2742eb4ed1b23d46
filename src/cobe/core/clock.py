"""The one form of a stored time: UTC, ISO 8601, to the second, with a `Z` ("2026-12-03T16:00:00Z").

Every store (run, rating study, dataset project), the run-directory lock and the web apps' sessions
stamp time through `now` or `stamp`. Files written before this module existed may hold the same
instant as "+00:00" (dataset projects did); `parse` reads both, and because the first nineteen
characters are the same in either form, two stamps still sort by time as text in SQL.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

STAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

_last: tuple[int, str] = (-1, "")  # (whole second, its text): a busy store stamps thousands of rows a second


def now() -> str:
    """The current UTC time as a stored stamp."""
    global _last
    second = int(time.time())
    if second != _last[0]:
        _last = (second, datetime.fromtimestamp(second, UTC).strftime(STAMP_FORMAT))
    return _last[1]


def stamp(moment: datetime) -> str:
    """The stored stamp of a moment (a naive one is read as local time, as `datetime.astimezone` does)."""
    return moment.astimezone(UTC).strftime(STAMP_FORMAT)


def parse(text: str | None) -> datetime | None:
    """The UTC moment of a stamp in either stored form ("Z" or "+00:00"); None when empty or unreadable."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
