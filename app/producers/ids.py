"""Producer ids: issued from blocks reserved durably in SQLite, never repeated."""

from __future__ import annotations

import asyncio

from app.metadata.txn_store import ProducerIdStore


class ProducerIds:
    def __init__(self, store: ProducerIdStore, block_size: int) -> None:
        self.store = store
        self.block_size = block_size
        self._next = 0
        self._end = 0
        self._lock = asyncio.Lock()

    async def load(self) -> None:
        """Ids below the end of the last reserved block may have been issued before."""
        self._next = self._end = await self.store.issued_below()

    async def next_id(self) -> int:
        async with self._lock:
            if self._next >= self._end:
                start = await self.store.reserve_block(self.block_size)
                self._next, self._end = start, start + self.block_size
            pid = self._next
            self._next += 1
            return pid

    def is_known(self, producer_id: int) -> bool:
        """Whether the server may have issued ``producer_id``."""
        return 0 <= producer_id < self._next
