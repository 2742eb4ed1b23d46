"""Read a judge's one-letter answer, and its probability of T, without ever guessing a verdict."""

from __future__ import annotations

import math
import re

from cobe.core.results import Verdict

_WORDS: dict[str, Verdict] = {"t": "T", "true": "T", "f": "F", "false": "F"}
# characters that decorate an answer without changing it: markdown, quotes, brackets, punctuation
_DECORATION = " \t*_`'\"“”‘’.,;:!?()[]{}<>"
_LEAD_IN = re.compile(
    r"^(?:the\s+)?(?:final\s+|my\s+)?(?:answer|verdict|judg(?:e)?ment|output|label|response|result)"
    r"(?:\s+is)?\s*[:=\-–]?\s*",
    re.IGNORECASE,
)
_REASON_CHARS = 60


def shown_reply(text: str, limit: int = _REASON_CHARS) -> str:
    """A reply as a reason line shows it: quoted and escaped as Python writes a string (newlines as \\n, so
    `'\\n\\n<answer>\\n'` stays visible and on one line), cut to about `limit` characters with '...'."""
    quoted = repr(text)
    if len(quoted) <= limit:
        return quoted
    cut = text[:limit]
    while cut and len(repr(cut)) > limit - 3:  # cut the text, never an escape in two
        cut = cut[:-1]
    quoted = repr(cut)
    return f"{quoted[:-1]}...{quoted[-1]}"


def _line_verdict(line: str) -> Verdict | None:
    """The verdict a single line states, when the line is nothing but a (decorated) verdict."""
    core = line.strip(_DECORATION)
    core = _LEAD_IN.sub("", core, count=1).strip(_DECORATION)
    return _WORDS.get(core.lower())


def parse_verdict(text: str | None) -> tuple[Verdict | None, str | None]:
    """(verdict, None) for a clear T/F answer; (None, reason) for anything empty, unclear or conflicting.

    The verdict is the first line, which an explanation may follow; or, where the first line is not a verdict,
    the last one, as a model that reasons aloud ends with its letter. Never both letters as answers.
    """
    if not text:
        return None, "empty output"
    if not text.strip():
        return None, f"empty output (only whitespace: {shown_reply(text)})"
    lines = [line for line in text.strip().splitlines() if line.strip()]
    verdict = _line_verdict(lines[0]) or _line_verdict(lines[-1])
    if verdict is None:
        return None, f"no T/F verdict in: {shown_reply(text)}"
    answers = {_line_verdict(line) for line in lines} - {None}
    if answers - {verdict}:
        return None, f"conflicting T/F verdicts in: {shown_reply(text)}"
    return verdict, None


def _token_word(token: str) -> str:
    # tokenizers mark a leading space with 'Ġ' (byte BPE) or '▁' (SentencePiece)
    return token.replace("Ġ", " ").replace("▁", " ").strip().lower()


def p_true(first_token_logprobs: dict[str, float] | None) -> float | None:
    """P(T) among the T-like and F-like first tokens ('T', ' true', ...); None if neither appears."""
    if not first_token_logprobs:
        return None
    mass: dict[Verdict, float] = {"T": 0.0, "F": 0.0}
    seen = False
    for token, logprob in first_token_logprobs.items():
        verdict = _WORDS.get(_token_word(token))
        if verdict is None or logprob is None or math.isnan(logprob):
            continue
        seen = True
        mass[verdict] += math.exp(logprob)
    total = mass["T"] + mass["F"]
    if not seen or total == 0.0:
        return None
    return mass["T"] / total
