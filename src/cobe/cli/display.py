"""How the CLI prints what users and raters wrote: plain consoles and numbers that may be missing."""

from __future__ import annotations

from typing import Any

from rich.console import Console


def plain_console(*, soft_wrap: bool = False, width: int | None = None) -> Console:
    """A console that shows stored text as is: no markup, highlighting or emoji codes read into it."""
    return Console(highlight=False, soft_wrap=soft_wrap, markup=False, emoji=False, width=width)


def num(value: Any, digits: int = 3) -> str:
    """A float to `digits` places, anything else as text, and a dash for a missing value."""
    return "—" if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)
