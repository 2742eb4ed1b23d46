"""A blocking form of an async function: the public sync API is the async one run to completion."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


def blocking(coroutine: Callable[P, Coroutine[Any, Any, T]], doc: str) -> Callable[P, T]:
    """`coroutine` as a plain function taking the same arguments (its signature, for help() and type checkers,
    is the coroutine's), named without its leading `a`, documented by `doc`."""

    @functools.wraps(coroutine)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return asyncio.run(coroutine(*args, **kwargs))

    run.__name__ = coroutine.__name__.removeprefix("a")
    run.__qualname__ = coroutine.__qualname__.removeprefix("a")
    run.__doc__ = doc
    return run
