"""Optional dependencies: import one on first use, or say in one line which extra brings it."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from cobe.core.errors import ProviderUnavailable


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """The imported `module`, or ProviderUnavailable naming `pip install 'cobe[extra]'` for `purpose`."""
    try:
        return import_module(module)
    except ImportError:
        raise ProviderUnavailable(
            f"{purpose} needs the {module.split('.')[0]} package; run pip install 'cobe[{extra}]'"
        ) from None
