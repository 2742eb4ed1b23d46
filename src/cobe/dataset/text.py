"""Sentence splitting shared by the loaders (criteria) and the statistics (stories)."""

from __future__ import annotations

import re

# abbreviations after which a full stop does not end a sentence
_ABBREVIATIONS = ("Mr", "Mrs", "Ms", "Dr", "St", "Prof", "Jr", "Sr", "vs", "e.g", "i.e", "etc", "No")
_NOT_AFTER = "".join(rf"(?<!\b{re.escape(a)}\.)" for a in _ABBREVIATIONS if len(a) <= 4)
# exactly one space after sentence punctuation, so that " ".join(split) restores the text
_CRITERION_BOUNDARY = re.compile(rf"(?<=\S[.!?]){_NOT_AFTER} (?=[A-Z0-9\"'“‘(])")
_STORY_BOUNDARY = re.compile(rf"(?:(?<=[.!?])|(?<=[.!?][\"'”’)])){_NOT_AFTER}\s+(?=[A-Z0-9\"'“‘(])")


def split_criterion(text: str) -> list[str]:
    """A criterion string as a list of sentences; joining them with one space gives the string back."""
    text = text.strip()
    if not text:
        return []
    return [part for part in _CRITERION_BOUNDARY.split(text) if part]


def split_sentences(text: str) -> list[str]:
    """The sentences of a story (any whitespace between them)."""
    return [part.strip() for part in _STORY_BOUNDARY.split(text.strip()) if part.strip()]


WORD = re.compile(r"[A-Za-z0-9À-ÿ]+(?:['’.-][A-Za-z0-9À-ÿ]+)*")


def count_words(text: str) -> int:
    """Words in `text`: runs of letters or digits, with inner apostrophes, hyphens and points."""
    return len(WORD.findall(text))
