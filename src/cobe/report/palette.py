"""Each model's look in a report's figures: its own colour up to twelve models, then the colours again
with a hatching, so a thirteenth model never looks like the first.

A model's look comes from its place in the report's one list of labels (the leaderboard's order), never
from its place in one figure, so a model keeps its colour in every figure even where another has no bar.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Okabe–Ito (distinguishable under the common colour-vision deficiencies), then four of Paul Tol's
#: muted colours (wine, olive, indigo, grey) that stay at least as far from each of them (CIE76 ΔE > 26)
#: as Okabe–Ito's two blues are from each other
PALETTE: tuple[str, ...] = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#000000",
    "#882255",
    "#999933",
    "#332288",
    "#AAAAAA",
)
#: the second, third … round of the palette: each colour again, striped
HATCHES: tuple[str, ...] = ("", "//", "..", "xx", "\\\\", "++")


@dataclass(frozen=True)
class BarStyle:
    """How one model's bars look: a fill colour and a hatching ('' for none)."""

    colour: str
    hatch: str


def bar_style(index: int) -> BarStyle:
    """The look of the model at `index` of a report's labels: unique for the first 72."""
    return BarStyle(PALETTE[index % len(PALETTE)], HATCHES[(index // len(PALETTE)) % len(HATCHES)])


def model_styles(labels: list[str]) -> dict[str, BarStyle]:
    """Each label's look, by its place in the report's list of labels."""
    return {label: bar_style(index) for index, label in enumerate(labels)}
