"""Text wrapped to a width in points, measured with the font matplotlib draws it in.

Model specs and ids have no spaces (`openai-api/local2/Meta-Llama-3.1-70B`), so a word that does not fit
alone is broken after a `/`, `-` or `_`, and only where none is left, between characters.
"""

from __future__ import annotations

import re
from functools import lru_cache

from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

_PIECES = re.compile(r"[^/_-]*[/_-]|[^/_-]+")


class TextFit:
    """Measures and wraps text at one font size and weight."""

    def __init__(self, size: float, *, bold: bool = False) -> None:
        self.size = size
        self.bold = bold

    def width(self, text: str) -> float:
        """The width of one line of `text`, in points."""
        return _measure(text, self.size, self.bold)

    def wrap(self, text: str, width_pt: float) -> str:
        """`text` in lines no wider than `width_pt` (a line holds at least one character)."""
        lines: list[str] = []
        for paragraph in text.split("\n"):
            lines.extend(self._lines(paragraph.split(), width_pt) or [""])
        return "\n".join(lines)

    def _lines(self, words: list[str], width_pt: float) -> list[str]:
        lines: list[str] = []
        current = ""
        for word in words:
            joined = f"{current} {word}" if current else word
            if self.width(joined) <= width_pt:
                current = joined
                continue
            if current:
                lines.append(current)
            parts = self._split(word, width_pt)
            lines.extend(parts[:-1])
            current = parts[-1]
        if current:
            lines.append(current)
        return lines

    def _split(self, word: str, width_pt: float) -> list[str]:
        """A word too wide for a line, in pieces that fit: cut after separators first, then anywhere."""
        if self.width(word) <= width_pt:
            return [word]
        out: list[str] = []
        current = ""
        for piece in _PIECES.findall(word):
            for unit in [piece] if self.width(piece) <= width_pt else list(piece):
                if current and self.width(current + unit) > width_pt:
                    out.append(current)
                    current = ""
                current += unit
        return [*out, current] if current else out


@lru_cache(maxsize=4096)
def _measure(text: str, size: float, bold: bool) -> float:
    if not text:
        return 0.0
    prop = FontProperties(size=size, weight="bold" if bold else "normal")
    width, _, _ = TextToPath().get_text_width_height_descent(text, prop, ismath=False)
    return float(width)
