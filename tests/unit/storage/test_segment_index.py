"""Segments and their sparse index: append positions, index spacing, rebuilds, lookups."""

from __future__ import annotations

import errno
import itertools
import os
import random
import struct
from pathlib import Path

import pytest

from app.storage import fileio, record
from app.storage.index import ENTRY_SIZE, TAIL, OffsetIndex
from app.storage.log import LogConfig, PartitionLog
from app.storage.record import Record
from app.storage.segment import Segment, segment_name

INTERVAL = 256
BASE = 100


def batch(base: int, n: int, ts: list[int] | int, size: int = 40) -> bytes:
    stamps = ts if isinstance(ts, list) else [ts] * n
    return record.encode_batch(
        base, [Record(stamps[i], None, bytes([i % 251]) * size) for i in range(n)]
    )


class Model:
    """What was appended: (base, next, position, max_ts, bytes) per batch."""

    def __init__(self) -> None:
        self.batches: list[tuple[int, int, int, int, bytes]] = []

    def expected_index(self) -> list[tuple[int, int, int]]:
        out: list[tuple[int, int, int]] = []
        last, max_before = 0, -1
        for base, _nxt, pos, max_ts, _data in self.batches:
            if pos - last >= INTERVAL:
                out.append((base, pos, max_before))
                last = pos
            max_before = max(max_before, max_ts)
        return out

    def batch_at(self, offset: int) -> tuple[int, int, int, int, bytes]:
        return next(b for b in self.batches if b[0] <= offset < b[1])


def fill(directory: Path, nbatches: int = 60, seed: int = 1) -> tuple[Segment, Model]:
    rng = random.Random(seed)
    seg = Segment(str(directory), BASE, INTERVAL)
    seg.recover(0)
    model = Model()
    offset = BASE
    for _ in range(nbatches):
        n = rng.randint(1, 4)
        stamps = [rng.randint(0, 10_000) for _ in range(n)]  # not monotonic
        data = batch(offset, n, stamps, size=rng.randint(0, 120))
        pos = seg.append(data, offset, offset + n, max(stamps), stamps[0])
        model.batches.append((offset, offset + n, pos, max(stamps), data))
        offset += n
    return seg, model


def index_entries(idx: OffsetIndex) -> list[tuple[int, int, int]]:
    return list(zip(idx.offsets, idx.positions, idx.max_ts, strict=True))


def index_file_entries(path: str) -> list[tuple[int, int, int]]:
    data = Path(path).read_bytes()
    assert len(data) % ENTRY_SIZE == 0
    return [struct.unpack_from("<qqq", data, i) for i in range(0, len(data), ENTRY_SIZE)]


# -- appends ------------------------------------------------------------------------------------


def test_append_returns_consecutive_positions_and_reads_them_back(tmp_path: Path) -> None:
    seg, model = fill(tmp_path)
    assert os.path.basename(seg.log_path) == segment_name(BASE) + ".log" == f"{BASE:020d}.log"
    expected_pos = 0
    for _base, _nxt, pos, _ts, data in model.batches:
        assert pos == expected_pos
        assert seg.read(pos, len(data)) == data
        expected_pos += len(data)
    assert seg.size == expected_pos == os.path.getsize(seg.log_path)
    assert seg.next_offset == model.batches[-1][1]
    assert seg.max_timestamp == max(b[3] for b in model.batches)
    listed = seg.batches(0)
    assert [(h.base_offset, p) for h, p in listed] == [(b[0], b[2]) for b in model.batches]
    # a bounded listing stops at the end position
    mid = model.batches[10][2]
    assert [p for _, p in seg.batches(0, mid)] == [b[2] for b in model.batches[:10]]
    seg.close()


def test_index_gets_an_entry_every_interval_bytes(tmp_path: Path) -> None:
    seg, model = fill(tmp_path, nbatches=80)
    entries = index_entries(seg.index)
    assert entries == model.expected_index()
    assert len(entries) >= 5
    positions = [0] + [p for _, p, _ in entries]
    assert all(b - a >= INTERVAL for a, b in itertools.pairwise(positions))
    # no gap of two intervals without an entry, except for a single batch's size
    biggest = max(len(b[4]) for b in model.batches)
    ends = [*positions, seg.size]
    assert all(b - a < INTERVAL + biggest for a, b in itertools.pairwise(ends))
    seg.flush()
    assert index_file_entries(seg.index.path) == entries
    seg.close()


def test_lookup_by_offset_finds_the_last_indexed_batch_at_or_before(tmp_path: Path) -> None:
    seg, model = fill(tmp_path)
    entries = model.expected_index()
    for base, nxt, _pos, _ts, _data in model.batches:
        for offset in range(base, nxt):
            pos = seg.position_for(offset)
            want = max((p for o, p, _ in entries if o <= offset), default=0)
            assert pos == want
            # the batch there starts at or before the offset: a scan from it reaches it
            h = record.read_header(seg.read(pos, record.HEADER_SIZE))
            assert h.base_offset <= offset
    assert seg.position_for(0) == 0  # below the segment
    assert seg.position_for(10**9) == entries[-1][1]
    seg.close()


def test_lookup_by_timestamp_never_skips_a_matching_batch(tmp_path: Path) -> None:
    seg, model = fill(tmp_path, nbatches=80, seed=5)
    for ts in [-5, 0, 1, 50, 2500, 5000, 9_999, 10_000, 10_001, 99_999]:
        pos = seg.position_for_timestamp(ts)
        before = [b for b in model.batches if b[2] < pos]
        assert all(b[3] < ts for b in before)  # nothing before pos can match
        assert pos == 0 or any(b[2] == pos for b in model.batches)  # a batch boundary
        # tight: the next indexed position would skip a batch with a timestamp ≥ ts
        later = [p for _, p, _ in model.expected_index() if p > pos]
        if later:
            assert any(b[3] >= ts for b in model.batches if b[2] < later[0])
    seg.close()


def test_index_lookups_with_monotonic_timestamps(tmp_path: Path) -> None:
    seg = Segment(str(tmp_path), 0, INTERVAL)
    seg.recover(0)
    positions = []
    for i in range(50):
        data = batch(i, 1, i * 10, size=100)
        positions.append(seg.append(data, i, i + 1, i * 10, i * 10))
    for i in range(50):
        p = seg.position_for_timestamp(i * 10)
        assert p <= positions[i]
        assert positions[i] - p < 2 * INTERVAL
        assert seg.position_for(i) <= positions[i]
    seg.close()


# -- rebuilding the index -----------------------------------------------------------------------


def _damage_index(path: str, how: str, segment_size: int) -> None:
    data = Path(path).read_bytes()
    rng = random.Random(how)
    if how == "deleted":
        os.unlink(path)
    elif how == "wrong_size_longer":
        Path(path).write_bytes(data + b"\x01\x02\x03")
    elif how == "wrong_size_shorter":
        Path(path).write_bytes(data[:-5])
    elif how == "garbage":
        Path(path).write_bytes(rng.randbytes(len(data)))
    elif how == "garbage_other_length":
        Path(path).write_bytes(rng.randbytes(len(data) + ENTRY_SIZE * 3))
    elif how == "zeros":
        Path(path).write_bytes(bytes(len(data)))
    elif how == "position_past_end":
        Path(path).write_bytes(data + struct.pack("<qqq", 10**9, segment_size + 10, 0))
    elif how == "not_increasing":
        Path(path).write_bytes(data[ENTRY_SIZE : 2 * ENTRY_SIZE] + data)
    else:  # pragma: no cover
        raise AssertionError(how)


DAMAGES = [
    "deleted",
    "wrong_size_longer",
    "wrong_size_shorter",
    "garbage",
    "garbage_other_length",
    "zeros",
    "position_past_end",
    "not_increasing",
]


@pytest.mark.parametrize("how", DAMAGES)
@pytest.mark.parametrize("opening", ["sealed", "recovered"])
def test_damaged_index_is_rebuilt_with_the_same_lookups(
    tmp_path: Path, how: str, opening: str, caplog: pytest.LogCaptureFixture
) -> None:
    seg, model = fill(tmp_path, nbatches=70, seed=3)
    seg.flush()
    original_file = Path(seg.index.path).read_bytes()
    original = index_entries(seg.index)
    lookups = {o: seg.position_for(o) for b in model.batches for o in range(b[0], b[1])}
    ts_lookups = {t: seg.position_for_timestamp(t) for t in range(-1, 10_002, 97)}
    size, nxt, max_ts = seg.size, seg.next_offset, seg.max_timestamp
    seg.close()
    _damage_index(seg.index.path, how, size)

    again = Segment(str(tmp_path), BASE, INTERVAL)
    if opening == "sealed":
        again.load_trusted(nxt)  # as a sealed segment: the index is read lazily
        assert again.next_offset == nxt
        with caplog.at_level("INFO", logger="sluice.storage"):
            assert {o: again.position_for(o) for o in lookups} == lookups
        assert any(
            "rebuilding the index" in r.getMessage() and again.log_path in r.getMessage()
            for r in caplog.records
        )
    else:
        assert again.recover(0) == 0
        assert again.next_offset == nxt
        assert {o: again.position_for(o) for o in lookups} == lookups
    assert index_entries(again.index) == original
    assert {t: again.position_for_timestamp(t) for t in ts_lookups} == ts_lookups
    assert again.max_timestamp == max_ts
    assert again.size == size
    again.close()
    assert Path(again.index.path).read_bytes() == original_file  # the file is rewritten too


def test_a_valid_but_shorter_index_is_kept_and_still_gives_safe_lookups(tmp_path: Path) -> None:
    seg, model = fill(tmp_path, nbatches=70, seed=4)
    seg.flush()
    entries = index_entries(seg.index)
    nxt, max_ts = seg.next_offset, seg.max_timestamp
    seg.close()
    keep = 2
    Path(seg.index.path).write_bytes(Path(seg.index.path).read_bytes()[: keep * ENTRY_SIZE])
    again = Segment(str(tmp_path), BASE, INTERVAL)
    again.load_trusted(nxt)
    for b in model.batches:
        pos = again.position_for(b[0])
        assert pos <= b[2]
        assert record.read_header(again.read(pos, record.HEADER_SIZE)).base_offset <= b[0]
    assert index_entries(again.index) == entries[:keep]
    assert again.max_timestamp == max_ts  # walked from the last entry to the end
    again.close()


def test_trusted_last_segment_finds_its_end_and_max_timestamp(tmp_path: Path) -> None:
    seg, model = fill(tmp_path, nbatches=40, seed=8)
    seg.flush()
    seg.close()
    again = Segment(str(tmp_path), BASE, INTERVAL)
    again.load_trusted(None)
    assert again.next_offset == model.batches[-1][1]
    assert again.max_timestamp == max(b[3] for b in model.batches)
    assert again.first_timestamp == record.read_header(model.batches[0][4]).first_timestamp
    again.close()


# -- recovery scans across read chunks ----------------------------------------------------------


def test_recover_walks_batches_across_the_scan_chunk_boundary(tmp_path: Path) -> None:
    seg = Segment(str(tmp_path), 0, 4096)
    seg.recover(0)
    offset = 0
    sizes = [10_000] * 150 + [3 << 20] + [7_000] * 5  # > 1 MiB, and one batch > the chunk
    for i, size in enumerate(sizes):
        data = record.encode_batch(offset, [Record(i, None, b"z" * size), Record(i, b"k", b"")])
        seg.append(data, offset, offset + 2, i, i)
        offset += 2
    seg.flush()
    entries = index_entries(seg.index)
    size = seg.size
    seg.close()
    again = Segment(str(tmp_path), 0, 4096)
    assert again.recover(0) == 0
    assert again.size == size
    assert again.next_offset == offset
    assert again.max_timestamp == len(sizes) - 1
    assert index_entries(again.index) == entries
    again.close()


# -- the index on its own -----------------------------------------------------------------------


def test_offset_index_empty_and_truncate(tmp_path: Path) -> None:
    idx = OffsetIndex(str(tmp_path / "x.index"))
    assert idx.lookup(5) == 0
    assert idx.lookup_timestamp(5) == 0
    assert idx.last_position == 0
    assert idx.load(1000, 0) is False  # missing
    for i in range(1, 6):
        idx.append(i * 10, i * 100, i)
    assert idx.lookup(9) == 0
    assert idx.lookup(10) == 100
    assert idx.lookup(35) == 300
    assert idx.lookup_timestamp(3) == 200  # entry 2 (max before = 2) is the last with < 3
    idx.truncate_from(300)
    assert list(idx.positions) == [100, 200]
    idx.open_for_append()
    idx.append(30, 300, 3)
    idx.close()
    assert index_file_entries(idx.path) == [(10, 100, 1), (20, 200, 2), (30, 300, 3)]
    fresh = OffsetIndex(idx.path)
    assert fresh.load(301, 0) is True
    assert list(fresh.offsets) == [10, 20, 30]
    assert OffsetIndex(idx.path).load(300, 0) is False  # a position at the segment's end
    assert OffsetIndex(idx.path).load(1000, 10) is False  # first offset not above the base


# -- an index entry that passes the file checks but points off a batch boundary -----------------


@pytest.mark.parametrize("shift", [1, -1, 13])
def test_an_index_entry_off_a_batch_boundary_is_not_trusted(tmp_path: Path, shift: int) -> None:
    """One damaged position in a sealed segment's index (a flipped low bit, say) still passes
    OffsetIndex.load's checks (increasing, inside the segment). The index is a cache, so reads
    must still return the right records instead of failing on a mid-batch "header"."""
    cfg = LogConfig(segment_bytes=4096, index_interval_bytes=256, retention_ms=-1)
    lg = PartitionLog(str(tmp_path / "p"), cfg, durable_reads=False)
    for i in range(60):
        lg.append([Record(i * 10, None, bytes([i]) * 100)], now_ms=0)
    want = {o: lg.read(o, 1, 1000).records for o in range(lg.log_end_offset)}
    lg.close(clean=True)
    index = tmp_path / "p" / f"{0:020d}.index"
    data = bytearray(index.read_bytes())
    assert len(data) >= 3 * ENTRY_SIZE
    o, p, t = struct.unpack_from("<qqq", data, ENTRY_SIZE)
    struct.pack_into("<qqq", data, ENTRY_SIZE, o, p + shift, t)  # still valid for load()
    index.write_bytes(bytes(data))

    lg = PartitionLog(str(tmp_path / "p"), cfg, durable_reads=False)
    assert lg.segments[0].next_offset < lg.log_end_offset  # the damaged index is a sealed one's
    got = {o: lg.read(o, 1, 1000).records for o in range(lg.log_end_offset)}
    assert got == want
    assert lg.offset_for_timestamp(o * 10) == (o, o * 10)
    lg.close(clean=False)


def test_an_index_in_its_file_answers_as_in_memory(tmp_path: Path) -> None:
    """``detach`` leaves the entries in the file (written whole first when it lacks some),
    ``attach`` takes a file as it is after a look at its shape; lookups answer the same."""
    idx = OffsetIndex(str(tmp_path / "x.index"))
    idx.keep_open = False  # a sealed segment's: the file was never written
    for i in range(1, 40):
        idx.append(i * 10, i * 100, i * 3)
    want = idx.entries()
    asked = [(o, idx.lookup(o), idx.lookup_timestamp(o), idx.offset_at(o)) for o in range(450)]
    idx.detach()
    assert len(idx.offsets) == 0 and len(idx) == 39 == idx.head and idx.detached
    assert index_file_entries(idx.path) == want == idx.entries()
    again = [(o, idx.lookup(o), idx.lookup_timestamp(o), idx.offset_at(o)) for o in range(450)]
    assert again == asked
    assert idx.last_position == 3900
    idx.close()
    fresh = OffsetIndex(idx.path)
    assert fresh.attach(4000, 0) and fresh.entries() == want
    # an entry appended (a walk past the end) brings them back into memory
    fresh.append(400, 4000, 120)
    assert fresh.head == 0 and len(fresh.offsets) == 40
    fresh.close()
    # a file of the wrong shape is not attached
    assert not OffsetIndex(idx.path).attach(3900, 0)  # the last entry at the segment's end
    assert not OffsetIndex(idx.path).attach(4000, 10)  # the first offset not above the base
    Path(idx.path).write_bytes(Path(idx.path).read_bytes()[:-1])
    assert not OffsetIndex(idx.path).attach(4000, 0)  # not whole entries
    assert not OffsetIndex(str(tmp_path / "missing.index")).attach(4000, 0)


def test_an_active_index_keeps_a_bounded_tail_in_memory(tmp_path: Path) -> None:
    """An active segment grows its index for as long as it is active (an hour or more at a
    modest rate): memory holds its last entries only, and lookups anywhere answer as before."""
    idx = OffsetIndex(str(tmp_path / "x.index"))
    idx.open_for_append()
    n = 5 * TAIL + 17
    for i in range(1, n + 1):
        idx.append(i * 10, i * 100, i * 3)
        assert len(idx.offsets) < 2 * TAIL
    assert len(idx) == n and idx.head == n - len(idx.offsets) and idx.head > 0
    assert index_file_entries(idx.path) == idx.entries()
    for o in (0, 5, 10, 15, 999, 10 * idx.head, 10 * idx.head + 5, 10 * n, 10**9):
        want = max((i * 100 for i in range(1, n + 1) if i * 10 <= o), default=0)
        assert idx.lookup(o) == want
        assert idx.offset_at(want) == (want // 10 if want else None)
    for t in (1, 3, 4, 3 * idx.head, 3 * idx.head + 1, 3 * n + 1):
        want = max((i * 100 for i in range(1, n + 1) if i * 3 < t), default=0)
        assert idx.lookup_timestamp(t) == want
    # a write the disk refuses brings every entry back to memory first (the file cannot be
    # trusted for the ones after it)
    fileio.install(fileio.Fault("write", errno.ENOSPC, suffix=".index"))
    try:
        idx.append(10 * (n + 1), 100 * (n + 1), 3 * (n + 1))
    finally:
        fileio.remove()
    assert idx.head == 0 and len(idx.offsets) == n + 1
    assert idx.lookup(10 * (n + 1)) == 100 * (n + 1) and idx.lookup(15) == 100
    idx.close()
