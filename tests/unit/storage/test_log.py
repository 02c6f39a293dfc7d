"""PartitionLog: rolling, reads, high watermark, timestamps, retention, reopen, control batches."""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from app.storage import record
from app.storage.handles import SealedFiles
from app.storage.index import TAIL
from app.storage.log import CHECKPOINT_FILE, LOG_START_FILE, LogConfig, PartitionLog
from app.storage.record import Header, Record, StoredRecord

DAY = 24 * 3600 * 1000
CFG = LogConfig(
    segment_bytes=4096,
    segment_ms=DAY,
    retention_ms=-1,
    retention_bytes=-1,
    index_interval_bytes=256,
)


def open_log(
    path: Path, config: LogConfig = CFG, *, durable: bool = False, now_ms: int = 0
) -> PartitionLog:
    return PartitionLog(str(path), config, durable_reads=durable, now_ms=now_ms)


def recs(start_ts: int, n: int, size: int = 50, tag: str = "") -> list[Record]:
    return [
        Record(
            start_ts + i,
            f"k{tag}{i}".encode() if i % 2 else None,
            (f"{tag}{start_ts + i}:".encode() * size)[:size],
        )
        for i in range(n)
    ]


def stored(first_offset: int, records: list[Record]) -> list[StoredRecord]:
    return [
        StoredRecord(first_offset + i, r.timestamp, r.key, r.value, tuple(r.headers))
        for i, r in enumerate(records)
    ]


def flush(lg: PartitionLog) -> None:
    ticket = lg.prepare_flush()
    if ticket is not None:
        lg.flush(ticket)
        lg.complete_flush(ticket)


def read_all(
    lg: PartitionLog,
    start: int | None = None,
    upto: int | None = None,
    max_records: int = 37,
    max_bytes: int = 1500,
) -> list[StoredRecord]:
    """Page through the log the way a consumer does."""
    offset = lg.log_start_offset if start is None else start
    out: list[StoredRecord] = []
    while True:
        res = lg.read(offset, max_records, max_bytes, upto)
        if res.next_offset == offset:
            return out
        out.extend(res.records)
        offset = res.next_offset


def fill(
    lg: PartitionLog,
    batches: int,
    per_batch: int = 3,
    size: int = 50,
    ts0: int = 1000,
    now_ms: int = 0,
) -> list[StoredRecord]:
    out: list[StoredRecord] = []
    for b in range(batches):
        rs = recs(ts0 + b * per_batch, per_batch, size)
        info = lg.append(rs, now_ms=now_ms)
        out.extend(stored(info.base_offset, rs))
    return out


def segment_files(path: Path) -> dict[str, bytes]:
    return {n: (path / n).read_bytes() for n in sorted(os.listdir(path)) if n.endswith(".log")}


# -- rolling ------------------------------------------------------------------------------------


def test_roll_by_size(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    fill(lg, 60, size=60)
    assert len(lg.segments) >= 4
    for seg, nxt in zip(lg.segments, lg.segments[1:], strict=False):
        assert seg.size <= CFG.segment_bytes
        assert seg.next_offset == nxt.base_offset
        # it rolled because the next batch would not have fit
        first_of_next = nxt.read(0, record.HEADER_SIZE)
        assert seg.size + record.read_header(first_of_next).size > CFG.segment_bytes
    assert [s.base_offset for s in lg.segments] == lg._bases
    names = sorted(n for n in os.listdir(tmp_path / "p") if n.endswith(".log"))
    assert names == [f"{s.base_offset:020d}.log" for s in lg.segments]
    lg.close(clean=False)


def test_a_batch_larger_than_a_segment_gets_its_own(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    lg.append(recs(0, 1, 10), now_ms=0)
    big = lg.append([Record(1, None, b"b" * 10_000)], now_ms=0)
    lg.append(recs(2, 1, 10), now_ms=0)
    assert [s.base_offset for s in lg.segments] == [0, 1, 2]
    assert lg.segments[1].size > CFG.segment_bytes
    assert lg.read(big.base_offset, 10, 10).records[0].value == b"b" * 10_000
    lg.close(clean=False)


def test_roll_by_segment_ms(tmp_path: Path) -> None:
    cfg = LogConfig(
        segment_bytes=1 << 20, segment_ms=1000, retention_ms=-1, index_interval_bytes=256
    )
    lg = open_log(tmp_path / "p", cfg, now_ms=5000)
    lg.append(recs(0, 1), now_ms=5000)
    lg.append(recs(1, 1), now_ms=5999)
    assert len(lg.segments) == 1
    lg.append(recs(2, 1), now_ms=6000)
    assert [s.base_offset for s in lg.segments] == [0, 2]
    lg.append(recs(3, 1), now_ms=6999)  # the clock restarts at the roll
    assert len(lg.segments) == 2
    lg.append(recs(4, 1), now_ms=7000)
    assert [s.base_offset for s in lg.segments] == [0, 2, 4]
    assert [r.offset for r in read_all(lg)] == [0, 1, 2, 3, 4]
    lg.close(clean=True)
    # after a reopen the age counts from the open
    lg = open_log(tmp_path / "p", cfg, now_ms=100_000)
    lg.append(recs(5, 1), now_ms=100_999)
    assert [s.base_offset for s in lg.segments] == [0, 2, 4]
    lg.append(recs(6, 1), now_ms=101_000)
    assert [s.base_offset for s in lg.segments] == [0, 2, 4, 6]
    lg.close(clean=False)


def test_an_empty_active_segment_never_rolls_by_time(tmp_path: Path) -> None:
    cfg = LogConfig(segment_bytes=1 << 20, segment_ms=1000, index_interval_bytes=256)
    lg = open_log(tmp_path / "p", cfg, now_ms=0)
    lg.append(recs(0, 1), now_ms=10**9)
    assert [s.base_offset for s in lg.segments] == [0]
    lg.close(clean=False)


# -- reads --------------------------------------------------------------------------------------


def open_files(path: Path) -> list[str]:
    """The files under ``path`` this process holds open."""
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except FileNotFoundError:
            continue
        if target.startswith(str(path)):
            out.append(os.path.basename(target))
    return sorted(out)


def test_sealed_segments_close_their_files_once_durable(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    written = fill(lg, 60, size=60)
    assert len(lg.segments) >= 4
    # not yet durable: every rolled segment keeps its log open for the flush
    assert len([n for n in open_files(tmp_path) if n.endswith(".log")]) == len(lg.segments)
    flush(lg)
    active = f"{lg.active.base_offset:020d}"
    assert open_files(tmp_path) == [active + ".index", active + ".log"]
    assert read_all(lg) == written  # reads open sealed segments again
    lg.close(clean=False)
    assert open_files(tmp_path) == []


def test_sealed_segments_keep_their_index_in_its_file_not_in_memory(tmp_path: Path) -> None:
    """The server's memory must not grow with the log: once durable, a sealed segment's index
    entries leave memory, lookups search the file, and a read leaves them there again."""
    cfg = LogConfig(segment_bytes=4096, index_interval_bytes=128, retention_ms=-1)
    lg = open_log(tmp_path / "p", cfg)
    written = fill(lg, 200, size=60)
    flush(lg)
    sealed = lg.segments[:-1]
    assert len(sealed) >= 10
    assert all(s.index.detached and len(s.index.offsets) == 0 for s in sealed)
    in_memory = sum(len(s.index.offsets) for s in lg.segments)
    assert in_memory == len(lg.active.index.offsets)
    for s in sealed:  # every entry reached its file
        assert s.index.entries() == [
            struct.unpack_from("<qqq", Path(s.index.path).read_bytes(), i)
            for i in range(0, os.path.getsize(s.index.path), 24)
        ]
    assert read_all(lg) == written
    for offset in range(0, lg.log_end_offset, 7):  # lookups land where a scan would
        assert lg.read(offset, 1, 10_000).records[0].offset == offset
    assert all(len(s.index.offsets) == 0 for s in sealed)  # the reads left nothing behind
    lg.close(clean=True)
    again = open_log(tmp_path / "p", cfg)
    assert read_all(again) == written
    assert sum(len(s.index.offsets) for s in again.segments[:-1]) == 0
    again.close(clean=True)


def test_lookups_in_an_active_index_open_no_file_more(tmp_path: Path) -> None:
    """An active segment whose index left its first entries to the file (over 2 × TAIL of
    them) still holds two files open, its log and its index, after reads that look there."""
    cfg = LogConfig(segment_bytes=1 << 30, index_interval_bytes=64, retention_ms=-1)
    lg = open_log(tmp_path / "p", cfg)
    for i in range(2 * TAIL + 100):
        lg.append([Record(i, None, b"x" * 80)], now_ms=0)
    flush(lg)
    assert lg.active.index.head > 0
    assert [r.offset for r in lg.read(5, 1, 1000).records] == [5]
    active = f"{lg.active.base_offset:020d}"
    assert open_files(tmp_path) == [active + ".index", active + ".log"]
    lg.close(clean=True)


def test_a_segment_sealed_during_its_flush_keeps_its_files_until_the_flush_ends(
    tmp_path: Path,
) -> None:
    lg = open_log(tmp_path / "p")
    lg.append([Record(0, None, b"x" * 3900)], now_ms=0)
    ticket = lg.prepare_flush()  # a flush thread would now fsync the active segment
    assert ticket is not None
    first = lg.active
    lg.append(recs(1, 1, 300), now_ms=0)  # does not fit: the log rolls while the round runs
    assert first.sealed and not first.dirty and lg.active is not first
    lg.flush(ticket)  # its descriptor is still open: the fsync succeeds
    assert f"{first.base_offset:020d}.log" in open_files(tmp_path)
    lg.complete_flush(ticket)
    assert f"{first.base_offset:020d}.log" not in open_files(tmp_path)
    assert read_all(lg)[0].value == b"x" * 3900
    lg.close(clean=False)


class WatchedFiles(SealedFiles):
    """Notes the most sealed segments open at once, which a read ends before a test sees."""

    most = 0

    def opened(self, segment: Any) -> None:
        super().opened(segment)
        self.most = max(self.most, len(self))


def test_files_stay_bounded_however_many_segments_a_log_has(tmp_path: Path) -> None:
    files = WatchedFiles(limit=2)
    lg = PartitionLog(str(tmp_path / "p"), CFG, durable_reads=False, files=files)
    written = fill(lg, 160, size=60)
    flush(lg)
    assert len(lg.segments) >= 10
    whole = lg.read(0, 100_000, 10_000_000)  # one read across every segment
    assert whole.records == written[: len(whole.records)] and len(whole.records) == len(written)
    assert files.most == 2  # never more than the limit open at once, even within one read
    assert read_all(lg) == written
    assert len(files) == 0 and files.opens >= len(lg.segments) - 1
    assert len(open_files(tmp_path)) == 2  # the active log and index
    lg.close(clean=True)
    # opening it again keeps only the active segment's files, whatever it had to recover
    lg = PartitionLog(str(tmp_path / "p"), CFG, durable_reads=False, files=files)
    active = f"{lg.active.base_offset:020d}"
    assert open_files(tmp_path) == [active + ".index", active + ".log"]
    assert read_all(lg) == written
    middle = written[len(written) // 2]
    assert lg.offset_for_timestamp(middle.timestamp) == (middle.offset, middle.timestamp)
    more = fill(lg, 5, size=60, ts0=50_000)
    assert read_all(lg) == written + more
    lg.close(clean=False)
    assert open_files(tmp_path) == []


def test_a_reader_of_sealed_segments_holds_no_file_between_reads(tmp_path: Path) -> None:
    files = SealedFiles()
    lg = PartitionLog(str(tmp_path / "p"), CFG, durable_reads=False, files=files)
    written = fill(lg, 40, size=60)
    flush(lg)
    opens = files.opens
    offset = 0
    while offset < lg.segments[-1].base_offset:  # a reader far behind, one page at a time
        page = lg.read(offset, 5, 10_000)
        assert len(open_files(tmp_path)) == 2 and len(files) == 0  # the active segment's
        offset = page.next_offset
    assert files.opens > opens  # each page opened the sealed segment it read
    assert read_all(lg) == written
    lg.close(clean=False)


def test_read_from_every_offset_starts_exactly_there(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    want = fill(lg, 50, per_batch=4, size=40)
    assert len(lg.segments) >= 3
    for o in range(lg.log_end_offset):
        res = lg.read(o, 1000, 1 << 20)
        assert res.records == want[o:]  # across every later segment boundary
        assert res.next_offset == lg.log_end_offset
        few = lg.read(o, 5, 1 << 20)
        assert few.records == want[o : o + 5]
        assert few.next_offset == min(o + 5, lg.log_end_offset)
    assert read_all(lg) == want
    lg.close(clean=False)


def test_read_at_or_past_the_end_is_empty(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    fill(lg, 3)
    for o in (lg.log_end_offset, lg.log_end_offset + 1, 10**12):
        res = lg.read(o, 10, 1000)
        assert res.records == []
        assert res.next_offset == o
    lg.close(clean=False)


def test_reads_cross_segment_boundaries_one_record_at_a_time(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    want = fill(lg, 30, per_batch=5, size=80)
    boundaries = [s.base_offset for s in lg.segments[1:]]
    assert boundaries
    for b in boundaries:
        res = lg.read(b - 1, 2, 1 << 20)
        assert [r.offset for r in res.records] == [b - 1, b]
    assert read_all(lg, max_records=1) == want
    lg.close(clean=False)


def test_max_records_limit(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    want = fill(lg, 20, per_batch=7)
    for n in (1, 2, 6, 7, 8, 50):
        res = lg.read(3, n, 1 << 20)
        assert res.records == want[3 : 3 + n]
        assert res.next_offset == 3 + n
    assert lg.read(3, 0, 1 << 20).records == []
    lg.close(clean=False)


def test_max_bytes_limit_and_at_least_one_record(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    want = fill(lg, 30, per_batch=4, size=100)
    lg.append([Record(5, None, b"H" * 3000)], now_ms=0)
    want.append(StoredRecord(len(want), 5, None, b"H" * 3000, ()))
    for max_bytes in (0, 1, 50, 200, 500, 1000, 2999, 3500):
        for start in (0, 5, len(want) - 3, len(want) - 1):
            res = lg.read(start, 1000, max_bytes)
            assert res.records, "at least one record even when larger than max_bytes"
            assert res.records == want[start : start + len(res.records)]
            sizes = [record.record_size(Record(r.timestamp, r.key, r.value)) for r in res.records]
            if len(res.records) > 1:
                assert sum(sizes) <= max_bytes
            end = start + len(res.records)
            if end < len(want):  # as many as fit: one more would not
                nxt = want[end]
                assert (
                    sum(sizes) + record.record_size(Record(nxt.timestamp, nxt.key, nxt.value))
                    > max_bytes
                )
    lg.close(clean=False)


def test_records_with_headers_read_back(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    rs = [
        Record(1, b"k", b"v", [Header("ключ", None), Header("x", b"")]),
        Record(2, b"", None, []),
        Record(3, None, b"", [Header("", b"\x00")]),
    ]
    lg.append(rs, now_ms=0)
    assert read_all(lg) == stored(0, rs)
    lg.close(clean=False)


# -- the high watermark -------------------------------------------------------------------------


def test_high_watermark_moves_only_after_a_completed_flush(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p", durable=True)
    want = fill(lg, 5)
    assert lg.high_watermark == 0
    assert lg.read(0, 100, 1 << 20).records == []
    ticket = lg.prepare_flush()
    assert ticket is not None
    assert lg.high_watermark == 0
    more = fill(lg, 2, ts0=5000)  # appended while the flush is in flight
    lg.flush(ticket)
    assert lg.high_watermark == 0
    assert lg.read(0, 100, 1 << 20).records == []
    assert lg.complete_flush(ticket) is True
    assert lg.high_watermark == 15
    assert read_all(lg) == want  # nothing at or past the high watermark
    assert lg.read(15, 100, 1 << 20).records == []
    assert lg.complete_flush(ticket) is False  # once only
    flush(lg)
    assert lg.high_watermark == lg.log_end_offset == 21
    assert read_all(lg) == want + more
    assert lg.prepare_flush() is None  # nothing left to do
    lg.close(clean=False)


def test_an_aborted_flush_leaves_the_segments_dirty(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p", durable=True)
    fill(lg, 30)
    ticket = lg.prepare_flush()
    assert ticket is not None
    segs = list(ticket.segments)
    lg.abort_flush(ticket)
    assert lg.high_watermark == 0
    again = lg.prepare_flush()
    assert again is not None
    assert again.segments == segs
    assert again.sync_directory is True
    lg.flush(again)
    lg.complete_flush(again)
    assert lg.high_watermark == lg.log_end_offset
    lg.close(clean=False)


def test_without_durable_reads_high_watermark_is_the_log_end(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p", durable=False)
    assert lg.high_watermark == 0
    for i in range(10):
        lg.append(recs(i, 2), now_ms=0)
        assert lg.high_watermark == lg.log_end_offset == 2 * (i + 1)
    assert len(read_all(lg)) == 20
    lg.close(clean=False)


def test_reads_stop_below_upto_inside_a_batch(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p", durable=True)
    want = fill(lg, 20, per_batch=5)
    flush(lg)
    for upto in range(0, lg.log_end_offset + 3):
        got = read_all(lg, upto=upto)
        assert got == want[:upto]
        assert all(r.offset < upto for r in got)
    lg.close(clean=False)


def test_durable_reads_after_reopen_see_everything_recovered(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p", durable=True)
    want = fill(lg, 10)
    lg.close(clean=False)
    lg = open_log(tmp_path / "p", durable=True)
    assert lg.high_watermark == lg.log_end_offset == 30
    assert read_all(lg) == want
    lg.close(clean=False)


# -- timestamps ---------------------------------------------------------------------------------


def test_offset_for_timestamp(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p", durable=True)
    stamps = [10, 50, 20, 60, 30, 30, 70, 5, 80, 40] * 20
    stamps = [t + 100 * (i // 10) for i, t in enumerate(stamps)]  # rising across groups
    for i in range(0, len(stamps), 2):
        lg.append(
            [Record(stamps[i], None, b"x" * 100), Record(stamps[i + 1], None, b"y" * 100)], now_ms=0
        )
    flush(lg)
    assert len(lg.segments) >= 3
    for target in range(-1, max(stamps) + 3):
        want = next(((o, t) for o, t in enumerate(stamps) if t >= target), None)
        assert lg.offset_for_timestamp(target) == want, target
    assert lg.offset_for_timestamp(max(stamps) + 1) is None
    lg.close(clean=False)


def test_offset_for_timestamp_respects_high_watermark_and_log_start(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p", durable=True)
    for i in range(10):
        lg.append([Record(i * 10, None, b"v")], now_ms=0)
    flush(lg)
    lg.append([Record(1000, None, b"late")], now_ms=0)  # not durable yet
    assert lg.offset_for_timestamp(500) is None
    assert lg.offset_for_timestamp(500, upto=lg.log_end_offset) == (10, 1000)
    assert lg.offset_for_timestamp(0) == (0, 0)
    lg.advance_log_start(4)
    assert lg.offset_for_timestamp(0) == (4, 40)
    assert lg.offset_for_timestamp(55) == (6, 60)
    lg.close(clean=False)


def test_offset_for_timestamp_skips_control_batches(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    lg.append([Record(10, None, b"a")], now_ms=0)
    lg.append([Record(100, None, b"")], now_ms=0, attributes=record.CONTROL_FLAG)
    lg.append([Record(50, None, b"b")], now_ms=0)
    lg.append([Record(200, None, b"c")], now_ms=0)
    assert lg.offset_for_timestamp(60) == (3, 200)
    assert lg.offset_for_timestamp(20) == (2, 50)
    lg.close(clean=False)


# -- retention ----------------------------------------------------------------------------------


def test_retention_by_time(tmp_path: Path) -> None:
    cfg = LogConfig(segment_bytes=4096, retention_ms=1000, index_interval_bytes=256)
    lg = open_log(tmp_path / "p", cfg, durable=True)
    want = fill(lg, 60, size=60, ts0=0)  # timestamps 0..179
    flush(lg)
    segs = list(lg.segments)
    assert len(segs) >= 4
    assert lg.deletable_segments(now_ms=1000) == []  # nothing is older than 1000 ms yet
    limit = segs[1].max_timestamp
    doomed = lg.deletable_segments(now_ms=limit + 1001)
    assert doomed == segs[:2]
    lg.remove_segments(doomed)
    assert lg.log_start_offset == segs[2].base_offset
    assert not os.path.exists(segs[0].log_path)
    assert not os.path.exists(segs[0].index.path)
    assert lg.read(0, 10, 1000).records == []
    assert read_all(lg) == want[segs[2].base_offset :]
    # everything expired: still never the active segment
    everything = lg.deletable_segments(now_ms=10**9)
    assert lg.active not in everything
    assert everything == lg.segments[:-1]
    assert lg.active_expired(10**9) is True
    lg.close(clean=True)
    lg = open_log(tmp_path / "p", cfg, durable=True)
    assert lg.log_start_offset == segs[2].base_offset
    assert read_all(lg) == want[segs[2].base_offset :]
    lg.close(clean=False)


def test_nothing_above_the_high_watermark_is_deleted(tmp_path: Path) -> None:
    cfg = LogConfig(segment_bytes=4096, retention_ms=0, index_interval_bytes=256)
    lg = open_log(tmp_path / "p", cfg, durable=True)
    fill(lg, 40, size=60, ts0=0)
    assert len(lg.segments) >= 3
    assert lg.deletable_segments(now_ms=10**9) == []
    assert lg.active_expired(10**9) is False
    flush(lg)
    assert lg.deletable_segments(now_ms=10**9) == lg.segments[:-1]
    lg.close(clean=False)


def test_retention_by_bytes(tmp_path: Path) -> None:
    cfg = LogConfig(
        segment_bytes=4096, retention_ms=-1, retention_bytes=6000, index_interval_bytes=256
    )
    lg = open_log(tmp_path / "p", cfg)
    want = fill(lg, 60, size=60)
    segs = list(lg.segments)
    doomed = lg.deletable_segments(now_ms=0)
    kept = segs[len(doomed) :]
    assert doomed == segs[: len(doomed)]
    assert doomed
    # segments go while what stays is still at least retention_bytes, and no further
    kept_bytes = sum(s.size for s in kept)
    assert kept_bytes >= 6000
    assert kept_bytes - kept[0].size < 6000
    lg.remove_segments(doomed)
    assert lg.size_bytes == sum(s.size for s in kept)
    assert lg.deletable_segments(now_ms=0) == []
    assert read_all(lg) == want[kept[0].base_offset :]
    lg.close(clean=False)


def test_retention_bytes_never_deletes_the_active_segment(tmp_path: Path) -> None:
    cfg = LogConfig(
        segment_bytes=4096, retention_ms=-1, retention_bytes=0, index_interval_bytes=256
    )
    lg = open_log(tmp_path / "p", cfg)
    fill(lg, 60, size=60)
    doomed = lg.deletable_segments(now_ms=0)
    assert doomed == lg.segments[:-1]
    lg.remove_segments(doomed)
    assert len(lg.segments) == 1
    assert lg.deletable_segments(now_ms=0) == []
    assert read_all(lg)[0].offset == lg.active.base_offset
    lg.close(clean=False)


def test_delete_records_moves_log_start_and_survives_reopen(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    want = fill(lg, 40, per_batch=3, size=60)
    segs = list(lg.segments)
    cut = segs[2].base_offset + 1  # inside the third segment, inside a batch
    assert lg.advance_log_start(cut) is True
    assert lg.advance_log_start(cut) is False
    assert lg.advance_log_start(cut - 5) is False
    assert lg.log_start_offset == cut
    lg.persist_log_start()
    assert lg.read(cut - 1, 10, 1000).records == []
    assert read_all(lg) == want[cut:]
    assert lg.read(cut, 1, 1000).records[0].offset == cut
    assert lg.deletable_segments(now_ms=0) == segs[:2]  # fully below the start only
    lg.close(clean=False)  # without a checkpoint or flush: the start file is durable itself

    lg = open_log(tmp_path / "p")
    assert lg.log_start_offset == cut
    assert read_all(lg) == want[cut:]
    lg.remove_segments(lg.deletable_segments(now_ms=0))
    assert lg.log_start_offset == cut  # not moved back to the first segment's base
    assert lg.segments[0].base_offset == segs[2].base_offset
    lg.close(clean=True)
    lg = open_log(tmp_path / "p")
    assert lg.log_start_offset == cut
    assert read_all(lg) == want[cut:]
    lg.close(clean=False)


def test_log_start_past_the_recovered_end_starts_empty_there(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    fill(lg, 5)
    lg.advance_log_start(100)
    lg.persist_log_start()
    lg.close(clean=False)
    lg = open_log(tmp_path / "p")
    assert lg.log_start_offset == lg.log_end_offset == 100
    assert [s.base_offset for s in lg.segments] == [100]
    info = lg.append(recs(0, 1), now_ms=0)
    assert info.base_offset == 100
    assert read_all(lg)[0].offset == 100
    lg.close(clean=False)


def test_a_corrupt_log_start_file_is_ignored(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    want = fill(lg, 5)
    lg.advance_log_start(4)
    lg.persist_log_start()
    lg.close(clean=True)
    (tmp_path / "p" / LOG_START_FILE).write_bytes(b"\xff" * 12)
    lg = open_log(tmp_path / "p")
    assert lg.log_start_offset == 0
    assert read_all(lg) == want
    lg.close(clean=False)


# -- reopening ----------------------------------------------------------------------------------


@pytest.mark.parametrize("clean", [True, False])
def test_reopen_keeps_everything_and_the_same_bytes(tmp_path: Path, clean: bool) -> None:
    lg = open_log(tmp_path / "p", durable=True)
    want = fill(lg, 40, per_batch=3, size=60)
    if clean:
        lg.close(clean=True)
        assert (tmp_path / "p" / CHECKPOINT_FILE).exists()
    else:
        lg.close(clean=False)  # no flush ever: the page cache holds all of it
        assert not (tmp_path / "p" / CHECKPOINT_FILE).exists()
    before = segment_files(tmp_path / "p")
    bases = [s.base_offset for s in lg.segments]
    lg = open_log(tmp_path / "p", durable=True)
    assert lg.recovered_bytes_truncated == 0
    assert [s.base_offset for s in lg.segments] == bases
    assert lg.log_end_offset == len(want)
    assert read_all(lg) == want
    assert segment_files(tmp_path / "p") == before
    more = fill(lg, 3, ts0=9000)
    assert more[0].offset == len(want)
    lg.close(clean=clean)
    lg = open_log(tmp_path / "p", durable=True)
    assert read_all(lg) == want + more
    lg.close(clean=False)


def test_leftover_temp_and_orphan_index_files_are_removed(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    want = fill(lg, 10)
    lg.close(clean=True)
    p = tmp_path / "p"
    (p / (CHECKPOINT_FILE + ".tmp")).write_bytes(b"half")
    (p / f"{999:020d}.index").write_bytes(b"")
    lg = open_log(p)
    assert not (p / (CHECKPOINT_FILE + ".tmp")).exists()
    assert not (p / f"{999:020d}.index").exists()
    assert read_all(lg) == want
    lg.close(clean=False)


# -- control batches ----------------------------------------------------------------------------


def test_control_batches_take_an_offset_and_are_never_read(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    a = lg.append([Record(1, None, b"a")], now_ms=0)
    c1 = lg.append(
        [Record(2, b"ctl", b"COMMIT")],
        now_ms=0,
        attributes=record.CONTROL_FLAG,
        producer_id=7,
        producer_epoch=0,
    )
    b = lg.append([Record(3, None, b"b")], now_ms=0)
    c2 = lg.append(
        [Record(4, None, b"ABORT")],
        now_ms=0,
        attributes=record.CONTROL_FLAG | record.TRANSACTIONAL_FLAG,
    )
    assert (a.base_offset, c1.base_offset, b.base_offset, c2.base_offset) == (0, 1, 2, 3)
    assert lg.log_end_offset == 4
    res = lg.read(0, 100, 1 << 20)
    assert [r.value for r in res.records] == [b"a", b"b"]
    assert res.next_offset == 4
    assert [h.is_control for h in res.batches] == [False, True, False, True]
    only_control = lg.read(1, 100, 1 << 20)
    assert [r.offset for r in only_control.records] == [2]
    tail = lg.read(3, 100, 1 << 20)
    assert tail.records == []
    assert tail.next_offset == 4  # the consumer moves past it
    one = lg.read(0, 1, 1 << 20)
    assert [r.offset for r in one.records] == [0]
    lg.close(clean=True)
    lg = open_log(tmp_path / "p")
    assert [r.value for r in read_all(lg)] == [b"a", b"b"]
    lg.close(clean=False)


# -- a model-based run --------------------------------------------------------------------------


class LogMachine(RuleBasedStateMachine):
    """Random appends, flushes, reopens, rolls, deletions; reads always match a plain list."""

    def __init__(self) -> None:
        super().__init__()
        self.root = tempfile.mkdtemp(prefix="sluice-log-")
        self.path = os.path.join(self.root, "p")
        self.cfg = LogConfig(
            segment_bytes=1024, segment_ms=500, retention_ms=-1, index_interval_bytes=128
        )
        self.now = 0
        self.lg = PartitionLog(self.path, self.cfg, durable_reads=True, now_ms=0)
        self.model: list[StoredRecord | None] = []  # None: a control record
        self.start = 0

    def teardown(self) -> None:
        self.lg.close(clean=False)
        shutil.rmtree(self.root)

    @rule(
        n=st.integers(1, 5),
        size=st.integers(0, 300),
        dt=st.integers(0, 300),
        control=st.booleans(),
        ts=st.lists(st.integers(0, 10_000), min_size=5, max_size=5),
    )
    def append(self, n: int, size: int, dt: int, control: bool, ts: list[int]) -> None:
        self.now += dt
        if control:  # a control batch holds one record, as Kafka's markers do
            n = 1
        rs = [Record(ts[i], None if i % 2 else b"k", bytes([i]) * size) for i in range(n)]
        attrs = record.CONTROL_FLAG if control else 0
        info = self.lg.append(rs, now_ms=self.now, attributes=attrs)
        assert info.base_offset == len(self.model)
        if control:
            self.model.extend([None] * n)
        else:
            self.model.extend(stored(info.base_offset, rs))

    @rule()
    def do_flush(self) -> None:
        flush(self.lg)
        assert self.lg.high_watermark == len(self.model)

    @rule(clean=st.booleans())
    def reopen(self, clean: bool) -> None:
        self.lg.close(clean=clean)
        self.lg = PartitionLog(self.path, self.cfg, durable_reads=True, now_ms=self.now)
        assert self.lg.recovered_bytes_truncated == 0
        assert self.lg.log_end_offset == len(self.model)
        assert self.lg.high_watermark == len(self.model)

    @precondition(lambda self: self.lg.high_watermark > self.start)
    @rule(data=st.data())
    def delete_records(self, data: st.DataObject) -> None:
        cut = data.draw(st.integers(self.start + 1, self.lg.high_watermark))
        assert self.lg.advance_log_start(cut)
        self.lg.persist_log_start()
        self.start = cut
        self.lg.remove_segments(self.lg.deletable_segments(self.now))
        assert self.lg.log_start_offset == cut

    @rule(data=st.data(), max_records=st.integers(1, 20), max_bytes=st.integers(0, 3000))
    def read(self, data: st.DataObject, max_records: int, max_bytes: int) -> None:
        hw = self.lg.high_watermark
        offset = data.draw(st.integers(max(self.start - 2, 0), len(self.model) + 2))
        res = self.lg.read(offset, max_records, max_bytes)
        if offset < self.start or offset >= hw:
            assert res.records == []
            return
        visible = [r for r in self.model[offset:hw] if r is not None]
        assert res.records == visible[: len(res.records)]
        assert 1 <= len(res.records) <= max_records or not visible
        assert res.next_offset <= hw

    @rule(ts=st.integers(-1, 10_001))
    def timestamp(self, ts: int) -> None:
        hw = self.lg.high_watermark
        want = next(
            (
                (r.offset, r.timestamp)
                for r in self.model[self.start : hw]
                if r is not None and r.timestamp >= ts
            ),
            None,
        )
        assert self.lg.offset_for_timestamp(ts) == want

    @invariant()
    def everything_readable(self) -> None:
        hw = self.lg.high_watermark
        got = read_all(self.lg, max_records=7, max_bytes=700)
        assert got == [r for r in self.model[self.start : hw] if r is not None]
        bases = [s.base_offset for s in self.lg.segments]
        assert bases == sorted(bases)
        for seg, nxt in zip(self.lg.segments, self.lg.segments[1:], strict=False):
            assert seg.next_offset == nxt.base_offset


TestLogMachine = LogMachine.TestCase
TestLogMachine.settings = settings(max_examples=60, stateful_step_count=25, deadline=None)


# -- indexes fsynced with checkpoints only --------------------------------------------------------


@pytest.mark.parametrize("lost", ["tail", "torn", "all"])
def test_an_index_that_lost_its_unsynced_tail_costs_recovery_a_walk_not_data(
    tmp_path: Path, lost: str
) -> None:
    """Rounds without a checkpoint fsync segments, not indexes: after a crash the index file
    may lack its last entries, end inside an entry, or be gone; every record reads back."""
    lg = open_log(tmp_path, LogConfig(1 << 20, DAY, -1, -1, 256))
    written = fill(lg, 6)
    flush(lg)  # with a checkpoint: segment and index durable
    written += fill(lg, 20, ts0=5000)
    ticket = lg.prepare_flush()
    assert ticket is not None
    lg.flush(ticket, checkpoint=False)  # the round of an ordinary request
    lg.complete_flush(ticket)
    (index,) = [n for n in os.listdir(tmp_path) if n.endswith(".index")]
    kept = (tmp_path / index).read_bytes()
    lg.close(clean=False)
    if lost == "tail":
        (tmp_path / index).write_bytes(kept[: len(kept) // 2 // 24 * 24])
    elif lost == "torn":
        (tmp_path / index).write_bytes(kept[: len(kept) // 2 // 24 * 24 + 7])
    else:
        (tmp_path / index).unlink()
    again = open_log(tmp_path, LogConfig(1 << 20, DAY, -1, -1, 256))
    assert again.log_end_offset == len(written)
    assert read_all(again) == written
    for offset in (0, len(written) // 2, len(written) - 1):
        assert again.read(offset, 1, 1 << 20, None).records == written[offset : offset + 1]
