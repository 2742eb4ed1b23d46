"""Async helpers every layer uses: a blocking form of an async function (the public sync API is the async one
run to completion), and awaiting concurrent work so that one error never leaves the rest running unwatched."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Coroutine
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


async def settled(*work: Awaitable[T]) -> list[T]:
    """Every result, in order, once all of `work` has ended; then the first error by position, if any, raised.

    `asyncio.gather` raises the first error at once and leaves the rest running with nobody waiting for them:
    a model call still out when its sibling met a full disk or `--max-cost` was answered after the command had
    closed its store, paid for and never kept.
    """
    outcomes = await asyncio.gather(*work, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return outcomes  # type: ignore[return-value]  # no outcome is an exception here
