"""One deadline heap for every acquisition lock and delayed release of the coordinator.

Never a timer per record: a lock covers every run one fetch acquired, and the heap holds one
entry per lock (and per delayed release, to wake waiting fetches). Entries of locks that were
acknowledged or renewed meanwhile are simply found holding no records when they come due.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable

from app.share.partition import Lock, SharePartition

Due = Lock | SharePartition


async def wait_set(event: asyncio.Event, timeout: float | None) -> None:
    """Clear ``event``, then wait until it is set again or ``timeout`` seconds pass (None: no
    limit). ``asyncio.wait``, not ``wait_for``: wait_for can swallow a cancellation on Python
    3.11."""
    event.clear()
    waiter = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait([waiter], timeout=timeout)
    finally:
        waiter.cancel()


class DeadlineHeap:
    def __init__(self, on_earlier: Callable[[], None] = lambda: None) -> None:
        self._heap: list[tuple[int, int, Due]] = []
        self._seq = itertools.count()
        self.on_earlier = on_earlier  # a new earliest deadline: the timer loop waits less

    def __len__(self) -> int:
        return len(self._heap)

    def _push(self, at_ms: int, item: Due) -> None:
        earlier = not self._heap or at_ms < self._heap[0][0]
        heapq.heappush(self._heap, (at_ms, next(self._seq), item))
        if earlier:
            self.on_earlier()

    def schedule_lock(self, lock: Lock) -> None:
        self._push(lock.deadline, lock)

    def schedule_wake(self, partition: SharePartition, at_ms: int) -> None:
        self._push(at_ms, partition)

    def next_deadline(self) -> int | None:
        return self._heap[0][0] if self._heap else None

    def pop_due(self, now_ms: int) -> list[Due]:
        """Every entry whose time is ≤ ``now_ms``, earliest first."""
        out: list[Due] = []
        heap = self._heap
        while heap and heap[0][0] <= now_ms:
            out.append(heapq.heappop(heap)[2])
        return out
