"""The `cobe` command run in-process, exactly as the console script runs it.

`cobe.cli.main.main` is what the console script calls: it turns a CobeError into one line on
stderr and an exit code. Running it here, inside click's CliRunner isolation, tests those lines
and codes without paying for a Python start-up per call. Use a subprocess only where the process
itself is under test (a kill, Ctrl-C, the installed script, what an import loads).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from cobe.cli.main import main


@dataclass(frozen=True)
class CliResult:
    """What a user sees: the exit status and the two streams (named as subprocess names them)."""

    returncode: int
    stdout: str
    stderr: str


def run_cobe(*args: str, cwd: Path | str | None = None, env: dict[str, str | None] | None = None) -> CliResult:
    """`cobe ARGS` in-process: COBE_* variables of the caller's shell removed, `env` added (None: unset), run in `cwd`."""
    overrides: dict[str, str | None] = {name: None for name in os.environ if name.startswith("COBE_")}
    overrides.update(env or {})
    with CliRunner().isolation(env=overrides) as (out, err, _), contextlib.chdir(cwd or os.getcwd()):
        try:
            main(list(args))
        except SystemExit as done:
            code = done.code
        else:  # main() always exits; returning would be a bug in it
            raise AssertionError(f"cobe {' '.join(args)} returned instead of exiting")
        stdout, stderr = out.getvalue().decode(), err.getvalue().decode()
    if code is None:
        returncode = 0
    elif isinstance(code, int):
        returncode = code
    else:  # sys.exit("message"): Python prints it and exits 1
        returncode, stderr = 1, stderr + f"{code}\n"
    return CliResult(returncode, stdout, stderr)


def assert_one_line_error(result: CliResult, *needles: str) -> None:
    """A failed command printed exactly one `error: ...` line holding every needle, and no traceback.

    `note: ...` lines (notices a run gives before it ends, such as a self-preference warning) and `progress: ...`
    lines (a run's progress off a terminal) are not errors.
    """
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.strip().splitlines() if not line.startswith(("note: ", "progress: "))]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
