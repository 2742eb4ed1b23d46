"""The installed version of cobe, recorded with every run."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("cobe")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+source"
