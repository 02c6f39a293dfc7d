"""The partition log's transaction index: LSO, aborted ranges, snapshot and replay at open."""

from __future__ import annotations

import errno
import os
import struct
import zlib
from pathlib import Path

import orjson

from app.producers.manager import ProducerStateManager
from app.storage import fileio, record
from app.storage.log import SNAPSHOT_FILE, LogConfig, PartitionLog
from app.storage.record import Record

TXN = record.TRANSACTIONAL_FLAG


def _open(path: Path, durable: bool = False) -> PartitionLog:
    return PartitionLog(
        str(path),
        LogConfig(segment_bytes=1024),
        durable_reads=durable,
        producer_state=ProducerStateManager(),
    )


def _recs(*values: str) -> list[Record]:
    return [Record(1, None, v.encode()) for v in values]


def _txn(lg: PartitionLog, pid: int, *values: str) -> None:
    lg.append(
        _recs(*values), now_ms=1, producer_id=pid, producer_epoch=0, base_sequence=0, attributes=TXN
    )


def _flush(lg: PartitionLog) -> None:
    ticket = lg.prepare_flush(snapshot=True)
    assert ticket is not None
    lg.flush(ticket)
    lg.complete_flush(ticket)


def _committed(lg: PartitionLog, offset: int = 0) -> list[tuple[int, bytes | None]]:
    return [(r.offset, r.value) for r in lg.read(offset, 1000, 1 << 20, committed=True).records]


def test_mixed_producers_lso_and_aborted_ranges(tmp_path: Path) -> None:
    lg = _open(tmp_path / "p")
    lg.append(_recs("plain0"), now_ms=1)  # 0
    _txn(lg, 1, "a0", "a1")  # 1-2
    _txn(lg, 2, "b0")  # 3
    lg.append(_recs("plain1"), now_ms=1)  # 4
    assert lg.last_stable_offset == 1
    assert _committed(lg) == [(0, b"plain0")]
    lg.append_marker(1, 1, False, now_ms=1)  # 5: abort pid 1
    assert lg.last_stable_offset == 3  # pid 2 still open
    assert _committed(lg) == [(0, b"plain0")]
    _txn(lg, 1, "a2")  # 6: a new txn of pid 1
    lg.append_marker(2, 1, True, now_ms=1)  # 7: commit pid 2
    assert lg.last_stable_offset == 6
    assert _committed(lg) == [(0, b"plain0"), (3, b"b0"), (4, b"plain1")]
    lg.append_marker(1, 2, True, now_ms=1)  # 8: commit pid 1's second txn
    assert lg.last_stable_offset == lg.high_watermark == 9
    assert _committed(lg) == [(0, b"plain0"), (3, b"b0"), (4, b"plain1"), (6, b"a2")]
    assert lg.is_aborted(1, 1) and lg.is_aborted(1, 2)
    assert not lg.is_aborted(1, 6) and not lg.is_aborted(2, 3)
    result = lg.read(1, 1000, 1 << 20, committed=True)
    assert result.next_offset == 9


def test_marker_not_durable_yet_holds_the_lso(tmp_path: Path) -> None:
    lg = _open(tmp_path / "p", durable=True)
    _txn(lg, 1, "a0")
    _flush(lg)
    lg.append_marker(1, 1, True, now_ms=1)
    assert lg.high_watermark == 1 and lg.last_stable_offset == 0
    _flush(lg)
    assert lg.txns.closing == []  # pruned by the flush itself, not only by readers
    assert lg.last_stable_offset == lg.high_watermark == 2


def test_snapshot_then_replay_of_the_tail(tmp_path: Path) -> None:
    lg = _open(tmp_path / "p")
    _txn(lg, 1, "a0")
    lg.append_marker(1, 1, False, now_ms=1)
    _txn(lg, 2, "b0")
    _flush(lg)  # snapshot at offset 3
    _txn(lg, 3, "c0")  # written after the snapshot: replayed
    lg.append_marker(2, 1, False, now_ms=1)
    t = lg.prepare_flush()
    assert t is not None
    lg.flush(t, checkpoint=False)
    lg.close(clean=False)
    again = _open(tmp_path / "p")
    assert again.open_transactions() == {3: 3}
    assert again.is_aborted(1, 0) and again.is_aborted(2, 2)
    assert again.last_stable_offset == 3
    state = again.producer_state
    assert isinstance(state, ProducerStateManager)
    # the test appended around the manager, so the snapshot held no entries: the ones here
    # come from replaying the batches after it
    assert set(state.entries) == {2, 3}
    assert state.entries[3].txn_first_offset == 3
    assert state.entries[2].epoch == 1
    again.close(clean=True)


def test_no_snapshot_replays_the_whole_log(tmp_path: Path) -> None:
    lg = _open(tmp_path / "p")
    for i in range(30):  # several segments
        _txn(lg, i, "x" * 50)
        lg.append_marker(i, 1, i % 2 == 0, now_ms=1)
    lg.close(clean=True)
    os.unlink(tmp_path / "p" / SNAPSHOT_FILE)
    again = _open(tmp_path / "p")
    assert len(again.segments) > 1
    assert again.open_transactions() == {}
    assert [again.is_aborted(i, 2 * i) for i in range(4)] == [False, True, False, True]
    assert len(_committed(again)) == 15


def test_retention_drops_aborted_ranges_below_the_log_start(tmp_path: Path) -> None:
    """A segment's aborted transactions go with it: its index file is deleted."""
    lg = _open(tmp_path / "p")
    for _ in range(30):
        _txn(lg, 1, "x" * 50)
        lg.append_marker(1, 1, False, now_ms=1)
    gone = [s.aborts.path for s in lg.segments[:2]]
    assert all(os.path.exists(p) for p in gone)
    lg.log_start_offset = lg.segments[2].base_offset
    lg.remove_segments(lg.segments[:2])
    assert not any(os.path.exists(p) for p in gone)
    assert _committed(lg, lg.log_start_offset) == []
    assert lg.is_aborted(1, lg.log_start_offset)


def test_open_reads_only_the_batches_after_the_snapshot(tmp_path: Path) -> None:
    """Restart cost is bounded by the snapshot: bytes before it are never read again, so
    scribbling over an early (checkpointed) segment does not disturb the producer state."""
    lg = _open(tmp_path / "p")
    for i in range(40):
        _txn(lg, i, "x" * 50)
        lg.append_marker(i, 1, i % 3 == 0, now_ms=1)
    _txn(lg, 99, "open")
    lg.close(clean=True)
    first = tmp_path / "p" / "00000000000000000000.log"
    with open(first, "r+b") as f:
        f.seek(0)
        f.write(b"\xff" * 200)  # garbage no replay could parse
    again = _open(tmp_path / "p")
    assert again.open_transactions() == {99: 80}
    assert not again.is_aborted(3, 6) and again.is_aborted(4, 8)  # commits when i % 3 == 0
    assert again.last_stable_offset == 80
    again.close(clean=False)


def test_the_lso_never_falls_below_the_log_start(tmp_path: Path) -> None:
    """Deleting records past an open transaction's first offset moves the LSO with the log
    start (Kafka's firstUnstableOffset is bounded by the log start): an LSO below the log
    start is an offset nobody may read."""
    lg = _open(tmp_path / "p")
    lg.append(_recs("plain0", "plain1"), now_ms=1)  # 0-1
    _txn(lg, 1, "a0", "a1")  # 2-3, still open
    lg.append(_recs("plain2"), now_ms=1)  # 4
    assert lg.last_stable_offset == 2
    assert lg.advance_log_start(3)
    assert lg.last_stable_offset == 3
    assert _committed(lg, 3) == []  # the open transaction still holds readers back
    lg.append_marker(1, 1, False, now_ms=1)  # 5: abort
    assert lg.last_stable_offset == lg.high_watermark == 6
    assert _committed(lg, 3) == [(4, b"plain2")]


# -- the aborted transactions of each segment, in its file --------------------------------------


def _abort_many(lg: PartitionLog, n: int, *, pid: int = 1) -> list[int]:
    """``n`` aborted transactions of one record each; answers their data offsets."""
    out = []
    for _ in range(n):
        out.append(lg.log_end_offset)
        _txn(lg, pid, "x" * 50)
        lg.append_marker(pid, 1, False, now_ms=1)
    return out


def test_sealed_segments_keep_their_aborted_transactions_in_their_files_only(
    tmp_path: Path,
) -> None:
    """Memory and the producer-state snapshot hold the aborted transactions of the active
    segment only, however many the log has: they grew by one entry a transaction and partition,
    and the snapshot written every second grew with them."""
    lg = _open(tmp_path / "p")
    lg.append(_recs("plain"), now_ms=1)
    aborted = _abort_many(lg, 60)
    _flush(lg)
    sealed = lg.segments[:-1]
    assert len(sealed) >= 5
    assert all(s.aborts.detached and s.aborts.ranges == {} for s in sealed)
    assert sum(s.aborts.count for s in lg.segments) == 60
    snapshot = (tmp_path / "p" / SNAPSHOT_FILE).read_bytes()
    assert b'"aborted":[]' in snapshot and len(snapshot) < 200
    assert _committed(lg) == [(0, b"plain")]
    assert all(lg.is_aborted(1, o) for o in aborted)
    assert all(s.aborts.ranges == {} for s in sealed)  # the reads left nothing behind
    lg.close(clean=True)
    again = _open(tmp_path / "p")
    assert _committed(again) == [(0, b"plain")]
    assert all(s.aborts.detached for s in again.segments[:-1])
    again.close(clean=True)


def test_a_transaction_aborted_in_a_later_segment_is_left_out_of_the_earlier_one(
    tmp_path: Path,
) -> None:
    lg = _open(tmp_path / "p")
    _txn(lg, 7, "first")  # 0, in the first segment
    for i in range(30):  # plain records roll the log past it
        lg.append(_recs(f"p{i}" * 20), now_ms=1)
    assert len(lg.segments) > 2
    marker = lg.append_marker(7, 1, False, now_ms=1).base_offset
    _flush(lg)
    assert lg.segments[0].aborts.count == 0 and lg.active.aborts.count == 1
    got = _committed(lg)
    assert got[0][0] == 1 and len(got) == 30  # offset 0 left out, 30 plain ones
    assert lg.is_aborted(7, 0) and not lg.is_aborted(7, marker + 1)


def test_a_replay_indexes_each_abort_once(tmp_path: Path) -> None:
    """A restart without a clean close replays the batches after the snapshot: the abort
    indexes are cut back to the snapshot first, so no marker is indexed twice."""
    lg = _open(tmp_path / "p")
    _abort_many(lg, 20)
    _flush(lg)  # a snapshot
    _abort_many(lg, 20, pid=2)  # after it: replayed
    t = lg.prepare_flush()
    assert t is not None
    lg.flush(t, checkpoint=False)
    lg.close(clean=False)
    again = _open(tmp_path / "p")
    entries = [e for s in again.segments for e in s.aborts._entries()]
    assert len(entries) == 40 == len(set(entries))
    assert _committed(again) == []
    again.close(clean=False)
    os.unlink(tmp_path / "p" / SNAPSHOT_FILE)  # no snapshot at all: the whole log replayed
    third = _open(tmp_path / "p")
    assert sum(s.aborts.count for s in third.segments) == 40
    assert _committed(third) == []


def test_the_aborted_transactions_of_an_earlier_release_move_to_their_segments(
    tmp_path: Path,
) -> None:
    """An earlier release kept every aborted transaction in the snapshot and wrote no index
    files: at open they go to the segments of their markers."""
    lg = _open(tmp_path / "p")
    lg.append(_recs("plain"), now_ms=1)
    aborted = _abort_many(lg, 30)
    markers = [o + 1 for o in aborted]
    lg.close(clean=True)
    directory = tmp_path / "p"
    for name in os.listdir(directory):
        if name.endswith(".txnindex"):
            os.unlink(directory / name)
    data = (directory / SNAPSHOT_FILE).read_bytes()[:-4]
    snap = orjson.loads(data)
    snap["aborted"] = [[1, first, marker] for first, marker in zip(aborted, markers, strict=True)]
    body = orjson.dumps(snap)
    (directory / SNAPSHOT_FILE).write_bytes(body + struct.pack("<I", zlib.crc32(body)))
    again = _open(directory)
    assert _committed(again) == [(0, b"plain")]
    assert sum(s.aborts.count for s in again.segments) == 30
    assert any(name.endswith(".txnindex") for name in os.listdir(directory))
    again.close(clean=True)


def test_a_failed_index_write_is_whole_before_a_checkpoint_covers_it(tmp_path: Path) -> None:
    """An aborted transaction whose entry the disk refused must not be covered by a checkpoint
    (a restart would replay from it and never index the abort): the flush leaves the checkpoint
    where it was, and the next one writes the file whole first."""
    lg = _open(tmp_path / "p")
    _txn(lg, 1, "a")
    fault = fileio.Fault("write", errno.ENOSPC, partial=5, suffix=".txnindex")
    fileio.install(fault)
    try:
        lg.append_marker(1, 1, False, now_ms=1)
    finally:
        fileio.remove()
    assert fault.failures == 1 and not lg.active.aborts.complete
    assert _committed(lg) == []  # memory has it all the same
    assert lg.is_aborted(1, 0)
    _flush(lg)  # repairs first
    assert lg.active.aborts.complete
    assert os.path.getsize(lg.active.aborts.path) == 24
    lg.close(clean=False)
    assert _committed(_open(tmp_path / "p")) == []
