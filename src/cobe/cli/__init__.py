"""The `cobe` command: one thin module per command group (`main.py` loads them lazily)."""

import os
import signal
import sys

# The console script imports this package before `main` runs; a Ctrl-C during those first imports would
# end in a KeyboardInterrupt traceback. Only in that script (not wherever cobe.cli is imported, such as
# a test process), it exits 130 quietly until `main` installs the full handling (cobe.cli.interrupt).
# First thing, with nothing imported but what the interpreter already holds.


def _quiet_exit(signum: int, frame: object) -> None:
    raise SystemExit(130)


if os.path.basename(sys.argv[0]) == "cobe":
    signal.signal(signal.SIGINT, _quiet_exit)
