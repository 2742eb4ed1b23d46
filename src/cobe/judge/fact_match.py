"""Which parts of a story state a criterion fact: the omission probe removes the ones that state a change fact.

A piece of text states a fact when it holds at least `STATES` (60%) of the fact's content words: words
lower-cased, a short list of function words dropped, and two words counted as one when rapidfuzz's Indel
similarity of the two is at least `SAME_WORD` (85), so "bake" meets "baked" and "tray" meets "trays" while
"gone" never meets "went". A sentence that states a change fact is removed whole, unless only a later clause
of it does (a clause that a connector opens: ", so she baked a second tray", "because ...", "and took the
bus"): then that clause alone goes and the sentence's head stays, so the facts beside it are kept. A fact paraphrased beyond its words matches nothing, and the audit counts the scenarios where
no change fact matched, and those where nothing of the story was left.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Indel

from cobe.dataset.schema import Scenario
from cobe.dataset.text import split_sentences

#: the share of a fact's content words a sentence must hold to state the fact
STATES = 0.6
#: rapidfuzz's normalised similarity (0-100) from which two words count as the same word
SAME_WORD = 85
_END = re.compile(r"[.!?]+[\"'”’)]*$")
# a later clause: a connector after a comma or semicolon ("..., so she baked"), or one of a few that need none
# ("... because", "... and took"); a bare "so" is too often "so tall" to open a clause
_AFTER_COMMA = "and|but|so|because|since|which|while|leaving|then|yet|until|when|as"
_BARE = "and|because|since"
_CLAUSE = re.compile(rf"([,;]\s+(?=(?:{_AFTER_COMMA})\b)|\s+(?=(?:{_BARE})\b))")
_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
# function words carry no fact: "the", "was", "so" are in every sentence
_FUNCTION_TEXT = """a an the and or but so yet of to in on at by for with from into onto as than then that this these
those it its is was were be been being am are had has have having did do does done he she they him her them his
their hers theirs we us our i me my you your there here which who whom whose what when where while"""
_FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())


def content_words(text: str) -> list[str]:
    """The words of `text` that carry its content, lower-cased, in order, each once."""
    words = (w.replace("’", "'") for w in _WORD.findall(text.lower()))
    return list(dict.fromkeys(w for w in words if w not in _FUNCTION_WORDS))


def _same(word: str, other: str) -> bool:
    if word == other:
        return True
    if min(len(word), len(other)) < 4:  # short words differ by one letter in meaning (cat, car)
        return False
    return Indel.normalized_similarity(word, other) * 100 >= SAME_WORD


def coverage(fact: str, sentence: str) -> float:
    """The share of `fact`'s content words that `sentence` holds (0 for a fact without any)."""
    wanted, held = content_words(fact), content_words(sentence)
    if not wanted:
        return 0.0
    return sum(1 for word in wanted if any(_same(word, other) for other in held)) / len(wanted)


def states(fact: str, sentence: str) -> bool:
    """Whether `sentence` states `fact` by the rule above."""
    return coverage(fact, sentence) >= STATES


@dataclass(frozen=True)
class Omitted:
    """The story with its change sentences removed, and what the matching found."""

    text: str
    removed: tuple[int, ...]  # positions of the removed sentences
    unmatched: tuple[str, ...]  # change facts no sentence states
    preserve_touched: bool  # a removed sentence also states a preserve fact

    def describe(self) -> str:
        """'removed sentence 2 of 2; 1 change fact matched no sentence' and the like."""
        said = f"removed sentence{'s' if len(self.removed) > 1 else ''} " + ", ".join(str(i + 1) for i in self.removed)
        if self.unmatched:
            said += f"; {len(self.unmatched)} change fact{'s' if len(self.unmatched) > 1 else ''} matched no sentence"
        if self.preserve_touched:
            said += "; a removed sentence also states a preserve fact"
        return said


def clauses(sentence: str) -> tuple[list[str], str]:
    """(the sentence's clauses, each after the first with the separator before it, its end punctuation)."""
    end = _END.search(sentence)
    body, tail = (sentence[: end.start()], end.group()) if end else (sentence, "")
    parts = _CLAUSE.split(body)
    pieces = [parts[0]] + [sep + text for sep, text in zip(parts[1::2], parts[2::2])]
    return pieces, tail


def _without_facts(sentence: str, facts: Sequence[str]) -> tuple[str | None, str, set[str]]:
    """(what is left of `sentence` once the facts it states are gone, None for nothing; the text removed; the
    facts it stated)."""
    stated = {fact for fact in facts if states(fact, sentence)}
    if not stated:
        return sentence, "", stated
    pieces, end = clauses(sentence)
    drop = {i for i, piece in enumerate(pieces) if any(states(fact, piece) for fact in stated)}
    if not drop or 0 in drop:  # the head states it, or only the sentence as a whole does
        return None, sentence, stated
    left = "".join(piece for i, piece in enumerate(pieces) if i not in drop) + end
    return left, " ".join(pieces[i] for i in sorted(drop)), stated


def omit_change_sentences(scenario: Scenario) -> Omitted:
    """The story less every sentence (or later clause) that states one of the scenario's change facts."""
    kept: list[str] = []
    removed: list[int] = []
    matched: set[str] = set()
    touched = False
    for i, sentence in enumerate(split_sentences(scenario.story)):
        left, gone, stated = _without_facts(sentence, scenario.change)
        matched |= stated
        if gone:
            removed.append(i)
            touched = touched or any(states(fact, gone) for fact in scenario.preserve)
        if left is not None:
            kept.append(left)
    unmatched = tuple(fact for fact in scenario.change if fact not in matched)
    return Omitted(" ".join(kept), tuple(removed), unmatched, touched)
