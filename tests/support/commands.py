"""Every `cobe` command as the `cobe` group loads it (cobe.cli.every_flag applied), its groups walked down to the
leaves: for tests of what all commands declare."""

from __future__ import annotations

from collections.abc import Iterator

import click

from cobe.cli.main import COMMANDS, cli


def every_command() -> Iterator[tuple[str, click.Command]]:
    """(path such as "judges check", command) of every leaf command."""
    context = click.Context(cli)
    for name in COMMANDS:
        loaded = cli.get_command(context, name)
        assert loaded is not None, name
        stack: list[tuple[str, click.Command]] = [(name, loaded)]
        while stack:
            path, command = stack.pop()
            if isinstance(command, click.Group):
                stack += [(f"{path} {sub}", child) for sub, child in command.commands.items()]
            else:
                yield path, command
