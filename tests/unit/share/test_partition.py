"""SharePartition against a real partition log, with time as plain integers (no I/O of its own)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.clock import FakeClock
from app.errors import Conflict, ErrorCode, InvalidRequest
from app.share.partition import (
    REASON_DELIVERY_LIMIT,
    REASON_REJECTED,
    AckBatch,
    AckType,
    Acquired,
    Limits,
    Lock,
    Run,
    SharePartition,
    Staged,
    StagedKind,
)
from app.share.record_state import RecordState
from app.share.timers import DeadlineHeap
from app.storage.log import LogConfig, PartitionLog, ReadResult
from app.storage.record import CONTROL_FLAG, Record

S = RecordState
A, R, J, N = AckType.ACCEPT, AckType.RELEASE, AckType.REJECT, AckType.RENEW
T0 = 1_700_000_000_000


class Harness:
    """A share partition over a real log; time is a FakeClock that moves only when told."""

    def __init__(self, tmp: Path, start: int = 0, limits: Limits | None = None) -> None:
        self.log = PartitionLog(str(tmp / "log"), LogConfig(), durable_reads=False)
        self.heap = DeadlineHeap()
        self.clock = FakeClock(T0)
        self.limits = limits or Limits(lock_ms=30_000, delivery_limit=5, max_locks=2000)
        self.sp = SharePartition("g", "t", 0, 1, start, self.heap)

    @property
    def now(self) -> int:
        return self.clock.now_ms()

    @now.setter
    def now(self, value: int) -> None:
        assert value >= self.clock.now_ms(), "time never goes back"
        self.clock.advance(value - self.clock.now_ms())

    def produce(self, n: int, *, batches: int = 1) -> None:
        for _ in range(batches):
            self.log.append([Record(T0, None, b"v") for _ in range(n)], now_ms=T0)

    def marker(self) -> None:
        self.log.append([Record(T0, None, b"")], now_ms=T0, attributes=CONTROL_FLAG)

    def read(self, offset: int, max_records: int, upto: int, max_bytes: int) -> ReadResult:
        return self.log.read(offset, max_records, max_bytes, upto=upto)

    def fetch(
        self,
        member: str,
        max_records: int = 500,
        *,
        record_limit: bool = False,
        max_bytes: int = 1 << 30,
    ) -> Acquired:
        return self.sp.acquire(
            member,
            max_records,
            record_limit=record_limit,
            now=self.now,
            limits=self.limits,
            read=self.read,
            bound=self.bound(),
            log_start=self.log.log_start_offset,
            max_bytes=max_bytes,
        )

    def bound(self) -> int:
        """The partition end a fetch may read to."""
        return self.log.log_end_offset

    def ack(
        self,
        member: str,
        first: int,
        last: int,
        *types: AckType,
        delivery_count: int | None = None,
        delay_ms: int = 0,
    ) -> Staged | None:
        return self.sp.acknowledge(
            member,
            [AckBatch(first, last, list(types), delivery_count, delay_ms)],
            now=self.now,
            limits=self.limits,
        )

    def ack_durable(self, member: str, first: int, last: int, *types: AckType, **kw: int) -> None:
        staged = self.ack(member, first, last, *types, **kw)
        if staged is not None:
            self.sp.complete(staged, self.now, self.limits)

    def advance(self, ms: int) -> list[Staged]:
        """Move time; expire due locks and make the expiries durable at once."""
        self.now += ms
        out = []
        for item in self.heap.pop_due(self.now):
            if isinstance(item, Lock):
                staged = item.partition.expire_lock(item, self.now, self.limits)
                if staged is not None:
                    self.sp.complete(staged, self.now, self.limits)
                    out.append(staged)
        return out

    def states(self, lo: int, hi: int) -> list[tuple[int, str, int]]:
        return [
            (v.offset, v.state.label, v.delivery_count) for v in self.sp.record_views(lo, hi + 1)
        ]

    def window(self) -> tuple[int, int]:
        return self.sp.start_offset, self.sp.end_offset


@pytest.fixture
def h(tmp_path: Path) -> Harness:
    return Harness(tmp_path)


def offsets(got: Acquired) -> list[int]:
    return [r.offset for r, _ in got.records]


# -- the seed's worked example (KIP-932, "Managing durable share-partition state") ---------


def test_seed_worked_example_offsets_100_to_121(tmp_path: Path) -> None:
    h = Harness(tmp_path, start=100)
    h.produce(100)  # offsets 0-99: before the share partition's start (latest = 100)
    h.produce(10)  # 100-109
    h.produce(10)  # 110-119
    h.produce(1)  # 120
    assert h.window() == (100, 100)
    got = h.fetch("c1", 10)
    assert offsets(got) == list(range(100, 110))
    assert got.ranges == [(100, 109, 1)]
    assert h.window() == (100, 110)
    h.ack_durable("c1", 100, 109, A)
    assert h.window() == (110, 110)
    assert h.sp.snapshot() == (110, [])

    got = h.fetch("c2", 10)
    assert got.ranges == [(110, 119, 1)]
    assert h.window() == (110, 120)
    h.now += 1000
    h.ack_durable("c2", 110, 110, R)
    assert h.states(110, 110) == [(110, "available", 1)]
    h.ack_durable("c2", 119, 119, A)
    assert h.states(110, 119) == [(110, "available", 1)] + [
        (o, "acquired", 1) for o in range(111, 119)
    ] + [(119, "acknowledged", 1)]

    h.now = T0 + 10_000
    got = h.fetch("c2", 2, record_limit=True)
    assert [(r.offset, dc) for r, dc in got.records] == [(110, 2), (120, 1)]
    assert h.window() == (110, 121)

    h.now = T0 + 20_000  # keep 113-118 (renewed), let 111-112 expire
    assert h.ack("c2", 113, 118, N) is None
    expired = h.advance(10_000)
    assert [(r.first, r.last) for s in expired for r in s.runs] == [(111, 112)]
    assert h.states(110, 120) == [
        (110, "acquired", 2),
        (111, "available", 1),
        (112, "available", 1),
    ] + [(o, "acquired", 1) for o in range(113, 119)] + [
        (119, "acknowledged", 1),
        (120, "acquired", 1),
    ]

    h.ack_durable("c2", 113, 118, A)
    assert h.states(113, 119) == [(o, "acknowledged", 1) for o in range(113, 120)]
    got = h.fetch("c1", 10)
    assert [(r.offset, dc) for r, dc in got.records] == [(111, 2), (112, 2)]
    assert h.window() == (110, 121)

    h.ack_durable("c2", 110, 110, A)
    assert h.window() == (111, 121)
    h.ack_durable("c1", 111, 112, A)
    assert h.window() == (120, 121)
    assert h.states(100, 130) == [(120, "acquired", 1)]
    # durable view: SPSO 120, the acquired record is not persisted
    assert h.sp.snapshot() == (120, [])


def test_seed_in_flight_diagram_offsets_0_to_9(h: Harness) -> None:
    for _ in range(10):
        h.produce(1)  # one batch per offset
    h.fetch("a", 2, record_limit=True)
    h.ack_durable("a", 0, 0, A)
    h.ack_durable("a", 1, 1, J)
    assert h.window() == (2, 2)
    h.fetch("a", 5, record_limit=True)  # 2-6
    h.ack_durable("a", 3, 3, R)
    assert offsets(h.fetch("a", 1, record_limit=True)) == [3]
    assert offsets(h.fetch("c", 2, record_limit=True)) == [7, 8]
    h.ack_durable("a", 3, 3, R)
    h.ack_durable("a", 5, 5, A)
    h.ack_durable("a", 6, 6, J)
    leave = h.sp.release_member("c")
    assert leave is not None
    h.sp.complete(leave, h.now, h.limits)
    assert h.window() == (2, 9)
    assert h.states(0, 9) == [
        (2, "acquired", 1),
        (3, "available", 2),
        (4, "acquired", 1),
        (5, "acknowledged", 1),
        (6, "archived", 1),
        (7, "available", 0),
        (8, "available", 0),
    ]
    # the durable state: the start, the count of 3, 5 acknowledged, 6 archived
    assert h.sp.snapshot() == (2, [(3, 3, 0, 2), (5, 5, 2, 1), (6, 6, 4, 1)])
    assert h.sp.counts() == {"available": 3, "acquired": 2, "acknowledged": 1, "archived": 1}
    assert h.sp.lag(10) == 6  # 2,3,4,7,8,9


# -- acquisition ------------------------------------------------------------------------------


def test_batch_optimized_extends_to_batch_end_and_record_limit_splits(h: Harness) -> None:
    h.produce(5, batches=3)  # 0-4, 5-9, 10-14
    got = h.fetch("a", 7)
    assert offsets(got) == list(range(10))  # soft limit: to the end of the batch of the 7th
    got = h.fetch("b", 2, record_limit=True)
    assert offsets(got) == [10, 11]
    assert h.window() == (0, 12)
    got = h.fetch("b", 10, record_limit=True)
    assert offsets(got) == [12, 13, 14]


def test_record_limit_splits_an_available_run(h: Harness) -> None:
    h.produce(10)
    h.fetch("a")
    h.ack_durable("a", 0, 9, R)
    got = h.fetch("b", 3, record_limit=True)
    assert [(r.offset, dc) for r, dc in got.records] == [(0, 2), (1, 2), (2, 2)]
    assert h.states(3, 3) == [(3, "available", 1)]


def test_window_capped_by_max_record_locks(tmp_path: Path) -> None:
    h = Harness(tmp_path, limits=Limits(max_locks=100))
    h.produce(250, batches=1)
    got = h.fetch("a", 500, record_limit=True)
    assert len(got.records) == 100 and h.window() == (0, 100)
    assert offsets(h.fetch("b", 500, record_limit=True)) == []
    # terminal records in the middle free nothing; at the start they do
    h.ack_durable("a", 50, 99, A)
    assert offsets(h.fetch("b", 500, record_limit=True)) == []
    h.ack_durable("a", 0, 9, A)
    got = h.fetch("b", 500, record_limit=True)
    assert offsets(got) == list(range(100, 110))
    assert not h.sp.has_work(h.now, h.log.log_end_offset, 100)


def test_batch_optimized_passes_the_in_flight_limit_once(tmp_path: Path) -> None:
    """Like Kafka, batch_optimized takes the whole batch holding the last record within the
    limit, past the limit; then no new record is acquired until the window (acquired,
    available, acknowledged and archived offsets from its start) is below the limit again."""
    h = Harness(tmp_path, limits=Limits(max_locks=100))
    h.produce(30, batches=10)  # batches 0-29, 30-59, 60-89, 90-119, ...
    got = h.fetch("a", 500)
    assert offsets(got) == list(range(120)) and h.window() == (0, 120)
    for member in ("a", "b", "c"):
        assert offsets(h.fetch(member, 500)) == []  # over the limit: nothing new
        assert offsets(h.fetch(member, 1)) == []
    assert not h.sp.has_work(h.now, h.log.log_end_offset, 100)
    h.ack_durable("a", 0, 19, A)  # the window spans 100 offsets: still at the limit
    assert h.window() == (20, 120) and offsets(h.fetch("b", 500)) == []
    h.ack_durable("a", 20, 29, A)  # 90 offsets: room for 10, extended to their batch's end
    assert h.sp.has_work(h.now, h.log.log_end_offset, 100)
    assert offsets(h.fetch("b", 5)) == list(range(120, 150))
    assert h.window() == (30, 150) and offsets(h.fetch("c", 500)) == []
    # records released inside the window are acquired again, whatever the limit
    h.ack_durable("a", 30, 39, R)
    assert offsets(h.fetch("c", 500)) == list(range(30, 40))
    assert h.window() == (30, 150)


def test_control_markers_in_an_acquired_range_are_archived(h: Harness) -> None:
    h.produce(3)  # 0-2
    h.marker()  # 3
    h.produce(2)  # 4-5
    got = h.fetch("a")
    assert offsets(got) == [0, 1, 2, 4, 5]
    assert got.ranges == [(0, 2, 1), (4, 5, 1)]
    assert h.states(3, 3) == [(3, "archived", 0)]
    h.ack_durable("a", 0, 2, A)
    assert h.window() == (4, 6)


def test_only_markers_move_the_start(h: Harness) -> None:
    h.marker()
    h.marker()
    assert offsets(h.fetch("a")) == []
    assert h.window() == (2, 2)


def test_log_start_movement_archives_available_and_later_acquired(h: Harness) -> None:
    h.produce(10)
    h.fetch("a", 10)
    h.ack_durable("a", 0, 4, R)  # 0-4 available again
    h.log.advance_log_start(6)
    got = h.fetch("b", 10)
    assert offsets(got) == []
    assert h.sp.start_offset == 6
    # 5 is still acquired by a (below the start); its lock expiry archives it
    assert any(r.first <= 5 <= r.last and r.state is S.ACQUIRED for r in h.sp.runs)
    h.advance(30_000)
    assert not any(r.first <= 5 <= r.last and r.state is S.ACQUIRED for r in h.sp.runs)
    assert h.states(0, 9) == [(o, "available", 1) for o in range(6, 10)]


def test_a_release_in_progress_while_the_log_start_passes_archives_what_lies_below_it(
    h: Harness,
) -> None:
    h.produce(10)
    h.fetch("a")
    staged = h.ack("a", 0, 9, R)  # the write of the release is in progress
    assert staged is not None
    h.log.advance_log_start(6)
    assert offsets(h.fetch("b")) == []  # moves the start; 0-9 are mid-change: not acquired
    h.sp.complete(staged, h.now, h.limits)
    # 0-5 lie below the log start: archived; 6-9 are available and delivered again
    assert h.window() == (6, 10)
    assert h.states(0, 9) == [(o, "available", 1) for o in range(6, 10)]
    got = h.fetch("b")
    assert [(r.offset, dc) for r, dc in got.records] == [(o, 2) for o in range(6, 10)]
    h.ack_durable("b", 6, 9, A)
    assert h.window() == (10, 10) and h.sp.runs == []


def test_an_expiry_in_progress_while_the_log_start_passes_never_holds_the_start_back(
    h: Harness,
) -> None:
    h.produce(8)
    h.fetch("a", 4, record_limit=True)  # 0-3
    h.fetch("b", 4, record_limit=True)  # 4-7
    h.now += h.limits.lock_ms
    expiries = []
    for item in h.heap.pop_due(h.now):  # both locks expire; the writes are in progress
        assert isinstance(item, Lock)
        staged = item.partition.expire_lock(item, h.now, h.limits)
        assert staged is not None
        expiries.append(staged)
    h.log.advance_log_start(4)
    assert offsets(h.fetch("c")) == []
    for staged in expiries:
        h.sp.complete(staged, h.now, h.limits)
    assert h.window() == (4, 8)
    assert offsets(h.fetch("c")) == [4, 5, 6, 7]
    h.ack_durable("c", 4, 7, A)
    # 0-3 (below the log start) were archived when their expiry completed: nothing is left
    assert h.window() == (8, 8) and h.sp.runs == []


def test_acquire_never_takes_a_record_mid_acknowledgement(h: Harness) -> None:
    h.produce(10)
    h.fetch("a")
    staged = h.ack("a", 0, 9, R)
    assert staged is not None
    # pending: not re-acquirable (docs/semantics.md#share-pending-changes)
    assert offsets(h.fetch("b")) == []
    h.sp.complete(staged, h.now, h.limits)
    assert offsets(h.fetch("b")) == list(range(10))


# -- acknowledgement --------------------------------------------------------------------------


def test_ack_checks_owner_state_and_window(h: Harness) -> None:
    h.produce(10)
    h.fetch("a", 5, record_limit=True)
    with pytest.raises(Conflict) as e:
        h.ack("b", 0, 4, A)
    assert e.value.code is ErrorCode.INVALID_RECORD_STATE
    with pytest.raises(InvalidRequest):
        h.ack("a", 3, 7, A)  # beyond the window
    h.ack_durable("a", 2, 2, A)
    with pytest.raises(Conflict, match="acknowledged, not acquired"):
        h.ack("a", 1, 2, A)
    h.ack_durable("a", 0, 0, A)
    assert h.window() == (1, 5)
    assert h.ack("a", 0, 0, A) is None  # wholly below the start: silently skipped


def test_ack_is_atomic_per_partition(h: Harness) -> None:
    h.produce(10)
    h.fetch("a", 5, record_limit=True)
    h.fetch("b", 5, record_limit=True)
    batches = [AckBatch(0, 4, [A]), AckBatch(5, 5, [A])]
    with pytest.raises(Conflict):
        h.sp.acknowledge("a", batches, now=h.now, limits=h.limits)
    assert h.states(0, 4) == [(o, "acquired", 1) for o in range(5)]
    assert len(h.sp.runs) == 2  # nothing was cut either
    assert h.sp.staged == []


def test_per_offset_types(h: Harness) -> None:
    h.produce(4)
    h.fetch("a")
    staged = h.ack("a", 0, 3, A, R, J, A)
    assert staged is not None
    assert [(d.first, d.reason) for d in staged.dlq] == [(2, REASON_REJECTED)]
    h.sp.complete(staged, h.now, h.limits)
    assert h.states(0, 3) == [(1, "available", 1), (2, "archived", 1), (3, "acknowledged", 1)]


def test_mid_persist_record_is_not_acknowledged_twice(h: Harness) -> None:
    h.produce(3)
    h.fetch("a")
    staged = h.ack("a", 0, 2, A)
    with pytest.raises(Conflict, match="in progress"):
        h.ack("a", 0, 2, A)
    assert staged is not None
    h.sp.complete(staged, h.now, h.limits)


def test_rollback_restores_and_expires_meanwhile(h: Harness) -> None:
    h.produce(3)
    h.fetch("a")
    staged = h.ack("a", 0, 2, A)
    assert staged is not None
    assert h.sp.rollback(staged, h.now, h.limits) is None
    assert h.states(0, 2) == [(o, "acquired", 1) for o in range(3)]
    staged = h.ack("a", 0, 2, A)
    assert staged is not None
    h.now += 31_000
    for item in h.heap.pop_due(h.now):  # the expiry finds the runs pending: skipped
        assert isinstance(item, Lock)
        assert item.partition.expire_lock(item, h.now, h.limits) is None
    again = h.sp.rollback(staged, h.now, h.limits)
    assert again is not None and again.kind is StagedKind.EXPIRY
    h.sp.complete(again, h.now, h.limits)
    assert h.states(0, 2) == [(o, "available", 1) for o in range(3)]


def test_stale_ack_fenced_by_delivery_count(h: Harness) -> None:
    h.produce(2)
    h.fetch("a")
    h.advance(30_000)  # expired: available, dc 1
    got = h.fetch("a")  # the same member again: dc 2
    assert [dc for _, dc in got.records] == [2, 2]
    with pytest.raises(Conflict, match="redelivered"):
        h.ack("a", 0, 1, A, delivery_count=1)
    h.ack_durable("a", 0, 1, A, delivery_count=2)
    assert h.window() == (2, 2)


def test_ack_after_lock_expiry_is_refused_even_before_the_sweep(h: Harness) -> None:
    h.produce(2)
    h.fetch("a")
    h.now += 30_000  # deadline reached, the heap not yet swept
    with pytest.raises(Conflict, match="expired"):
        h.ack("a", 0, 1, A)


def test_renew_extends_the_lock_without_persisting(h: Harness) -> None:
    h.produce(2)
    h.fetch("a")
    h.now += 20_000
    before = h.sp.snapshot()
    assert h.ack("a", 0, 1, N) is None
    assert h.sp.snapshot() == before and h.sp.staged == []
    assert h.advance(15_000) == []  # the old lock came due: holds nothing
    assert h.states(0, 1) == [(0, "acquired", 1), (1, "acquired", 1)]
    h.advance(20_000)
    assert h.states(0, 1) == [(0, "available", 1), (1, "available", 1)]


def test_renew_disabled(tmp_path: Path) -> None:
    h = Harness(tmp_path, limits=Limits(renew_enabled=False))
    h.produce(1)
    h.fetch("a")
    with pytest.raises(InvalidRequest):
        h.ack("a", 0, 0, N)


def test_release_with_delay_is_not_acquired_early(h: Harness) -> None:
    h.produce(2)
    h.fetch("a")
    h.ack_durable("a", 0, 1, R, delay_ms=5000)
    views = h.sp.record_views(0, 2)
    assert [v.available_at for v in views] == [h.now + 5000] * 2
    assert offsets(h.fetch("b")) == []
    assert not h.sp.has_work(h.now, h.log.log_end_offset, 2000)
    assert [type(x).__name__ for x in h.heap.pop_due(h.now + 5000)] == ["SharePartition"]
    h.now += 5000
    got = h.fetch("b")
    assert [(r.offset, dc) for r, dc in got.records] == [(0, 2), (1, 2)]


def test_a_fragmented_window_holds_plain_runs(h: Harness) -> None:
    """One run per record (alternate release and renew): each run is six slots with no rare
    part, one int object for both ends, the member read from its shared lock."""
    h.produce(300)
    h.produce(300)
    h.fetch("a", 1000)
    h.ack_durable("a", 0, 599, *[R, N] * 300)
    runs = h.sp.runs
    assert len(runs) == 600 and all(r.first == r.last and r.rare is None for r in runs)
    assert all(r.first is r.last for r in runs if r.first > 256)
    renewed = runs[1::2]
    assert {r.state for r in renewed} == {S.ACQUIRED} and {r.member for r in renewed} == {"a"}
    assert len({id(r.lock) for r in renewed}) == 1
    assert {(r.state, r.member, r.lock) for r in runs[::2]} == {(S.AVAILABLE, None, None)}
    assert len(Run.__slots__) == 6


# -- delivery counts and the limit ------------------------------------------------------------


def test_expiry_keeps_count_and_limit_archives(tmp_path: Path) -> None:
    h = Harness(tmp_path, limits=Limits(delivery_limit=2))
    h.produce(3)
    h.fetch("a")
    assert h.advance(30_000)[0].dlq == []
    assert h.states(0, 2) == [(o, "available", 1) for o in range(3)]
    h.fetch("a")
    expired = h.advance(30_000)
    assert [(d.first, d.last, d.delivery_count, d.reason) for d in expired[0].dlq] == [
        (0, 2, 2, REASON_DELIVERY_LIMIT)
    ]
    assert h.window() == (3, 3)


def test_release_at_the_limit_archives(tmp_path: Path) -> None:
    # SPT testMaxDeliveryCountLimitExceededForRecordBatch: 5-14 released twice, limit 2
    h = Harness(tmp_path, start=5, limits=Limits(delivery_limit=2))
    h.produce(5)
    h.produce(10)
    h.fetch("a")
    h.ack_durable("a", 5, 14, R)
    h.fetch("a")
    staged = h.ack("a", 5, 14, R)
    assert staged is not None and staged.dlq[0].reason == REASON_DELIVERY_LIMIT
    h.sp.complete(staged, h.now, h.limits)
    assert h.window() == (15, 15) and h.sp.runs == []


def test_leave_lowers_the_delivery_count(h: Harness) -> None:
    h.produce(2)
    h.fetch("a")
    h.advance(30_000)
    h.fetch("a")  # dc 2
    staged = h.sp.release_member("a")
    assert staged is not None
    assert h.sp.snapshot({staged}) == (0, [(0, 1, 0, 1)])
    h.sp.complete(staged, h.now, h.limits)
    assert h.states(0, 1) == [(0, "available", 1), (1, "available", 1)]
    assert h.sp.release_member("a") is None


# -- the durable view and loading -------------------------------------------------------------


def test_snapshot_includes_only_taken_changes(h: Harness) -> None:
    h.produce(4)
    h.fetch("a")
    first = h.ack("a", 0, 1, A)
    second = h.ack("a", 2, 3, J)
    assert first is not None and second is not None
    assert h.sp.snapshot({first}) == (2, [])
    assert h.sp.snapshot({second}) == (0, [(2, 3, 4, 1)])
    assert h.sp.snapshot({first, second}) == (4, [])
    assert h.sp.snapshot() == (0, [])  # acquired: not persisted


def test_load_treats_gaps_as_maybe_unfetched(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.produce(10)
    sp = SharePartition.load(
        "g", "t", 0, 1, 2, [(3, 3, 0, 2), (5, 5, 2, 1), (6, 6, 4, 1)], h.heap, state_epoch=3
    )
    h.sp = sp
    assert h.window() == (2, 7)
    assert sp.state_epoch == 3
    got = h.fetch("a", 100)
    assert [(r.offset, dc) for r, dc in got.records] == [
        (2, 1),
        (3, 3),
        (4, 1),
        (7, 1),
        (8, 1),
        (9, 1),
    ]


def test_suspect_records_come_back_in_smaller_chunks_and_alone_at_the_last_attempt(
    h: Harness,
) -> None:
    # limit 5: throttling from a stored count of 3; the last attempt (count 4 → 5) goes alone
    h.produce(8)
    for expected_dc in (1, 2, 3):
        got = h.fetch("a")
        assert [dc for _, dc in got.records] == [expected_dc] * 8
        h.ack_durable("a", 0, 7, R)
    got = h.fetch("a")
    assert [(r.offset, dc) for r, dc in got.records] == [(o, 4) for o in range(4)]
    got = h.fetch("b")  # the rest of the batch, stored count 3: halved again
    assert [(r.offset, dc) for r, dc in got.records] == [(4, 4), (5, 4)]
    h.ack_durable("a", 0, 3, R)
    got = h.fetch("c")  # 0 is on its last attempt: alone
    assert [(r.offset, dc) for r, dc in got.records] == [(0, 5)]
    got = h.fetch("c")  # 1 too; never together with other records
    assert [(r.offset, dc) for r, dc in got.records] == [(1, 5)]


def test_acquires_only_what_the_byte_budget_lets_it_read(h: Harness) -> None:
    h.log.append([Record(T0, None, b"x" * 1000) for _ in range(10)], now_ms=T0)
    got = h.fetch("a", max_bytes=3500)
    assert offsets(got) == [0, 1, 2]  # the batch is not extended beyond what was read
    assert h.window() == (0, 3)
    h.ack_durable("a", 0, 2, R)
    got = h.fetch("b", max_bytes=1)  # at least one record, whatever its size
    assert offsets(got) == [0]
    assert h.states(0, 2) == [(0, "acquired", 2), (1, "available", 1), (2, "available", 1)]
    got = h.fetch("b", max_bytes=2500)  # 1 and 2 (1036 bytes each, at most) fit, 3 does not
    assert offsets(got) == [1, 2]
    assert h.window() == (0, 3)
    got = h.fetch("c", max_bytes=3110)
    assert offsets(got) == [3, 4, 5]
    assert h.window() == (0, 6)
