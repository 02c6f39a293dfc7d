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
