"""`blocking`: the sync form of an async API call takes the same arguments and keeps the coroutine's signature."""

from __future__ import annotations

import inspect

from cobe.core.aio import blocking
from cobe.core.files import cache_store


async def aadd(a: int, b: int = 2, *, scale: int = 1) -> int:
    """Async form of `add`."""
    return (a + b) * scale


add = blocking(aadd, "Add, then scale.")


def test_the_blocking_form_runs_the_coroutine_with_the_same_arguments():
    assert add(1) == 3 and add(1, 3, scale=2) == 8
    assert add.__name__ == "add" and add.__doc__ == "Add, then scale."
    assert inspect.signature(add) == inspect.signature(aadd)


def test_a_command_cache_store_lives_under_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_store("judge-check") == tmp_path / "cobe" / "judge-check" / "cobe.sqlite"
