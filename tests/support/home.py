"""The suite's own HOME: nothing a test does reaches the home of the user who runs it.

At start-up (the controller, before any xdist worker or subprocess is spawned) HOME and the XDG folders
point at a new temporary folder that every worker and every `cobe` subprocess inherits. What cobe keeps
in a real home (`~/.cache/cobe/…`, the XDG folders' `cobe/`) is listed before the run; an entry that
appears there during it fails the run, naming it, whichever test wrote it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

#: set in the controller, inherited by the workers: the home the suite was started with
REAL_HOME = "COBE_TESTS_REAL_HOME"
XDG = {
    "XDG_CACHE_HOME": ".cache",
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
}


def cobe_places(home: Path, environ: dict[str, str] | os._Environ[str] = os.environ) -> list[Path]:
    """The folders cobe may write in a home: `cobe/` under each XDG folder (the variable's, else its default)."""
    places = {home / default / "cobe" for default in XDG.values()}
    places |= {Path(environ[name]) / "cobe" for name in XDG if environ.get(name)}
    return sorted(places)


def entries(places: list[Path]) -> set[str]:
    """Every file and folder under `places`."""
    found: set[str] = set()
    for place in places:
        if place.exists():
            found.add(str(place))
            found.update(str(p) for p in place.rglob("*"))
    return found


class SuiteHome:
    """The temporary home of one test session, and what of cobe's the real one held before it."""

    def __init__(self) -> None:
        self.real = Path(os.environ.get("HOME") or Path.home())
        self.places = cobe_places(self.real)
        self.before = entries(self.places)
        self.home = Path(tempfile.mkdtemp(prefix="cobe-tests-home-"))
        os.environ[REAL_HOME] = str(self.real)
        os.environ["HOME"] = str(self.home)
        for name, default in XDG.items():
            os.environ[name] = str(self.home / default)

    def written(self) -> list[str]:
        """What of cobe's appeared in the real home since the session started."""
        return sorted(entries(self.places) - self.before)

    def remove(self) -> None:
        """Remove the temporary home."""
        shutil.rmtree(self.home, ignore_errors=True)


# the plugin's hooks: the root conftest loads this module as a plugin (`pytest_plugins`)
_HOME = pytest.StashKey[SuiteHome]()


def pytest_configure(config: pytest.Config) -> None:
    """Point HOME and the XDG folders at the session's own temporary home (once: workers inherit it)."""
    if os.environ.get(REAL_HOME):
        return
    config.stash[_HOME] = SuiteHome()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when anything of cobe's appeared in the real home while it ran."""
    home = session.config.stash.get(_HOME, None)
    if home is None:
        return
    written = home.written()
    home.remove()
    if not written:
        return
    shown = ", ".join(written[:5]) + (f" and {len(written) - 5} more" if len(written) > 5 else "")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    line = f"the tests wrote into the home they were started with ({home.real}): {shown}"
    if reporter is not None:
        reporter.write_line(line, red=True, bold=True)
    else:
        print(line)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
