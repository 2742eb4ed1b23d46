"""Verdicts a source published (the CoBe site's `correct` / `wrong` / `unknown`): one overall verdict per
response, with no per-check detail, kept in the store as a verdict set named for its source.

Such a set is stored as one verdict row per response under the check name `overall` (T: passed, F: failed,
no letter: unscored with the source's reason). It is never asked again: no model gave it, and no prompt.
"""

from __future__ import annotations

from cobe.judge.lineup import JudgeRef

#: the prompt-set name and fingerprint of a published verdict set: no judge prompt produced it
PUBLISHED = "published"
#: the check name a published verdict is stored under
OVERALL = "overall"


def published_ref(source: str) -> JudgeRef:
    """The verdict set of a source's own verdicts, e.g. `cobe-site (published)`."""
    return JudgeRef(f"{source} (published)", PUBLISHED, PUBLISHED)


def is_published(ref: JudgeRef | None) -> bool:
    """Whether a verdict set holds a source's published overall verdicts, not a judge's per-check ones."""
    return ref is not None and not ref.combined and ref.fingerprint == PUBLISHED
