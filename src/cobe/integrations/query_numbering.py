"""Which template a verdict file's query index names: 0-based, 1-based, or the CoBe site's 2, 5, 7.

The site numbers a scenario's queries by their place in the authors' files (`query_idx` 2, 5, 7 → A, B,
C, `cobe.dataset.queries.site_query_idx`), the numbering `--from cobe-site` reads. A verdict file whose
indices fall outside the declared base's three but are all site numbers is read with the site's map, so
the same rows name the same templates whichever import reads them.
"""

from __future__ import annotations

from collections.abc import Iterable

from cobe.dataset.queries import PHRASINGS, site_query_idx

#: `query_index_base` values a mapping file may give: 0, 1, or `site`
BASES = (0, 1, "site")


def numbering(base: int | str, indices: Iterable[object]) -> dict[int, str]:
    """Index → template for a file: its declared base's, or the site's where only that reads every index."""
    if base == "site":
        return site_query_idx()
    declared = {int(base) + place: name for place, name in enumerate(PHRASINGS)}
    seen = {_as_int(index) for index in indices} - {None}
    site = site_query_idx()
    if seen and not seen <= declared.keys() and seen <= site.keys():
        return site
    return declared


def _as_int(value: object) -> int | None:
    try:
        return None if isinstance(value, bool) else int(str(value))
    except ValueError:
        return None


def describe(numbers: dict[int, str]) -> str:
    """The indices a numbering accepts, for an error message: '0..2' or '2, 5, 7 (the CoBe site's)'."""
    keys = sorted(numbers)
    if keys == list(range(keys[0], keys[0] + len(keys))):
        return f"{keys[0]}..{keys[-1]}, or the CoBe site's 2, 5, 7"
    return ", ".join(str(k) for k in keys) + " (the CoBe site's)"
