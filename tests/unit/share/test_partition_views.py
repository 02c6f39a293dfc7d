"""SharePartition's views for the event feed: the window as runs, and the records archived at
the delivery limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.share.partition import AckBatch, AckType, Limits, RunView
from app.share.record_state import RecordState
from tests.unit.share.test_partition import Harness

S = RecordState
A, R, J, N = AckType.ACCEPT, AckType.RELEASE, AckType.REJECT, AckType.RENEW
PID = 7


@pytest.fixture
def h(tmp_path: Path) -> Harness:
    return Harness(tmp_path)


def runs(h: Harness, limit: int = 500) -> list[tuple[int, int, str, int, str | None, int | None]]:
    views, truncated = h.sp.run_views(limit)
    assert not truncated
    return [
        (v.first, v.last, v.state.label, v.delivery_count, v.member_id, v.lock_expires_at)
        for v in views
    ]


def test_runs_of_a_window_with_every_state(h: Harness) -> None:
    h.produce(10)  # 0-9
    h.fetch("a")  # all acquired by a, dc 1
    h.ack_durable("a", 0, 9, *[R, R, A, A, A, J, J, N, N, N])  # 7-9 renewed (new lock)
    renewed = h.now + 30_000
    h.now += 1000
    h.produce(5)  # 10-14
    got = h.fetch("b", 100)  # 0-1 again (dc 2) and 10-14 (dc 1), under b's lock
    assert [r.offset for r, _ in got.records] == [0, 1, 10, 11, 12, 13, 14]
    lock_b = h.now + 30_000
    assert runs(h) == [
        (0, 1, "acquired", 2, "b", lock_b),
        (2, 4, "acknowledged", 1, None, None),
        (5, 6, "archived", 1, None, None),
        (7, 9, "acquired", 1, "a", renewed),
        (10, 14, "acquired", 1, "b", lock_b),
    ]
    # the views agree with the per-record view, record for record
    per_record = [
        (v.offset, v.state.label, v.delivery_count, v.member_id, v.lock_expires_at)
        for v in h.sp.record_views(0, 15)
    ]
    expanded = [
        (o, state, dc, member, expires)
        for first, last, state, dc, member, expires in runs(h)
        for o in range(first, last + 1)
    ]
    assert expanded == per_record


def test_runs_merge_neighbours_that_agree_and_split_where_they_differ(h: Harness) -> None:
    for _ in range(4):
        h.produce(2)  # four produce batches: 0-1, 2-3, 4-5, 6-7
    h.fetch("a", 4, record_limit=True)  # 0-3: internally two runs (one per batch)
    h.fetch("a", 4, record_limit=True)  # 4-7 under a second lock with the same expiry
    assert len(h.sp.runs) == 2 and h.sp.runs[0].lock is not h.sp.runs[1].lock
    assert runs(h) == [(0, 7, "acquired", 1, "a", h.now + 30_000)]
    h.now += 1
    h.ack_durable("a", 2, 3, N)  # a later expiry cuts the run in three
    assert runs(h) == [
        (0, 1, "acquired", 1, "a", h.now - 1 + 30_000),
        (2, 3, "acquired", 1, "a", h.now + 30_000),
        (4, 7, "acquired", 1, "a", h.now - 1 + 30_000),
    ]


def test_pending_and_held_records_are_acquired(h: Harness) -> None:
    h.produce(4)
    h.fetch("a")
    staged = h.ack("a", 0, 1, A)  # staged, not yet durable
    assert staged is not None
    held = h.sp.hold_txn("a", [AckBatch(2, 3, [A])], PID, now=h.now, limits=h.limits)
    assert held is not None
    h.sp.complete_hold(held[0])
    assert runs(h) == [
        (0, 1, "acquired", 1, "a", h.now + 30_000),  # its acknowledgement is in progress
        (2, 3, "acquired", 1, "a", None),  # held by the transaction: the lock is suspended
    ]
    h.sp.complete(staged, h.now, h.limits)
    assert runs(h) == [(2, 3, "acquired", 1, "a", None)]  # the start moved past 0-1


def test_runs_start_at_the_window_start(tmp_path: Path) -> None:
    h = Harness(tmp_path, start=3)
    h.produce(6)  # 0-5; the window starts at 3
    h.fetch("a")
    h.sp.move_log_start(4)  # acquired records below the new start stay until they are released
    assert h.sp.start_offset == 4
    assert h.sp.runs[0].first == 3  # still held internally, outside the window
    assert runs(h) == [(4, 5, "acquired", 1, "a", h.now + 30_000)]


def test_runs_are_capped(h: Harness) -> None:
    h.produce(10)
    h.fetch("a")
    h.ack_durable("a", 0, 9, *[R, N] * 5)  # ten runs that alternate
    views, truncated = h.sp.run_views(4)
    assert truncated and [(v.first, v.last) for v in views] == [(0, 0), (1, 1), (2, 2), (3, 3)]
    views, truncated = h.sp.run_views(10)
    assert not truncated and len(views) == 10
    assert all(isinstance(v, RunView) for v in views)


def test_empty_window_has_no_runs(h: Harness) -> None:
    assert h.sp.run_views(500) == ([], False)


def test_delivery_limit_archived_counts_releases_and_expiries_at_the_limit(
    tmp_path: Path,
) -> None:
    h = Harness(tmp_path, limits=Limits(lock_ms=30_000, delivery_limit=2, max_locks=2000))
    h.produce(10)
    h.fetch("a")
    h.ack_durable("a", 0, 9, R)  # dc 1: available again
    assert h.sp.delivery_limit_archived == 0
    h.fetch("a")  # dc 2: the last delivery
    h.ack_durable("a", 0, 3, J)  # rejected: archived, but not for the limit
    staged = h.ack("a", 4, 6, R)  # released at the limit: archived once durable
    assert staged is not None
    assert h.sp.delivery_limit_archived == 0  # staged only
    h.sp.rollback(staged, h.now, h.limits)
    assert h.sp.delivery_limit_archived == 0  # a write that failed archives nothing
    h.ack_durable("a", 4, 6, R)
    assert h.sp.delivery_limit_archived == 3
    h.advance(30_000)  # 7-9 expire at the limit
    assert h.sp.delivery_limit_archived == 6
    assert h.states(0, 9) == []  # everything is done: the window moved on
    assert h.window() == (10, 10)
