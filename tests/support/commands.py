"""Every `cobe` command, its groups walked down to the leaves: for tests of what all commands declare."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import import_module

import click

from cobe.cli.main import COMMANDS


def every_command() -> Iterator[tuple[str, click.Command]]:
    """(path such as "judges check", command) of every leaf command."""
    for name, target in COMMANDS.items():
        module, _, attr = target.partition(":")
        stack: list[tuple[str, click.Command]] = [(name, getattr(import_module(module), attr))]
        while stack:
            path, command = stack.pop()
            if isinstance(command, click.Group):
                stack += [(f"{path} {sub}", child) for sub, child in command.commands.items()]
            else:
                yield path, command
