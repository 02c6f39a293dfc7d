"""Producer ids: issued from blocks reserved durably in SQLite, never repeated, each block for
one principal (docs/security.md#ownership).

A principal draws its ids from a block of its own; the block's owner is written in the same
SQLite commit that reserves it, so the link between an id and its principal is durable before
the id is answered, and a restart forgets nothing. An idempotent producer id may then be used,
at any epoch, only by the principal it was issued to: anyone else is answered as if the id had
never been issued. (A transactional producer's id belongs to its transactional id, whose ACL
guards it; the transaction coordinator checks that.)

The principal of a server without API keys is ``None`` (stored as ``''``); ids reserved before
blocks had owners belong to it too.
"""

from __future__ import annotations

import asyncio
import bisect
from dataclasses import dataclass

from app.metadata.txn_store import ProducerIdStore

ANONYMOUS = ""  # how the metadata names the principal of a server without keys


def owner_key(principal: str | None) -> str:
    return ANONYMOUS if principal is None else principal


@dataclass(slots=True)
class _Block:
    """Ids ``[start, end)`` of one principal; neighbouring blocks of one principal are one."""

    start: int
    end: int
    principal: str


class ProducerIds:
    def __init__(self, store: ProducerIdStore, block_size: int) -> None:
        self.store = store
        self.block_size = block_size
        self._blocks: list[_Block] = []  # ascending, never overlapping
        self._starts: list[int] = []  # the blocks' starts, for bisect
        self._open: dict[str, tuple[int, int]] = {}  # principal → (next id, end) of its block
        self._legacy_below = 0  # ids below this without a block: reserved before owners existed
        self._lock = asyncio.Lock()

    async def load(self) -> None:
        """Every reserved block is closed at start: ids it did not issue never will be (a
        principal opens a new block at its first id), as ids below the end of the last reserved
        block may have been issued before."""
        owned = await self.store.owned_blocks()
        for start, end, principal in owned:
            self._add(start, end, principal)
        issued_below = await self.store.issued_below()
        first_owned = owned[0][0] if owned else issued_below
        self._legacy_below = min(first_owned, issued_below)

    def _add(self, start: int, end: int, principal: str) -> None:
        last = self._blocks[-1] if self._blocks else None
        if last is not None and last.end == start and last.principal == principal:
            last.end = end
        else:
            self._blocks.append(_Block(start, end, principal))
            self._starts.append(start)

    @property
    def block_count(self) -> int:
        """How many runs of blocks are held in memory (one per change of principal)."""
        return len(self._blocks)

    async def next_id(self, principal: str | None) -> int:
        """A new producer id of ``principal``'s."""
        key = owner_key(principal)
        async with self._lock:
            pid, end = self._open.get(key, (0, 0))
            if pid >= end:
                pid = await self.store.reserve_block(self.block_size, key)
                end = pid + self.block_size
                self._add(pid, end, key)
            self._open[key] = (pid + 1, end)
            return pid

    def issued_to(self, producer_id: int, principal: str | None) -> bool:
        """Whether the server may have issued ``producer_id``, to ``principal``."""
        if producer_id < 0:
            return False
        key = owner_key(principal)
        i = bisect.bisect_right(self._starts, producer_id) - 1
        block = self._blocks[i] if i >= 0 else None
        if block is None or producer_id >= block.end:
            return producer_id < self._legacy_below and key == ANONYMOUS
        if block.principal != key:
            return False
        next_id, end = self._open.get(key, (0, 0))
        # in the principal's open block, only the ids already answered
        return not (next_id <= producer_id < end)
