"""Recovery from damaged segment files: torn tails, flipped bytes, garbage, bad checkpoints.

Every case copies a log directory built once, damages the copy, and reopens a PartitionLog on
it: what was valid before the damage must read back byte for byte, nothing from the damaged
batch on may appear, and the log must accept appends at the right offset afterwards.
"""

from __future__ import annotations

import logging
import os
import random
import shutil
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.storage import record
from app.storage.log import CHECKPOINT_FILE, LogConfig, PartitionLog
from app.storage.record import Record, StoredRecord

CFG = LogConfig(
    segment_bytes=2048,
    segment_ms=10**12,
    retention_ms=-1,
    retention_bytes=-1,
    index_interval_bytes=256,
)
LOGGER = "sluice.storage"
# Kafka's batch leaves its partition leader epoch outside the CRC (a broker rewrites it): damage
# there is not detected and changes no record (test_a_damaged_leader_epoch_changes_no_record)
LEADER_EPOCH = range(record.LEADER_EPOCH_AT, record.LEADER_EPOCH_AT + 4)


@dataclass(frozen=True)
class Batch:
    base: int
    next: int
    segment: int  # base offset of its segment
    position: int
    data: bytes
    records: tuple[StoredRecord, ...]


@dataclass
class Built:
    path: Path
    batches: list[Batch]
    files: dict[str, bytes]  # segment file name -> bytes

    def log_name(self, segment: int) -> str:
        return f"{segment:020d}.log"

    @property
    def active(self) -> int:
        return self.batches[-1].segment

    def in_segment(self, segment: int) -> list[Batch]:
        return [b for b in self.batches if b.segment == segment]


def batch_records(i: int) -> list[Record]:
    return [
        Record(
            1_000 + 3 * i + j,
            f"key-{i}-{j}".encode() if j != 1 else None,
            f"value {i}.{j} ".encode() * (1 + (i + j) % 3),
        )
        for j in range(3)
    ]


def open_log(path: Path) -> PartitionLog:
    return PartitionLog(str(path), CFG, durable_reads=True, now_ms=0)


def flush(lg: PartitionLog) -> None:
    ticket = lg.prepare_flush()
    assert ticket is not None
    lg.flush(ticket)
    lg.complete_flush(ticket)


def read_all(lg: PartitionLog) -> list[StoredRecord]:
    offset, out = lg.log_start_offset, list[StoredRecord]()
    while True:
        res = lg.read(offset, 50, 4000)
        if res.next_offset == offset:
            return out
        out.extend(res.records)
        offset = res.next_offset


def build(path: Path, checkpoint: str, nbatches: int = 34) -> Built:
    """A log of 3+ segments; ``checkpoint`` says where the last recovery checkpoint points.

    ``none``: never flushed. ``before_last``: flushed just before the last batch, so the
    checkpoint names the start of the last batch in the active segment. ``sealed``: flushed
    while an earlier segment was active.
    """
    lg = open_log(path)
    batches: list[Batch] = []
    for i in range(nbatches):
        if checkpoint == "before_last" and i == nbatches - 1:
            flush(lg)
        rs = batch_records(i)
        info = lg.append(rs, now_ms=0)
        seg = lg.active
        data = record.encode_batch(info.base_offset, rs)
        pos = seg.size - len(data)
        assert seg.read(pos, len(data)) == data
        batches.append(
            Batch(
                info.base_offset,
                info.last_offset + 1,
                seg.base_offset,
                pos,
                data,
                tuple(
                    StoredRecord(info.base_offset + j, r.timestamp, r.key, r.value, ())
                    for j, r in enumerate(rs)
                ),
            )
        )
        if checkpoint == "sealed" and len(lg.segments) == 2 and i % 2 == 0:
            flush(lg)  # the last of these names a position in what becomes a sealed segment
    lg.close(clean=False)
    built = Built(path, batches, {})
    built.files = {n: (path / n).read_bytes() for n in os.listdir(path) if n.endswith(".log")}
    segments = sorted({b.segment for b in batches})
    assert len(segments) >= 3
    assert len(built.in_segment(built.active)) >= 3
    cp = path / CHECKPOINT_FILE
    if checkpoint == "none":
        assert not cp.exists()
    elif checkpoint == "before_last":
        assert struct.unpack_from("<qq", cp.read_bytes()) == (built.active, batches[-1].position)
    else:
        cp_base = struct.unpack_from("<q", cp.read_bytes())[0]
        assert cp_base == segments[1] != built.active
    return built


@pytest.fixture(scope="module", params=["none", "before_last", "sealed"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build(tmp_path_factory.mktemp("built") / "p", request.param)


class Copies:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.n = 0

    def __call__(self, built: Built) -> Path:
        self.n += 1
        dst = self.root / f"copy-{self.n}"
        shutil.copytree(built.path, dst)
        return dst


@pytest.fixture
def copy(tmp_path: Path) -> Copies:
    return Copies(tmp_path)


def expect_recovered(
    path: Path,
    built: Built,
    damaged: Batch,
    caplog: pytest.LogCaptureFixture,
    *,
    truncated_file: str | None,
) -> None:
    """The log at ``path`` must hold exactly the batches before ``damaged``, then take appends."""
    caplog.clear()
    with caplog.at_level(logging.INFO, logger=LOGGER):
        lg = open_log(path)
    keep = [b for b in built.batches if b.base < damaged.base]
    want = [r for b in keep for r in b.records]
    assert lg.log_end_offset == damaged.base
    assert lg.high_watermark == damaged.base
    assert read_all(lg) == want
    assert lg.read(damaged.base, 10, 10_000).records == []
    # earlier batches: identical bytes at identical positions; nothing of the damaged one
    for b in keep:
        seg = lg.segments[lg.segment_for(b.base)]
        assert seg.base_offset == b.segment
        assert seg.read(b.position, len(b.data)) == b.data
    damaged_file = path / built.log_name(damaged.segment)
    assert damaged_file.read_bytes() == built.files[damaged_file.name][: damaged.position]
    assert not [n for n in os.listdir(path) if n.endswith(".log") and int(n[:-4]) > damaged.segment]
    if truncated_file is not None:
        messages = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert any(
            str(path / truncated_file) in m and f"at byte {damaged.position}" in m for m in messages
        ), messages
    # appending continues at the damaged batch's offset and survives another reopen
    new = [Record(99_999, b"after", b"recovery"), Record(99_998, None, b"!")]
    info = lg.append(new, now_ms=0)
    assert info.base_offset == damaged.base
    lg.close(clean=False)
    lg = open_log(path)
    assert lg.recovered_bytes_truncated == 0
    got = read_all(lg)
    assert got[: len(want)] == want
    assert [(r.offset, r.key, r.value) for r in got[len(want) :]] == [
        (damaged.base, b"after", b"recovery"),
        (damaged.base + 1, None, b"!"),
    ]
    lg.close(clean=False)


# -- the last batch of the active segment -------------------------------------------------------


def test_truncation_at_every_byte_of_the_last_batch(
    built: Built, copy: Copies, caplog: pytest.LogCaptureFixture
) -> None:
    last = built.batches[-1]
    name = built.log_name(last.segment)
    for cut in range(last.position, last.position + len(last.data)):
        dst = copy(built)
        os.truncate(dst / name, cut)
        expect_recovered(
            dst, built, last, caplog, truncated_file=name if cut > last.position else None
        )


def test_flipped_byte_at_every_position_of_the_last_batch(
    built: Built, copy: Copies, caplog: pytest.LogCaptureFixture
) -> None:
    last = built.batches[-1]
    name = built.log_name(last.segment)
    for i in range(len(last.data)):
        if i in LEADER_EPOCH:
            continue
        for mask in (0xFF, 1 << (i % 8)):
            dst = copy(built)
            with open(dst / name, "r+b") as f:
                f.seek(last.position + i)
                f.write(bytes([last.data[i] ^ mask]))
            expect_recovered(dst, built, last, caplog, truncated_file=name)


def test_random_byte_values_at_sampled_positions_of_the_last_batch(
    built: Built, copy: Copies, caplog: pytest.LogCaptureFixture
) -> None:
    last = built.batches[-1]
    name = built.log_name(last.segment)
    rng = random.Random(7)
    for _ in range(200):
        i = rng.choice([i for i in range(len(last.data)) if i not in LEADER_EPOCH])
        value = rng.choice([v for v in range(256) if v != last.data[i]])
        dst = copy(built)
        with open(dst / name, "r+b") as f:
            f.seek(last.position + i)
            f.write(bytes([value]))
        expect_recovered(dst, built, last, caplog, truncated_file=name)


# -- other damage -------------------------------------------------------------------------------

GARBAGE = {
    "one_byte": b"\x01",
    "short_header": b"\x00" * 11,
    "header_minus_one": bytes(range(56)),
    "random_57": random.Random(1).randbytes(57),
    "random_300": random.Random(2).randbytes(300),
    "random_5000": random.Random(3).randbytes(5000),
    "zeros_4096": bytes(4096),
}


@pytest.mark.parametrize("garbage", list(GARBAGE), ids=list(GARBAGE))
def test_garbage_after_valid_data_is_truncated(
    built: Built, copy: Copies, garbage: str, caplog: pytest.LogCaptureFixture
) -> None:
    end = built.batches[-1]
    name = built.log_name(end.segment)
    dst = copy(built)
    with open(dst / name, "ab") as f:
        f.write(GARBAGE[garbage])
    phantom = Batch(end.next, end.next, end.segment, end.position + len(end.data), b"", ())
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        lg = open_log(dst)
    assert lg.recovered_bytes_truncated == len(GARBAGE[garbage])
    assert [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and "truncating" in r.getMessage()
    ] == [
        f"recovery: truncating {dst / name} at byte {phantom.position} "
        f"({len(GARBAGE[garbage])} invalid bytes after the last valid batch)"
    ]
    lg.close(clean=False)
    shutil.rmtree(dst)
    dst = copy(built)
    with open(dst / name, "ab") as f:
        f.write(GARBAGE[garbage])
    expect_recovered(dst, built, phantom, caplog, truncated_file=name)


def test_a_replayed_valid_batch_with_a_stale_offset_is_truncated(
    built: Built, copy: Copies, caplog: pytest.LogCaptureFixture
) -> None:
    end = built.batches[-1]
    name = built.log_name(end.segment)
    dst = copy(built)
    with open(dst / name, "ab") as f:
        f.write(built.batches[-2].data)  # a whole, CRC-valid batch, but not the next offset
    phantom = Batch(end.next, end.next, end.segment, end.position + len(end.data), b"", ())
    expect_recovered(dst, built, phantom, caplog, truncated_file=name)


@pytest.mark.parametrize("checkpoint", ["none", "sealed"])
def test_a_damaged_batch_in_the_middle_of_the_active_segment_drops_everything_after(
    checkpoint: str, tmp_path: Path, copy: Copies, caplog: pytest.LogCaptureFixture
) -> None:
    built = build(tmp_path / "p", checkpoint)
    assert _trusted_end(built) == 0  # the whole active segment is validated at open
    active = built.in_segment(built.active)
    name = built.log_name(built.active)
    for victim in active[:-1]:  # the first, and those in the middle
        for i in (0, 16, 20, len(victim.data) // 2, len(victim.data) - 1):
            dst = copy(built)
            with open(dst / name, "r+b") as f:
                f.seek(victim.position + i)
                f.write(bytes([victim.data[i] ^ 0x5A]))
            expect_recovered(dst, built, victim, caplog, truncated_file=name)


def _trusted_end(built: Built) -> int:
    """Bytes of the active segment below the checkpoint (trusted, not validated at open)."""
    cp = built.path / CHECKPOINT_FILE
    if not cp.exists():
        return 0
    base, pos = struct.unpack_from("<qq", cp.read_bytes())
    return pos if base == built.active else 0


def test_a_damaged_sealed_segment_without_checkpoint_drops_later_segments(
    tmp_path: Path, copy: Copies, caplog: pytest.LogCaptureFixture
) -> None:
    built = build(tmp_path / "p", "none")
    first = sorted({b.segment for b in built.batches})[0]
    victim = built.in_segment(first)[2]
    dst = copy(built)
    name = built.log_name(first)
    with open(dst / name, "r+b") as f:
        f.seek(victim.position + 30)
        f.write(bytes([victim.data[30] ^ 0x10]))  # inside first_timestamp
    expect_recovered(dst, built, victim, caplog, truncated_file=name)


# -- the recovery checkpoint --------------------------------------------------------------------


def checkpoint_bytes(base: int, position: int, next_offset: int) -> bytes:
    body = struct.pack("<qqq", base, position, next_offset)
    return body + struct.pack("<I", zlib.crc32(body))


def _tear_last_batch(built: Built, dst: Path) -> Batch:
    last = built.batches[-1]
    os.truncate(dst / built.log_name(last.segment), last.position + len(last.data) // 2)
    return last


CHECKPOINTS: dict[str, Callable[[Built], bytes]] = {
    "random_28_bytes": lambda b: random.Random(4).randbytes(28),
    "empty": lambda b: b"",
    "too_short": lambda b: b"\x00\x01\x02",
    "too_long": lambda b: random.Random(5).randbytes(100),
    "bad_crc": lambda b: bytes(
        a ^ (i == 27)
        for i, a in enumerate(
            checkpoint_bytes(b.active, b.batches[-1].position, b.batches[-1].base)
        )
    ),
    "past_file_end": lambda b: checkpoint_bytes(
        b.active, len(b.files[b.log_name(b.active)]) + 1000, b.batches[-1].next + 50
    ),
    "unknown_segment": lambda b: checkpoint_bytes(987_654_321, 17, 987_654_400),
    "before_first_segment": lambda b: checkpoint_bytes(-5, 0, 0),
    "stale_older": lambda b: checkpoint_bytes(
        b.batches[0].segment, b.batches[1].position, b.batches[1].base
    ),
}


@pytest.mark.parametrize("cp", list(CHECKPOINTS), ids=list(CHECKPOINTS))
def test_bad_or_stale_checkpoint_still_recovers(
    cp: str, tmp_path: Path, copy: Copies, caplog: pytest.LogCaptureFixture
) -> None:
    built = build(tmp_path / "p", "before_last")
    dst = copy(built)
    (dst / CHECKPOINT_FILE).write_bytes(CHECKPOINTS[cp](built))
    last = _tear_last_batch(built, dst)
    expect_recovered(dst, built, last, caplog, truncated_file=built.log_name(last.segment))


def test_a_valid_checkpoint_with_a_missing_active_index_still_recovers(
    tmp_path: Path, copy: Copies, caplog: pytest.LogCaptureFixture
) -> None:
    built = build(tmp_path / "p", "before_last")
    dst = copy(built)
    os.unlink(dst / f"{built.active:020d}.index")
    last = _tear_last_batch(built, dst)
    expect_recovered(dst, built, last, caplog, truncated_file=built.log_name(last.segment))


def test_the_checkpoint_is_a_trust_boundary(
    tmp_path: Path, copy: Copies, caplog: pytest.LogCaptureFixture
) -> None:
    """Bytes below the checkpoint were fsynced and are trusted: open does not re-read them.

    This is the documented design (recovery time depends on the unflushed tail only). A byte
    flipped below the checkpoint inside a record value is therefore not detected at open; the
    same damage is detected once the checkpoint is gone, because then everything is validated.
    """
    built = build(tmp_path / "p", "before_last")
    victim = built.in_segment(built.active)[1]
    assert victim.position + len(victim.data) <= _trusted_end(built)
    name = built.log_name(built.active)
    at = victim.data.index(b"value ")
    damaged = bytearray(victim.data)
    damaged[at] ^= 0x20  # "value" -> "Value"

    trusted = copy(built)
    with open(trusted / name, "r+b") as f:
        f.seek(victim.position + at)
        f.write(damaged[at : at + 1])
    lg = open_log(trusted)
    assert lg.recovered_bytes_truncated == 0
    assert lg.log_end_offset == built.batches[-1].next
    first = lg.read(victim.base, 1, 10_000).records[0]
    assert first.value is not None
    assert first.value.startswith(b"Value")  # served as stored: below the trust boundary
    lg.close(clean=False)

    validated = copy(built)
    shutil.copyfile(trusted / name, validated / name)
    os.unlink(validated / CHECKPOINT_FILE)
    expect_recovered(validated, built, victim, caplog, truncated_file=name)


def test_a_tail_after_the_checkpoint_is_validated(
    tmp_path: Path, copy: Copies, caplog: pytest.LogCaptureFixture
) -> None:
    built = build(tmp_path / "p", "before_last")
    last = built.batches[-1]
    assert _trusted_end(built) == last.position
    dst = copy(built)
    name = built.log_name(last.segment)
    with open(dst / name, "r+b") as f:
        f.seek(last.position + len(last.data) - 1)
        f.write(bytes([last.data[-1] ^ 1]))  # the very last byte: only a CRC check sees it
    expect_recovered(dst, built, last, caplog, truncated_file=name)


# -- a damaged index below the checkpoint -------------------------------------------------------


@pytest.mark.parametrize("shift", [1, -1, 24])
def test_a_damaged_index_entry_below_the_checkpoint_keeps_the_log_end(
    tmp_path: Path, shift: int
) -> None:
    """After a clean close the checkpoint is the active segment's end, and reopening walks from
    the last index entry to it without validating. If that entry's position is damaged (it still
    passes OffsetIndex.load's checks), the walk must not silently stop early: that would move the
    log end back and hand out offsets that batches in the file already hold."""
    path = tmp_path / "p"
    lg = open_log(path)
    want: list[StoredRecord] = []
    for i in range(18):
        rs = batch_records(i)
        info = lg.append(rs, now_ms=0)
        want += [
            StoredRecord(info.base_offset + j, r.timestamp, r.key, r.value, ())
            for j, r in enumerate(rs)
        ]
    assert len(lg.segments) >= 2
    end, active = lg.log_end_offset, lg.active.base_offset
    lg.close(clean=True)
    index = path / f"{active:020d}.index"
    data = bytearray(index.read_bytes())
    assert len(data) >= 24  # the active segment has an index entry
    o, p, t = struct.unpack_from("<qqq", data, len(data) - 24)
    struct.pack_into("<qqq", data, len(data) - 24, o, p + shift, t)
    index.write_bytes(bytes(data))

    lg = open_log(path)
    assert lg.log_end_offset == end
    assert read_all(lg) == want
    info = lg.append([Record(5, None, b"next")], now_ms=0)
    assert info.base_offset == end
    lg.close(clean=False)
    lg = open_log(path)
    got = read_all(lg)
    assert got[:-1] == want
    assert (got[-1].offset, got[-1].value) == (end, b"next")
    lg.close(clean=False)


def test_damage_after_the_checkpoint_in_a_sealed_segment_drops_later_segments(
    tmp_path: Path, copy: Copies, caplog: pytest.LogCaptureFixture
) -> None:
    built = build(tmp_path / "p", "sealed")
    cp_base, cp_pos = struct.unpack_from("<qq", (built.path / CHECKPOINT_FILE).read_bytes())
    after = [b for b in built.in_segment(cp_base) if b.position >= cp_pos]
    assert after, "the checkpoint should leave a tail in its (now sealed) segment"
    victim = after[0]
    name = built.log_name(cp_base)
    dst = copy(built)
    with open(dst / name, "r+b") as f:
        f.seek(victim.position + len(victim.data) - 1)
        f.write(bytes([victim.data[-1] ^ 0x80]))
    expect_recovered(dst, built, victim, caplog, truncated_file=name)


def test_a_damaged_leader_epoch_changes_no_record(built: Built, copy: Copies) -> None:
    last = built.batches[-1]
    dst = copy(built)
    with open(dst / built.log_name(last.segment), "r+b") as f:
        f.seek(last.position + record.LEADER_EPOCH_AT)
        f.write(b"\x12\x34\x56\x78")
    lg = open_log(dst)
    assert read_all(lg) == [r for b in built.batches for r in b.records]
