"""Click types for numeric options several commands share: ranges that refuse what would crash or hang later."""

from __future__ import annotations

import math
from typing import Any

import click


class FiniteRange(click.FloatRange):
    """A FloatRange that also refuses nan and ±inf (every comparison with nan is false, so a range alone lets it in)."""

    name = "finite float range"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The number, or a usage error when it is not finite or outside the range."""
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


#: a bootstrap seed: numpy's generators take non-negative integers only
SEED = click.IntRange(min=0)
#: bootstrap resamples: 0 (no CIs) up to a count that still finishes in seconds, not hours
RESAMPLES = click.IntRange(0, 100_000)
#: a significance level strictly between 0 and 1
ALPHA = FiniteRange(0, 1, min_open=True, max_open=True)
