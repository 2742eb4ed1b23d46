"""Errors that reach the user as one clear line."""

from __future__ import annotations


class CobeError(Exception):
    """A problem the user can fix; the CLI prints its message as one line and exits non-zero."""

    exit_code = 1


class InputError(CobeError):
    """Bad input: a file, field, id or flag that is not what was expected."""

    exit_code = 2


class ProviderUnavailable(CobeError):
    """A provider's SDK, weights or hardware, or another optional package, is missing on this machine."""

    exit_code = 3


class BudgetExceeded(CobeError):
    """The run stopped cleanly before spending more than --max-cost."""

    exit_code = 4
