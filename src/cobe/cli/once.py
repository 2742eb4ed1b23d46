"""Options that take one value refuse a second one, instead of click's silent "the last one wins".

`--tier 1 --tier 2` once ran tier 2 alone: a repeat that the command drops is an experiment the user did
not ask for. An option either accumulates (click's `multiple=True`, said in its help) or is a `Once`,
whose repeat is a usage error (exit 2) naming both values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
from click.core import ParameterSource


class Once(click.Option):
    """A single-valued option that refuses to be given twice on the command line."""

    def add_to_parser(self, parser: Any, ctx: click.Context) -> None:
        """Register the option so that the parser keeps every value given, to count them."""
        self.multiple = True  # only while registering: the parser appends, the rest of click sees one value
        try:
            super().add_to_parser(parser, ctx)
        finally:
            self.multiple = False

    def consume_value(self, ctx: click.Context, opts: Mapping[str, Any]) -> tuple[Any, ParameterSource]:
        """The one value given; a second one is a usage error naming both."""
        value, source = super().consume_value(ctx, opts)
        if source is ParameterSource.COMMANDLINE and isinstance(value, list):
            if len(value) > 1:
                given = ", ".join(str(v) for v in value)
                flag = self.opts[0]
                raise click.UsageError(
                    f"{flag} given {len(value)} times ({given}): it takes one value; give it once", ctx
                )
            value = value[0]
        return value, source


def takes_one(settings: Mapping[str, Any], flags: tuple[str, ...]) -> bool:
    """Whether an option with these click settings takes exactly one value (so a repeat must be refused)."""
    if settings.get("multiple") or settings.get("is_flag") or settings.get("count"):
        return False
    return not any("/" in flag for flag in flags)  # --x/--no-x is a flag
