"""What every option of every command gets, wherever it was declared (cobe.cli.options or a command's own
`@click.option`): its COBE_<COMMAND>_<FLAG> variable, and a refusal of a second value where it takes one.

`cobe --help` promises a variable for every flag, and cobe.cli.once that a one-value option given twice is
refused; both held only for options declared through cobe.cli.options (102 of 259 had a variable, and 64
one-value options kept the last of two values silently). `finish` is applied to each command as the `cobe`
group loads it, so an option a command declares itself cannot slip past either rule.
"""

from __future__ import annotations

import click

from cobe.cli.once import Once, takes_one

PREFIX = "COBE"
_FINISHED = "_cobe_every_flag"


def variable(path: tuple[str, ...], flag: str) -> str:
    """The variable of `flag` (its long form) on the command at `path`: COBE_EVAL_MODEL, COBE_DATA_VALIDATE_STRICT."""
    words = [PREFIX, *path, flag.lstrip("-")]
    return "_".join(words).upper().replace("-", "_")


def finish(command: click.Command, path: tuple[str, ...]) -> click.Command:
    """Give every option of `command` (and of its subcommands, for a group) its variable and, where it takes one
    value, a refusal of a second; once per command, however often it is loaded."""
    if getattr(command, _FINISHED, False):
        return command
    setattr(command, _FINISHED, True)
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            _finish_option(param, path)
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            finish(sub, (*path, name))
    return command


def _finish_option(option: click.Option, path: tuple[str, ...]) -> None:
    long = [flag for flag in option.opts if flag.startswith("--")]
    if not long or option.name in ("help", "version"):
        return
    own = variable(path, long[0])
    shared = [] if option.envvar is None else [option.envvar] if isinstance(option.envvar, str) else option.envvar
    if own not in shared:
        option.envvar = [own, *shared]  # the command's own first: it overrides a variable several commands read
    flags = tuple(option.opts) + tuple(option.secondary_opts)
    settings = {"multiple": option.multiple, "is_flag": option.is_flag, "count": option.count}
    if type(option) is click.Option and takes_one(settings, flags):
        # Once adds no state of its own, only how the parser counts values: the declared option becomes one
        option.__class__ = Once
