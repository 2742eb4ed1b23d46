"""The verdicts an inspect log's samples carry, read back for `cobe import --from inspect`.

A log of the cobe task (`inspect eval cobe/cobe`, or `cobe export --to inspect`) scores each sample with
`cobe_judge`: one verdict per check (its metadata's letters, else the value's 1.0 / 0.0 / NaN) and the
judge that gave them. A log scored by any other scorer gives, at most, one overall verdict per sample:
inspect's `C` / `I`, a boolean, or 1 / 0. Either becomes the run's verdict set `inspect (imported)`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cobe.core.results import Verdict
from cobe.judge import CHECKS

if TYPE_CHECKING:
    from inspect_ai.log import EvalSample

#: the scorer of the cobe task, whose score holds one verdict per check
SCORER_NAME = "cobe_judge"
#: inspect's own letters for a right and a wrong answer; True also matches 1 and 1.0, False 0 and 0.0
_PASSING = {"C", True}
_FAILING = {"I", False}
UNSCORED_REASON = "the inspect log's score of this sample is missing or not a pass or a fail"


@dataclass
class SampleVerdicts:
    """One sample's verdicts: per check (`checks`), or overall (`overall`); `scored` false when it has none."""

    scored: bool = False
    checks: dict[str, Verdict | None] | None = None
    reasons: dict[str, str] = field(default_factory=dict)
    overall: Verdict | None = None
    reason: str | None = None
    scorer: str | None = None
    judge: str | None = None
    judge_prompts: str | None = None
    origin: str | None = None  # where a cobe export's verdicts came from before it (e.g. the CoBe site's)


def sample_verdicts(sample: EvalSample) -> SampleVerdicts:
    """The verdicts a sample's score holds, or an unscored SampleVerdicts when it has no score."""
    scores = sample.scores or {}
    if SCORER_NAME not in scores:
        for name, score in scores.items():  # another scorer: its value as one overall verdict
            verdict = _letter(score.value)
            return SampleVerdicts(
                scored=True, overall=verdict, reason=None if verdict else UNSCORED_REASON, scorer=str(name)
            )
        return SampleVerdicts()
    score = scores[SCORER_NAME]
    metadata: dict[str, Any] = dict(score.metadata or {})
    letters: dict[str, Any] | None = metadata["verdicts"] if isinstance(metadata.get("verdicts"), dict) else None
    value: dict[str, Any] = score.value if isinstance(score.value, dict) else {}
    found = SampleVerdicts(
        scored=True,
        scorer=SCORER_NAME,
        judge=_text(metadata.get("judge")),
        judge_prompts=_text(metadata.get("judge_prompts")),
        origin=_text(metadata.get("verdicts_from")),
    )
    checks: dict[str, Verdict | None] = {
        c: _letter(letters.get(c) if letters is not None else value.get(c)) for c in CHECKS
    }
    overall = _letter(value.get("passed"))
    if not any(checks.values()) and overall is not None:  # one verdict for the whole response (the site's)
        found.overall = overall
        return found
    given: dict[str, Any] = metadata["unscored"] if isinstance(metadata.get("unscored"), dict) else {}
    found.checks = checks
    found.reasons = {c: str(given.get(c) or UNSCORED_REASON) for c, v in checks.items() if v is None}
    return found


def _letter(value: Any) -> Verdict | None:
    """T, F or None (unscored) from a letter, inspect's C / I, a boolean or 1 / 0."""
    if isinstance(value, str):
        value = value.strip().upper()
        if value in ("T", "F"):
            return "T" if value == "T" else "F"
    if isinstance(value, float) and math.isnan(value):
        return None
    try:
        if value in _PASSING:
            return "T"
        if value in _FAILING:
            return "F"
    except TypeError:  # an unhashable value (a list, a dict) is no verdict
        return None
    return None


def _text(value: Any) -> str | None:
    return str(value) if value else None


def described(log_name: str, found: list[SampleVerdicts]) -> str:
    """Where an imported inspect set's verdicts came from: the log, its scorer and the judge it names."""
    scorers = sorted({v.scorer for v in found if v.scorer})
    judges = sorted({v.judge for v in found if v.judge})
    prompts = sorted({v.judge_prompts for v in found if v.judge_prompts})
    origins = sorted({v.origin for v in found if v.origin})
    text = f"the scores of inspect log {log_name} (scorer {', '.join(scorers) or 'unknown'}"
    if origins:  # a log cobe exported from an import: the verdicts' first source
        text += f"; before that, {'; '.join(origins)}"
    elif judges:
        text += f"; judge {', '.join(judges)}"
        if prompts:
            text += f" with the {', '.join(prompts)} judge prompts"
    return text + "), imported with `cobe import --from inspect`"
