"""One stored form of time ("…Z"); stamps that older files hold as "+00:00" still read and sort as times."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from cobe.core import clock


def test_now_is_utc_to_the_second_with_a_z() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    text = clock.now()
    after = datetime.now(UTC)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", text)
    moment = clock.parse(text)
    assert moment is not None and before <= moment <= after


def test_a_moment_in_another_zone_is_stamped_in_utc() -> None:
    berlin = timezone(timedelta(hours=1))
    assert clock.stamp(datetime(2026, 12, 3, 17, 0, 5, 999, tzinfo=berlin)) == "2026-12-03T16:00:05Z"


def test_both_stored_forms_read_as_the_same_moment() -> None:
    z, offset = clock.parse("2026-12-03T16:00:00Z"), clock.parse("2026-12-03T16:00:00+00:00")
    assert z == offset == datetime(2026, 12, 3, 16, 0, tzinfo=UTC)
    assert clock.parse("2026-12-03T16:00:00") == z  # no zone at all: UTC, as every cobe file means
    assert clock.parse("") is None and clock.parse(None) is None and clock.parse("yesterday") is None


def test_mixed_forms_sort_by_time_as_text() -> None:
    # SQL orders stamps as text: the first nineteen characters carry the time in both forms
    stamps = ["2026-12-03T16:00:01Z", "2026-12-03T16:00:00+00:00", "2026-12-03T15:59:59Z", "2026-12-04T00:00:00+00:00"]
    by_text = sorted(stamps)
    by_time = sorted(stamps, key=lambda s: clock.parse(s) or datetime.min.replace(tzinfo=UTC))
    assert by_text == by_time
