"""How the CLI prints what users and raters wrote: plain consoles, tables that keep their columns when piped,
and numbers that may be missing."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

if TYPE_CHECKING:
    from cobe.core.progress import PlainProgress, RichProgress

#: the width a piped listing's one-line text column is cut to (a terminal uses its own width)
PIPED_WIDTH = 120


def plain_console(*, soft_wrap: bool = False, width: int | None = None) -> Console:
    """A console that shows stored text as is: no markup, highlighting or emoji codes read into it."""
    return Console(highlight=False, soft_wrap=soft_wrap, markup=False, emoji=False, width=width)


def print_table(table: Table, console: Console | None = None) -> None:
    """Print a table; piped or captured, as wide as its columns need, so no column is squeezed to `mod…`.

    A terminal has a width to fit; a pipe has none, and rich's guess of 80 columns would cut model names."""
    console = console or plain_console()
    if console.is_terminal:
        console.print(table)
        return
    needed = Measurement.get(console, console.options.update_width(10_000), table).maximum
    if needed > console.width:  # print(width=) only narrows; the console itself must be this wide
        console.width = needed
    console.print(table)


def listing(header: tuple[str, ...], rows: Sequence[tuple[str, ...]], *, title: str) -> None:
    """Rows as a table: every column at its full width but the last (a story), which gets one line in what is left."""
    console = plain_console()
    *short, last = header
    widths = [max([len(name), *(len(row[i]) for row in rows)]) for i, name in enumerate(short)]
    table = Table(title=title)
    for width, name in zip(widths, short):
        table.add_column(name, no_wrap=True, min_width=width)
    room = console.width if console.is_terminal else PIPED_WIDTH
    table.add_column(
        last, no_wrap=True, overflow="ellipsis", max_width=max(20, room - sum(widths) - 3 * len(widths) - 4)
    )
    for row in rows:
        table.add_row(*row)
    print_table(table, console)


def num(value: Any, digits: int = 3) -> str:
    """A float to `digits` places, anything else as text, and a dash for a missing value."""
    return "—" if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def progress_display(verbose: bool = False) -> PlainProgress | RichProgress:
    """How a long command shows its progress: rich bars on a terminal; elsewhere (CI logs, nohup, pipes) a plain
    `progress:` line on stderr per stage at least every 10 s and at each 5% done."""
    from cobe.core.progress import PlainProgress, RichProgress

    return RichProgress(verbose) if sys.stdout.isatty() else PlainProgress(verbose)
