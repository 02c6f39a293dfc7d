"""SharePartition's held transactional acknowledgements
(docs/semantics.md#transactional-acknowledgements)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.errors import Conflict, ErrorCode, InvalidRequest
from app.share.partition import (
    REASON_DELIVERY_LIMIT,
    REASON_REJECTED,
    AckBatch,
    AckType,
    HeldAck,
    Limits,
    SharePartition,
    Staged,
    StagedKind,
)
from tests.unit.share.test_partition import Harness

A, R, J, N = AckType.ACCEPT, AckType.RELEASE, AckType.REJECT, AckType.RENEW
PID = 7


@pytest.fixture
def h(tmp_path: Path) -> Harness:
    return Harness(tmp_path)


def hold(
    h: Harness,
    member: str,
    first: int,
    last: int,
    *types: AckType,
    pid: int = PID,
    delivery_count: int | None = None,
    delay_ms: int = 0,
) -> list[HeldAck]:
    """Hold and make the hold durable at once (as the coordinator does after its write)."""
    held = h.sp.hold_txn(
        member,
        [AckBatch(first, last, list(types), delivery_count, delay_ms)],
        pid,
        now=h.now,
        limits=h.limits,
    )
    assert held is not None
    h.sp.complete_hold(held[0])
    return held[1]


def end(h: Harness, commit: bool, pid: int = PID) -> Staged | None:
    staged = h.sp.end_txn(pid, commit, now=h.now, limits=h.limits)
    if staged is not None:
        assert staged not in h.sp.staged  # the ending writes it, not the state writer
        h.sp.complete(staged, h.now, h.limits)
    return staged


def test_hold_keeps_records_acquired_without_a_lock(h: Harness) -> None:
    h.produce(5)
    h.fetch("c1")
    rows = hold(h, "c1", 0, 2, A)
    assert [(r.first, r.last, r.kind, r.delivery_count, r.member) for r in rows] == [
        (0, 2, A, 1, "c1")
    ]
    views = h.sp.record_views(0, 5)
    assert [(v.state.label, v.member_id, v.lock_expires_at) for v in views[:3]] == [
        ("acquired", "c1", None)
    ] * 3
    assert views[3].lock_expires_at is not None
    assert h.sp.held_by(PID) == 3
    # the lock does not expire under the open transaction; the unheld records do
    h.advance(10 * h.limits.lock_ms)
    assert h.states(0, 4) == [
        (0, "acquired", 1),
        (1, "acquired", 1),
        (2, "acquired", 1),
        (3, "available", 1),
        (4, "available", 1),
    ]


def test_commit_applies_accept_release_reject(h: Harness) -> None:
    h.produce(3)
    h.fetch("c1")
    hold(h, "c1", 0, 2, A, R, J)
    staged = end(h, commit=True)
    assert staged is not None and staged.kind is StagedKind.TXN_END
    assert [(d.first, d.reason) for d in staged.dlq] == [(2, REASON_REJECTED)]
    assert h.states(0, 2) == [(1, "available", 1), (2, "archived", 1)]  # 0 is done: gone
    assert h.window() == (1, 3)
    assert h.sp.held_by(PID) == 0
    assert end(h, commit=True) is None  # idempotent: nothing held any more


def test_commit_release_with_delay(h: Harness) -> None:
    h.produce(1)
    h.fetch("c1")
    hold(h, "c1", 0, 0, R, delay_ms=5_000)
    end(h, commit=True)
    assert h.fetch("c2").records == []
    h.now += 5_000
    assert [r.offset for r, _ in h.fetch("c2").records] == [0]


def test_abort_releases_with_the_delivery_count_unchanged(h: Harness) -> None:
    h.produce(3)
    h.fetch("c1")
    hold(h, "c1", 0, 2, A)
    staged = end(h, commit=False)
    assert staged is not None and staged.dlq == []
    assert h.states(0, 2) == [(0, "available", 1), (1, "available", 1), (2, "available", 1)]
    got = h.fetch("c2")
    assert [(r.offset, dc) for r, dc in got.records] == [(0, 2), (1, 2), (2, 2)]


def test_abort_at_the_delivery_limit_archives_like_a_release(tmp_path: Path) -> None:
    h = Harness(tmp_path, limits=Limits(lock_ms=1000, delivery_limit=2, max_locks=2000))
    h.produce(1)
    h.fetch("c1")
    h.advance(1000)
    h.fetch("c1")  # delivery 2 of 2
    hold(h, "c1", 0, 0, A)
    staged = end(h, commit=False)
    assert staged is not None
    assert [(d.first, d.reason) for d in staged.dlq] == [(0, REASON_DELIVERY_LIMIT)]
    assert h.window() == (1, 1)


def test_held_records_refuse_plain_acks_renew_and_a_second_hold(h: Harness) -> None:
    h.produce(2)
    h.fetch("c1")
    hold(h, "c1", 0, 0, A)
    for kind in (A, R, N):
        with pytest.raises(Conflict) as err:
            h.ack("c1", 0, 0, kind)
        assert err.value.code is ErrorCode.INVALID_RECORD_STATE
        assert "transactional" in err.value.message
    with pytest.raises(Conflict):
        h.sp.hold_txn("c1", [AckBatch(0, 1, [A])], 8, now=h.now, limits=h.limits)
    assert h.sp.held_by(8) == 0  # atomic: offset 1 was not held either
    h.ack_durable("c1", 1, 1, A)  # the unheld record is acknowledged normally


def test_hold_is_validated_like_a_plain_ack(h: Harness) -> None:
    h.produce(4)
    h.fetch("c1", 2)
    cases: list[tuple[list[AckBatch], type[Exception]]] = [
        ([AckBatch(0, 1, [A])], Conflict),  # another member's records
        ([AckBatch(0, 9, [A])], InvalidRequest),  # beyond the window
        ([AckBatch(0, 0, [N])], InvalidRequest),  # renew cannot join
        ([AckBatch(0, 0, [A], delivery_count=2)], Conflict),  # stale delivery
    ]
    for batches, exc in cases:
        with pytest.raises(exc):
            h.sp.hold_txn(
                "c2" if exc is Conflict and batches[0].last == 1 else "c1",
                batches,
                PID,
                now=h.now,
                limits=h.limits,
            )
    assert h.sp.held_by(PID) == 0
    h.advance(h.limits.lock_ms)
    with pytest.raises(Conflict):  # lock expired (and the sweep released them)
        h.sp.hold_txn("c1", [AckBatch(0, 1, [A])], PID, now=h.now, limits=h.limits)


def test_leaving_member_keeps_held_records(h: Harness) -> None:
    h.produce(4)
    h.fetch("c1")
    hold(h, "c1", 0, 1, A)
    staged = h.sp.release_member("c1")
    assert staged is not None
    h.sp.complete(staged, h.now, h.limits)
    assert h.states(0, 3) == [
        (0, "acquired", 1),
        (1, "acquired", 1),
        (2, "available", 0),
        (3, "available", 0),
    ]
    assert [r.offset for r, _ in h.fetch("c2").records] == [2, 3]


def test_hold_rolled_back_forgets_the_transaction(h: Harness) -> None:
    h.produce(2)
    h.fetch("c1")
    held = h.sp.hold_txn("c1", [AckBatch(0, 1, [A])], PID, now=h.now, limits=h.limits)
    assert held is not None
    with pytest.raises(Conflict):  # pending: a plain ack is turned away
        h.ack("c1", 0, 0, A)
    assert h.sp.rollback(held[0], h.now, h.limits) is None
    assert h.sp.held_by(PID) == 0
    h.ack_durable("c1", 0, 1, A)
    assert h.window() == (2, 2)


def test_end_rolled_back_stays_held(h: Harness) -> None:
    h.produce(1)
    h.fetch("c1")
    hold(h, "c1", 0, 0, A)
    staged = h.sp.end_txn(PID, True, now=h.now, limits=h.limits)
    assert staged is not None
    assert h.sp.end_txn(PID, True, now=h.now, limits=h.limits) is None  # already ending
    assert h.sp.rollback(staged, h.now + 10 * h.limits.lock_ms, h.limits) is None
    assert h.sp.held_by(PID) == 1
    assert end(h, commit=True) is not None
    assert h.window() == (1, 1)


def test_snapshot_of_a_held_record_is_its_count_before_acquisition(h: Harness) -> None:
    h.produce(2)
    h.fetch("c1")
    h.advance(h.limits.lock_ms)
    h.fetch("c1")  # delivery 2
    hold(h, "c1", 0, 1, A)
    assert h.sp.snapshot() == (0, [(0, 1, 0, 1)])


def test_load_restores_held_records_and_the_end_decides_them(h: Harness) -> None:
    h.produce(6)
    h.fetch("c1")
    h.ack_durable("c1", 0, 0, A)
    rows = hold(h, "c1", 1, 2, A) + hold(h, "c1", 4, 4, R, pid=8)
    start, batches = h.sp.snapshot()
    sp = SharePartition.load("g", "t", 0, 1, start, batches, h.heap, state_epoch=0, held=rows)
    views = {
        v.offset: (v.state.label, v.delivery_count, v.member_id) for v in sp.record_views(0, 6)
    }
    assert views == {
        1: ("acquired", 1, "c1"),
        2: ("acquired", 1, "c1"),
        3: ("available", 0, None),
        4: ("acquired", 1, "c1"),
    }
    assert sp.end_offset == 5  # extended to cover the held offset 4
    h.sp = sp
    assert [r.offset for r, _ in h.fetch("c2").records] == [3, 5]  # never 1, 2 or 4
    end(h, commit=True)
    end(h, commit=False, pid=8)
    assert h.states(0, 5) == [(3, "acquired", 1), (4, "available", 1), (5, "acquired", 1)]
