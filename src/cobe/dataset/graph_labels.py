"""Graph-type labels as real files spell them: the site's `by_graph` keys read `Chain-like`, `Collider-like`,
`Correlated`, `Diamond-like`, `Fork-like` and `Hydrid` (sic), where the schema says chain … hybrid."""

from __future__ import annotations

import re

from cobe.dataset.schema import GraphType

#: misspellings published files carry, read as the type they mean
ALIASES = {"hydrid": "hybrid", "hybird": "hybrid", "colider": "collider"}
_SUFFIX = re.compile(r"[\s_-]*(like|shaped|type|graph)$")


def read_graph_type(label: str) -> GraphType | None:
    """The graph type a label names, whatever its case, a `-like` suffix or a known typo; None if none."""
    word = _SUFFIX.sub("", label.strip().lower()).strip(" _-")
    word = ALIASES.get(word, word)
    try:
        return GraphType(word)
    except ValueError:
        return None


def known_spellings() -> str:
    """The graph types, for a message naming what a label should have been."""
    return ", ".join(t.value for t in GraphType)
