"""Errors that reach the user as one clear line, and the exit code each one ends the CLI with.

`EXIT_CODES` is the one table of exit codes: `cobe --help` and the README print it, and
`cobe.cli.main.main` ends with the `exit_code` of the error that stopped a command.
"""

from __future__ import annotations

from typing import Any, Self


class CobeError(Exception):
    """A problem the user can fix; the CLI prints its message as one line and exits non-zero."""

    exit_code = 1
    #: what the command had to report when it stopped (a run's table, say): under --json, the one object the
    #: command ends with holds it beside the state, exit code and message (`cobe.cli.json_end`)
    report: dict[str, Any] | None = None

    def reporting(self, report: dict[str, Any]) -> Self:
        """This error, carrying `report` for the command's --json end."""
        self.report = report
        return self


class InputError(CobeError):
    """Bad input: a file, field, id or flag that is not what was expected."""

    exit_code = 2


class ProviderUnavailable(CobeError):
    """A provider's SDK, weights or hardware, or another optional package, is missing on this machine."""

    exit_code = 3


class RunStopped(CobeError):
    """A run that ended with work left: what finished is saved, and the same command resumes the rest."""

    exit_code = 5
    #: the state the run records (runs.state, summary.json, `cobe runs`)
    state = "incomplete"


class BudgetExceeded(RunStopped):
    """The run stopped cleanly before spending more than --max-cost."""

    exit_code = 4
    state = "stopped-budget"


class RunIncomplete(RunStopped):
    """Every item was tried, but some calls still failed after their retries (or were rate-limited too long)."""

    exit_code = 5
    state = "incomplete"


class AuthenticationFailed(RunStopped):
    """A provider refused the credentials (401/403) on several calls in a row, so the stage stopped."""

    exit_code = 6
    state = "stopped-auth"


class ModelRefused(RunStopped):
    """A model refused a request for its settings or its name (a 400, 404 or 422 naming a parameter, a value
    or the model): every call with those settings would be refused too, so the run stopped at once."""

    exit_code = 2
    state = "incomplete"


class UnusableReplies(RunStopped):
    """A model's preflight reply could not be used (an empty answer; a judge's answer with no T or F): every call
    of the run would answer alike, so it stopped before the spend."""

    exit_code = 2
    state = "incomplete"


class RunUnmeasured(CobeError):
    """Every item finished, but a model of the run has no scored row (every answer empty, unjudgeable or
    unscored): its accuracy measures nothing, so the run is not complete."""

    exit_code = 8
    #: the state the run records
    state = "unmeasured"


class DiskFull(RunStopped):
    """The disk (or the user's quota) filled up: the command stopped sending calls, and what was answered is saved."""

    exit_code = 1
    state = "incomplete"


class RunDirBusy(CobeError):
    """Another command is writing this run directory (it holds the directory's lock)."""

    exit_code = 7


#: what ends a command with Ctrl-C (128 + SIGINT, as shells report it)
INTERRUPTED = 130

#: every exit code of `cobe`, in order: (code, meaning)
EXIT_CODES: tuple[tuple[int, str], ...] = (
    (0, "done: every item of the run is finished"),
    (CobeError.exit_code, "an error the message explains (a full disk, a failed read or write, ...)"),
    (
        InputError.exit_code,
        "bad input: a flag, file, field or id that is not what was expected "
        "(also a damaged store, one a newer cobe made, a setting or model name the provider refused, a "
        "preflight call it refused, or a preflight reply that cannot be used: empty, or a judge's without T or F)",
    ),
    (ProviderUnavailable.exit_code, "a provider's package, weights or hardware is missing"),
    (BudgetExceeded.exit_code, "stopped by --max-cost; run again (with a higher cap) to resume"),
    (RunIncomplete.exit_code, "incomplete: calls failed after their retries; run again to resume"),
    (AuthenticationFailed.exit_code, "a provider refused the API key; check the variable named"),
    (RunDirBusy.exit_code, "the run directory is in use by another command"),
    (
        RunUnmeasured.exit_code,
        "unmeasured: every item finished, but a model has no scored row (its replies were empty or unjudgeable)",
    ),
    (INTERRUPTED, "interrupted (Ctrl-C); finished work is saved"),
)


def validation_problem(exc: Any) -> str:
    """A pydantic ValidationError's first problem as `field.path: message`, for a one-line error."""
    first = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def exit_code_lines() -> list[str]:
    """The exit-code table as aligned text lines, for --help epilogs."""
    return [f"{code:>3}  {meaning}" for code, meaning in EXIT_CODES]
