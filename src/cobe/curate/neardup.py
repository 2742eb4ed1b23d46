"""Near-duplicate stories: rapidfuzz token-set similarity, with MinHash LSH to prefilter at scale."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz

from cobe.core.extras import require

DEFAULT_THRESHOLD = 90.0  # token_set_ratio, 0-100
# below this many stories a pairwise comparison is cheap; above it MinHash picks candidate pairs
LSH_FROM = 2000
_WORD = re.compile(r"[a-z0-9']+")


def _shingles(text: str, k: int = 3) -> set[str]:
    words = _WORD.findall(text.lower())
    if len(words) < k:
        return {" ".join(words)}
    return {" ".join(words[i : i + k]) for i in range(len(words) - k + 1)}


@dataclass
class Match:
    """A stored story that a new one is too close to."""

    other_id: str
    score: float


class NearDupIndex:
    """Stories seen so far; `find` says whether a new one is a near-duplicate of any of them."""

    def __init__(self, threshold: float = DEFAULT_THRESHOLD, use_lsh: bool | None = None) -> None:
        self.threshold = threshold
        self.texts: dict[str, str] = {}
        self._use_lsh = use_lsh
        self._lsh: Any = None  # a datasketch.MinHashLSH once the set is large enough
        self._num_perm = 64

    def _lsh_on(self) -> bool:
        return self._use_lsh if self._use_lsh is not None else len(self.texts) >= LSH_FROM

    def _minhash(self, text: str) -> Any:
        # imported on first use: only sets past LSH_FROM stories need it
        datasketch = require("datasketch", "curate", "near-duplicate search over large sets")
        mh = datasketch.MinHash(num_perm=self._num_perm, seed=1)
        for shingle in _shingles(text):
            mh.update(shingle.encode("utf-8"))
        return mh

    def _build_lsh(self) -> None:
        datasketch = require("datasketch", "curate", "near-duplicate search over large sets")
        # a low Jaccard threshold: LSH only proposes pairs; rapidfuzz makes the decision
        self._lsh = datasketch.MinHashLSH(threshold=0.3, num_perm=self._num_perm)
        for key, text in self.texts.items():
            self._lsh.insert(key, self._minhash(text))

    def add(self, key: str, text: str) -> None:
        """Remember a story under `key`."""
        self.texts[key] = text
        if self._lsh is not None:
            self._lsh.insert(key, self._minhash(text))
        elif self._lsh_on():
            self._build_lsh()

    def candidates(self, text: str) -> list[str]:
        """The stored keys worth comparing with `text`: all of them, or LSH's proposals at scale."""
        if not self._lsh_on():
            return list(self.texts)
        if self._lsh is None:
            self._build_lsh()
        return list(self._lsh.query(self._minhash(text)))

    def find(self, text: str, exclude: str | None = None) -> Match | None:
        """The closest stored story at or above the threshold, if any."""
        best: Match | None = None
        for key in self.candidates(text):
            if key == exclude:
                continue
            score = fuzz.token_set_ratio(text, self.texts[key])
            if score >= self.threshold and (best is None or score > best.score):
                best = Match(key, score)
        return best


def near_duplicate_pairs(stories: dict[str, str], threshold: float = DEFAULT_THRESHOLD) -> list[tuple[str, str, float]]:
    """Every pair (earlier id, later id, score) of stories at or above the threshold, in input order."""
    index = NearDupIndex(threshold)
    pairs: list[tuple[str, str, float]] = []
    for key, text in stories.items():
        for other in index.candidates(text):
            score = fuzz.token_set_ratio(text, index.texts[other])
            if score >= threshold:
                pairs.append((other, key, score))
        index.add(key, text)
    return pairs
