"""cobe: run the CoBe benchmark of conversational counterfactual text editing."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("cobe")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+source"

from cobe.dataset.schema import CausalGraph, FailureMode, GraphType, Scenario  # noqa: E402

__all__ = ["CausalGraph", "FailureMode", "GraphType", "Scenario", "__version__"]
