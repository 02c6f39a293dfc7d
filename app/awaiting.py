"""Awaiting several steps together."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import TypeVar, cast

_T = TypeVar("_T")


async def all_done(steps: Sequence[Awaitable[_T]]) -> list[_T]:
    """Run ``steps`` together and wait for every one of them; then raise the first failure,
    if any (the others have still run to their end)."""
    results = await asyncio.gather(*steps, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return cast(list[_T], results)


async def side_by_side(steps: Sequence[Awaitable[_T]]) -> list[_T]:
    """Run ``steps`` together and answer their results in order; the first failure is raised,
    as ``asyncio.gather`` does. A single step is awaited in place, without a task of its own
    (most requests reach one partition, one leader)."""
    if len(steps) == 1:
        return [await steps[0]]
    return list(await asyncio.gather(*steps))


async def each_settled(steps: Sequence[Awaitable[_T]]) -> list[_T | Exception]:
    """Run ``steps`` together and answer, in order, each one's result or the error it raised;
    a single step is awaited in place. A cancellation is not an answer: it is raised."""
    if len(steps) == 1:
        try:
            return [await steps[0]]
        except Exception as exc:
            return [exc]
    results = await asyncio.gather(*steps, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException) and not isinstance(r, Exception):
            raise r
    return cast(list[_T | Exception], results)
