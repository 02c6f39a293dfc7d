"""How SharePartition.acquire reads the log for AVAILABLE runs: the stored batches under
the runs of one call are read once, and every run gets what a read of its own would give
(records, byte budget, gaps)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.producers.manager import ProducerStateManager
from app.share.partition import AckType, Limits
from app.storage import record
from app.storage.log import LogConfig, PartitionLog, ReadResult
from app.storage.record import Record
from tests.unit.share.test_partition import T0, Harness, offsets

A, R = AckType.ACCEPT, AckType.RELEASE
BIG = b"x" * 1000  # a record of 1000 bytes counts 1036 at most (record_size)


class Counting(Harness):
    """A harness whose reader counts the reads of the log, and reads committed data only
    when told (a group of read_committed)."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp)
        self.log = PartitionLog(
            str(tmp / "txn-log"),
            LogConfig(),
            durable_reads=False,
            producer_state=ProducerStateManager(),
        )
        self.reads = 0
        self.records_read = 0
        self.committed = False

    def read(self, offset: int, max_records: int, upto: int, max_bytes: int) -> ReadResult:
        self.reads += 1
        got = self.log.read(offset, max_records, max_bytes, upto=upto, committed=self.committed)
        self.records_read += len(got.records)
        return got

    def bound(self) -> int:
        # as the coordinator bounds a group: by the LSO under read_committed
        return self.log.last_stable_offset if self.committed else self.log.log_end_offset

    def txn(self, pid: int, n: int) -> None:
        self.log.append(
            [Record(T0, None, b"t") for _ in range(n)],
            now_ms=T0,
            producer_id=pid,
            producer_epoch=0,
            base_sequence=0,
            attributes=record.TRANSACTIONAL_FLAG,
        )

    def release_even(self, member: str, first: int, last: int) -> None:
        """Release the even offsets of ``[first, last]`` and accept the odd ones."""
        types = [R if o % 2 == 0 else A for o in range(first, last + 1)]
        self.ack_durable(member, first, last, *types)


@pytest.fixture
def h(tmp_path: Path) -> Counting:
    return Counting(tmp_path)


def test_released_records_between_accepted_ones_are_read_once(h: Counting) -> None:
    h.produce(100, batches=2)  # 0-99, 100-199
    assert len(h.fetch("a").records) == 200
    h.release_even("a", 0, 199)
    h.reads = 0
    got = h.fetch("b")
    assert [(r.offset, dc) for r, dc in got.records] == [(o, 2) for o in range(0, 200, 2)]
    assert got.ranges == [(o, o, 2) for o in range(0, 200, 2)]
    assert h.reads == 1  # not one read (of a whole batch) per released record
    assert h.states(0, 3) == [
        (0, "acquired", 2),
        (1, "acknowledged", 1),
        (2, "acquired", 2),
        (3, "acknowledged", 1),
    ]


def test_record_limit_reads_only_the_span_it_takes(h: Counting) -> None:
    h.produce(100, batches=2)
    h.fetch("a")
    h.release_even("a", 0, 199)
    h.reads = 0
    got = h.fetch("b", 50, record_limit=True)
    assert offsets(got) == list(range(0, 100, 2))
    got = h.fetch("b", 50, record_limit=True)
    assert offsets(got) == list(range(100, 200, 2))
    assert h.reads == 2
    assert h.fetch("b", 50, record_limit=True).records == []


def test_runs_far_apart_are_read_apart(h: Counting) -> None:
    h.produce(100, batches=3)
    h.fetch("a")
    types = [R if o in (0, 1, 150, 151, 168) else A for o in range(300)]
    h.ack_durable("a", 0, 299, *types)
    h.reads = h.records_read = 0
    got = h.fetch("b")
    assert [(r.offset, dc) for r, dc in got.records] == [(o, 2) for o in (0, 1, 150, 151, 168)]
    # not the 148 acknowledged records between 1 and 150 (the 16 between 151 and 168 are
    # read through: a read of their own would cost more)
    assert h.reads == 2
    assert h.records_read == 2 + 19


def test_a_run_split_by_the_budget_leaves_its_rest_available(h: Counting) -> None:
    h.log.append([Record(T0, None, BIG) for _ in range(10)], now_ms=T0)
    h.fetch("a")
    # runs 0-2 and 4-6 available, 3 and 7-9 acknowledged
    h.ack_durable("a", 0, 9, R, R, R, A, R, R, R, A, A, A)
    got = h.fetch("b", max_bytes=2500)  # 0 and 1 fit, 2 does not
    assert offsets(got) == [0, 1]
    assert got.bytes <= 2500
    assert h.states(0, 6) == [
        (0, "acquired", 2),
        (1, "acquired", 2),
        (2, "available", 1),
        (3, "acknowledged", 1),
        (4, "available", 1),
        (5, "available", 1),
        (6, "available", 1),
    ]
    got = h.fetch("c", max_bytes=1)  # at least one record, whatever its size
    assert offsets(got) == [2]
    got = h.fetch("c")
    assert [(r.offset, dc) for r, dc in got.records] == [(4, 2), (5, 2), (6, 2)]


def test_a_span_ending_inside_a_batch_is_read_on_from_the_next_run(h: Counting) -> None:
    for _ in range(2):  # batches 0-4 and 5-9
        h.log.append([Record(T0, None, BIG) for _ in range(5)], now_ms=T0)
    h.fetch("a")
    h.release_even("a", 0, 9)
    # the first read (3500 bytes from 0) ends inside the batch 0-4, after offset 2: 4 is
    # read from where it is, and 6 comes whatever its size but does not fit the budget left
    got = h.fetch("b", max_bytes=3500)
    assert offsets(got) == [0, 2, 4]
    assert got.bytes <= 3500
    assert h.states(4, 8) == [
        (4, "acquired", 2),
        (5, "acknowledged", 1),
        (6, "available", 1),
        (7, "acknowledged", 1),
        (8, "available", 1),
    ]
    h.reads = 0
    got = h.fetch("b")
    assert [(r.offset, dc) for r, dc in got.records] == [(6, 2), (8, 2)]
    assert h.reads == 1


def test_gaps_between_released_runs_under_read_committed(h: Counting) -> None:
    h.committed = True
    h.produce(3)  # 0-2
    h.txn(7, 2)  # 3-4, aborted
    h.log.append_marker(7, 0, False, now_ms=T0)  # 5
    h.produce(3)  # 6-8
    got = h.fetch("a")
    assert offsets(got) == [0, 1, 2, 6, 7, 8]
    assert h.states(3, 5) == [(3, "archived", 1), (4, "archived", 1), (5, "archived", 0)]
    h.ack_durable("a", 0, 2, R)
    h.ack_durable("a", 6, 8, R)
    h.reads = 0
    got = h.fetch("b")
    assert [(r.offset, dc) for r, dc in got.records] == [(o, 2) for o in (0, 1, 2, 6, 7, 8)]
    assert h.reads == 1
    assert h.states(3, 5) == [(3, "archived", 1), (4, "archived", 1), (5, "archived", 0)]


def test_aborted_data_inside_released_runs_is_archived_under_read_committed(
    h: Counting,
) -> None:
    # read uncommitted first (every record delivered), then read_committed: the released
    # runs that hold aborted data lose it, as when each is read on its own
    h.produce(2)  # 0-1
    h.txn(7, 3)  # 2-4, aborted
    h.log.append_marker(7, 0, False, now_ms=T0)  # 5
    h.produce(4)  # 6-9
    assert offsets(h.fetch("a")) == [0, 1, 2, 3, 4, 6, 7, 8, 9]
    h.ack_durable("a", 0, 4, R, A, R, R, R)  # runs 0, 2-4 (aborted), 6-7, 9
    h.ack_durable("a", 6, 9, R, R, A, R)
    h.committed = True
    got = h.fetch("b")
    assert [(r.offset, dc) for r, dc in got.records] == [(0, 2), (6, 2), (7, 2), (9, 2)]
    assert h.states(0, 9) == [
        (0, "acquired", 2),
        (1, "acknowledged", 1),
        (2, "archived", 1),
        (3, "archived", 1),
        (4, "archived", 1),
        (5, "archived", 0),
        (6, "acquired", 2),
        (7, "acquired", 2),
        (8, "acknowledged", 1),
        (9, "acquired", 2),
    ]


def test_a_released_record_of_an_aborted_batch_is_archived_alone_under_read_committed(
    h: Counting,
) -> None:
    # read uncommitted first, then read_committed: the read for the released offset 1 passes
    # the whole aborted batch (1-3), whose other offsets are acknowledged already and stay so
    h.produce(1)  # 0
    h.txn(7, 3)  # 1-3, aborted
    h.log.append_marker(7, 0, False, now_ms=T0)  # 4
    h.produce(1)  # 5
    assert offsets(h.fetch("a")) == [0, 1, 2, 3, 5]
    h.ack_durable("a", 0, 5, A, R, A, A, A, A)  # 4 is the marker: skipped
    assert h.window() == (1, 6)
    h.committed = True
    got = h.fetch("b")
    assert (got.records, got.ranges, got.lock) == ([], [], None)
    assert h.window() == (6, 6)  # 1 archived: every offset is done
    assert h.sp.snapshot() == (6, [])


def test_released_records_between_acknowledged_ones_of_an_aborted_batch(h: Counting) -> None:
    h.produce(1)  # 0
    h.txn(7, 4)  # 1-4, aborted
    h.log.append_marker(7, 0, False, now_ms=T0)  # 5
    h.produce(2)  # 6-7
    assert offsets(h.fetch("a")) == [0, 1, 2, 3, 4, 6, 7]
    h.ack_durable("a", 1, 7, R, A, R, A, A, R, A)  # 0 stays acquired by a
    h.committed = True
    got = h.fetch("b")
    assert [(r.offset, dc) for r, dc in got.records] == [(6, 2)]
    assert h.states(0, 7) == [
        (0, "acquired", 1),
        (1, "archived", 1),
        (2, "acknowledged", 1),
        (3, "archived", 1),
        (4, "acknowledged", 1),
        (5, "archived", 0),
        (6, "acquired", 2),
        (7, "acknowledged", 1),
    ]


def test_released_records_past_the_lso_stay_available_under_read_committed(h: Counting) -> None:
    # read uncommitted first (an open transaction's records delivered and released), then
    # read_committed: the records past the LSO are out of reach until the transaction ends,
    # neither delivered nor archived
    h.produce(1)  # 0
    h.txn(7, 2)  # 1-2, open
    h.produce(1)  # 3
    assert offsets(h.fetch("a")) == [0, 1, 2, 3]
    h.ack_durable("a", 0, 3, A, R, R, R)
    h.committed = True
    assert h.bound() == 1
    got = h.fetch("b")
    assert (got.records, got.lock) == ([], None)
    assert h.states(0, 3) == [(1, "available", 1), (2, "available", 1), (3, "available", 1)]
    assert not h.sp.has_work(h.now, h.bound(), h.limits.max_locks)  # no fetch to wake
    h.log.append_marker(7, 0, True, now_ms=T0)  # 4: committed
    assert h.sp.has_work(h.now, h.bound(), h.limits.max_locks)
    got = h.fetch("b")
    assert [(r.offset, dc) for r, dc in got.records] == [(1, 2), (2, 2), (3, 2)]
    assert h.states(1, 4) == [
        (1, "acquired", 2),
        (2, "acquired", 2),
        (3, "acquired", 2),
        (4, "archived", 0),
    ]


def test_a_fetch_whose_released_records_turn_out_to_be_gaps_takes_new_records_in_their_place(
    h: Counting,
) -> None:
    # the window is at its limit of 4 offsets; the released record at its start turns out to
    # be aborted data once the group reads committed: archived, it frees the window, and the
    # same fetch goes on to the new records rather than coming back empty
    h.limits = Limits(max_locks=4)
    h.txn(7, 1)  # 0, aborted
    h.log.append_marker(7, 0, False, now_ms=T0)  # 1
    h.produce(4)  # 2-5
    assert offsets(h.fetch("a", 4, record_limit=True)) == [0, 2, 3, 4]
    h.ack_durable("a", 0, 4, R, A, A, A, A)  # 1 is the marker: skipped
    assert h.window() == (0, 5)
    h.committed = True
    got = h.fetch("b", 4, record_limit=True)
    assert [(r.offset, dc) for r, dc in got.records] == [(5, 1)]
    assert h.window() == (5, 6)
    assert h.states(0, 5) == [(5, "acquired", 1)]
