"""The `cobe` command: one thin module per command group (`main.py` loads them lazily)."""

import os
import signal
import sys

from cobe.cli.json_asked import json_asked

# The console script imports this package before `main` runs; a Ctrl-C during those first imports would
# end in a KeyboardInterrupt traceback. Only in that script (not wherever cobe.cli is imported, such as
# a test process), it exits 130 with its line (and, under --json, its one object, as cobe.cli.json_end
# writes it) until `main` installs the full handling (cobe.cli.interrupt). First thing, with nothing
# imported but the standard library's os and what the interpreter already holds.
#: as cobe.cli.main.INTERRUPTED_LINE says it (a test keeps the two equal)
_STARTING = "Interrupted; finished work is saved. Run the same command again to resume."
_STARTING_OBJECT = f'{{\n  "state": "interrupted",\n  "exit_code": 130,\n  "message": "{_STARTING}"\n}}\n'


def _quiet_exit(signum: int, frame: object) -> None:
    try:
        os.write(2, f"\n{_STARTING}\n".encode())
        if json_asked(sys.argv[1:]):
            os.write(1, _STARTING_OBJECT.encode())
    except OSError:
        pass
    os._exit(130)


if os.path.basename(sys.argv[0]) == "cobe":
    signal.signal(signal.SIGINT, _quiet_exit)
