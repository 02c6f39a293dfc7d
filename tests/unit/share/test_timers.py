"""The one deadline heap: due entries in time order, and a wake-up when a new earliest comes."""

from __future__ import annotations

from app.share.partition import Lock, SharePartition
from app.share.timers import DeadlineHeap


def test_pop_due_in_order_and_wake_on_a_new_earliest() -> None:
    woken: list[int] = []
    heap = DeadlineHeap(on_earlier=lambda: woken.append(len(heap)))
    sp = SharePartition("g", "t", 0, 1, 0, heap)
    late = Lock(sp, "m", 0, 9, 3000)
    early = Lock(sp, "m", 10, 19, 1000)
    heap.schedule_lock(late)
    heap.schedule_lock(early)
    heap.schedule_lock(Lock(sp, "m", 20, 29, 5000))  # not earlier: no wake-up
    heap.schedule_wake(sp, 2000)
    assert len(woken) == 2
    assert heap.next_deadline() == 1000
    assert heap.pop_due(999) == []
    assert heap.pop_due(3000) == [early, sp, late]
    assert heap.next_deadline() == 5000 and len(heap) == 1
