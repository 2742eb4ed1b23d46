"""Shares with their exact interval, and the flips of a question asked several times: the judge audit's counts.

An item flips when the answers it got to the same question are not all the same; an unparseable answer
(None) abstains, and an item counts only with two or more answers that parsed, as the flip rate of a panel's
samples counts (docs/JUDGE_PANELS.md).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from cobe.score.binomial import clopper_pearson


@dataclass(frozen=True)
class Share:
    """`hits` of `n` with its exact (Clopper–Pearson) interval; share and bounds are None when n is 0."""

    hits: int
    n: int
    level: float = 0.95

    @property
    def share(self) -> float | None:
        """hits / n."""
        return self.hits / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """The exact interval at `level`, None without trials."""
        return clopper_pearson(self.hits, self.n, self.level) if self.n else None

    def as_dict(self) -> dict[str, float | int | None]:
        """JSON-ready: hits, n, share and the interval's bounds."""
        low, high = self.interval or (None, None)
        return {"hits": self.hits, "n": self.n, "share": self.share, "ci_low": low, "ci_high": high}

    def text(self) -> str:
        """'7/20 = 35% [15%, 59%]', or 'no item' without one."""
        if not self.n:
            return "no item"
        low, high = self.interval or (0.0, 0.0)
        return f"{self.hits}/{self.n} = {self.hits / self.n:.0%} [{low:.0%}, {high:.0%}]"


def flipped(answers: Sequence[Hashable | None]) -> bool | None:
    """Whether the parsed answers disagree; None when fewer than two parsed."""
    parsed = [a for a in answers if a is not None]
    if len(parsed) < 2:
        return None
    return len(set(parsed)) > 1


def flip_share(items: Iterable[Sequence[Hashable | None]], level: float = 0.95) -> Share:
    """Of the items with two or more parsed answers, those whose answers disagree."""
    counted = [f for f in (flipped(answers) for answers in items) if f is not None]
    return Share(sum(counted), len(counted), level)
