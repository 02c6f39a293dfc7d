"""LongPolls: share fetches parked until one of their share partitions may have records.

A parked fetch waits on one future registered under every partition it could acquire from; a
wake-up resolves the first live future of one partition, so one new record wakes one fetch, not
all of them (the coordinator decides when a partition is worth a wake-up).
"""

from __future__ import annotations

import asyncio

from app.share.partition import SharePartition


class LongPolls:
    def __init__(self) -> None:
        self._waiters: dict[SharePartition, list[asyncio.Future[None]]] = {}

    def waiting(self, sp: SharePartition) -> bool:
        return bool(self._waiters.get(sp))

    async def park(self, partitions: list[SharePartition], timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) for a wake-up of one of ``partitions``."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        for sp in partitions:
            self._waiters.setdefault(sp, []).append(fut)
        try:
            await asyncio.wait([fut], timeout=timeout)
        finally:
            for sp in partitions:
                waiters = self._waiters.get(sp)
                if waiters and fut in waiters:
                    waiters.remove(fut)

    def wake_one(self, sp: SharePartition) -> None:
        waiters = self._waiters.get(sp)
        while waiters:
            fut = waiters.pop(0)
            if not fut.done():
                fut.set_result(None)
                return

    def wake_all(self, sp: SharePartition) -> None:
        """The partition is gone: every fetch parked on it looks again."""
        for fut in self._waiters.pop(sp, ()):
            if not fut.done():
                fut.set_result(None)

    def release(self) -> None:
        """Shutting down: every parked fetch answers now."""
        for waiters in self._waiters.values():
            for fut in waiters:
                if not fut.done():
                    fut.set_result(None)
