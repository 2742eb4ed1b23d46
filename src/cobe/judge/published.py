"""Verdicts a source gave (the CoBe site's `correct` / `wrong` / `unknown`, an inspect log's scores, an
lm-eval metric), kept in the store as a verdict set named for its source: `cobe-site (published)`,
`inspect (imported)`, `lm-eval (imported)`.

Such a set is stored as one verdict row per response under the check name `overall` (T: passed, F: failed,
no letter: unscored with the source's reason), or, where the source judged each check (an inspect log of the
cobe task), one row per check. It is never asked again: no cobe judge gave it, and no prompt.
"""

from __future__ import annotations

from cobe.judge.judge_plan import JudgeRef

#: the prompt-set name and fingerprint of a published verdict set: no judge prompt produced it
PUBLISHED = "published"
#: the prompt-set name of the verdicts another harness's log or samples file carried
IMPORTED = "imported"
#: the check name a published verdict is stored under
OVERALL = "overall"
#: how a response of such a set passes, for the reports' accuracy line: the checks' rule has nothing to combine
SOURCE_DECIDES = (
    "A response passes or fails as its source's one verdict says (no per-check verdicts to combine); "
    "one the source calls unknown is unscored"
)


def published_ref(source: str) -> JudgeRef:
    """The verdict set of a source's own verdicts, e.g. `cobe-site (published)`."""
    return JudgeRef(f"{source} (published)", PUBLISHED, PUBLISHED)


def imported_ref(source: str) -> JudgeRef:
    """The verdict set of the scores another harness's file carried, e.g. `inspect (imported)`."""
    return JudgeRef(f"{source} (imported)", IMPORTED, PUBLISHED)


def judge_label(spec: str, prompts: str | None) -> str:
    """A verdict set as a table's judge column names it: `spec (prompts)`, or the spec alone for a source's own
    set, whose name already says it (`cobe-site (published)`, never `cobe-site (published) (published)`)."""
    if not prompts or prompts in (PUBLISHED, IMPORTED):
        return spec
    return f"{spec} ({prompts})"


def is_published(ref: JudgeRef | None) -> bool:
    """Whether a verdict set holds a source's own verdicts (published or imported), not a cobe judge's."""
    return ref is not None and not ref.combined and ref.fingerprint == PUBLISHED
