"""How a command run with `--json` ends when it does not finish: one JSON object on stdout, whatever stopped it.

Scripts read stdout; a command that stopped (bad input, a refused key, --max-cost, a busy run directory,
Ctrl-C, a usage error of click's) printed its one line on stderr and nothing on stdout. Under --json every
exit now prints exactly one object, `{..., "state", "exit_code", "message"}`: what the command had to report
when it stopped (`CobeError.report`, a run's table say) with the three fields over it. The one line on
stderr stays, for the person at the terminal.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import click

#: the state of a command that stopped for no run-state reason (bad input, a missing package, a bug)
ERROR_STATE = "error"
INTERRUPTED_STATE = "interrupted"


@dataclass
class JsonAsked:
    """Whether the command being run asked for --json: its option's callback sets it (click's `ctx.obj`)."""

    asked: bool = False


def record(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    """The --json option's callback: remember it was given, for the command's end (`cobe.cli.main`)."""
    if value and isinstance(ctx.obj, JsonAsked):
        ctx.obj.asked = True
    return value


def asked_before_failing(exc: click.ClickException, argv: Sequence[str]) -> bool:
    """Whether a command that click refused to start had --json among its arguments (or its variable set).

    A usage error can come before the option's callback ran (an unknown flag stops parsing), so the words
    of the command line are read instead, up to a `--`, for a command that takes --json.
    """
    ctx = getattr(exc, "ctx", None)
    if ctx is None:
        return False
    option = next((p for p in ctx.command.params if "--json" in getattr(p, "opts", ())), None)
    if option is None:
        return False
    words = list(argv)
    words = words[: words.index("--")] if "--" in words else words
    try:
        from_env = bool(option.value_from_envvar(ctx))
    except click.ClickException:  # a variable that is no boolean: --json was not asked that way
        from_env = False
    return "--json" in words or from_env


def finite(value: Any) -> Any:
    """`value` with every float that is not finite (NaN, ±inf) made None, through lists, tuples and dicts: a --json
    object is read by JSON parsers, and JSON has no NaN."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


#: the state a command that did all it was asked ends in (a run's state says more: complete, incomplete, ...)
DONE_STATE = "complete"


def done(report: dict[str, Any]) -> str:
    """The one JSON object a command that finished ends with under --json: its report, state complete, exit 0."""
    return end_object(0, None, DONE_STATE, report)


def end_object(code: int, message: str | None, state: str, report: dict[str, Any] | None = None) -> str:
    """The one JSON object a command under --json ends with: its report, then its state, exit code and message."""
    ending = {**(report or {}), "state": state, "exit_code": code, "message": message}
    return json.dumps(finite(ending), indent=2, ensure_ascii=False, default=str, allow_nan=False)
