"""Record batches (magic 2) as a Kafka broker stores them in a partition's log segment, read
field by field with ``struct``: a reader of the tests' own, independent of the server's code,
so that what it finds in a native broker's files is evidence about the format itself.

A batch: base offset (int64), batch length (int32, the bytes after this field), partition
leader epoch (int32), magic (int8, 2), CRC-32C (uint32) over every byte after it, attributes
(int16), last offset delta (int32), base and max timestamp (int64), producer id (int64),
producer epoch (int16), base sequence (int32), record count (int32), then the records. A record
is its length and then its fields, in zig-zag varints: attributes (int8), timestamp delta,
offset delta, key, value (each a length, -1 for null, and its bytes), and its headers (a
count, then each a name and a value, a null value having length -1).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import google_crc32c

HEADER = struct.Struct(">qiibIhiqqqhii")
LENGTH_PREFIX = 12  # base offset and batch length: the bytes the batch length does not count
CRC_FROM = 21  # the CRC covers the batch from the attributes to its end


@dataclass(frozen=True)
class Record:
    attributes: int
    timestamp_delta: int
    offset_delta: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]


@dataclass(frozen=True)
class Batch:
    raw: bytes  # the whole batch as stored, base offset first
    base_offset: int
    batch_length: int
    partition_leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records: tuple[Record, ...]

    def computed_crc(self) -> int:
        return int(google_crc32c.value(bytes(self.raw[CRC_FROM:])))


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def varint(self) -> int:
        shift = raw = 0
        while True:
            byte = self.data[self.at]
            self.at += 1
            raw |= (byte & 0x7F) << shift
            if byte < 0x80:
                return (raw >> 1) ^ -(raw & 1)
            shift += 7
            if shift > 63:
                raise ValueError(f"varint longer than 10 bytes at {self.at}")

    def take(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise ValueError(f"{n} bytes wanted at {self.at}, {len(self.data) - self.at} left")
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def nullable(self) -> bytes | None:
        n = self.varint()
        return None if n < 0 else self.take(n)


def _record(data: bytes) -> Record:
    r = _Reader(data)
    attributes = r.take(1)[0]
    timestamp_delta = r.varint()
    offset_delta = r.varint()
    key = r.nullable()
    value = r.nullable()
    headers = []
    for _ in range(r.varint()):
        name = r.take(r.varint()).decode()
        headers.append((name, r.nullable()))
    if r.at != len(data):
        raise ValueError(f"record of {len(data)} bytes has {len(data) - r.at} left over")
    return Record(attributes, timestamp_delta, offset_delta, key, value, tuple(headers))


def parse_batch(raw: bytes) -> Batch:
    """One batch, exactly: ``raw`` holds it and nothing after it."""
    fields = HEADER.unpack_from(raw)
    (base_offset, batch_length, epoch, magic, crc, attributes, last_delta) = fields[:7]
    (base_ts, max_ts, producer_id, producer_epoch, base_sequence, count) = fields[7:]
    if magic != 2:
        raise ValueError(f"magic {magic}, not 2")
    if LENGTH_PREFIX + batch_length != len(raw):
        raise ValueError(f"batch length {batch_length} for {len(raw)} bytes")
    r = _Reader(raw)
    r.at = HEADER.size
    records = tuple(_record(r.take(r.varint())) for _ in range(count))
    if r.at != len(raw):
        raise ValueError(f"{len(raw) - r.at} bytes after the batch's {count} records")
    return Batch(
        raw, base_offset, batch_length, epoch, magic, crc, attributes, last_delta,
        base_ts, max_ts, producer_id, producer_epoch, base_sequence, records,
    )  # fmt: skip


def parse_segment(data: bytes) -> list[Batch]:
    """Every batch of a log segment file, in order."""
    batches = []
    at = 0
    while at + LENGTH_PREFIX <= len(data):
        (length,) = struct.unpack_from(">i", data, at + 8)
        batches.append(parse_batch(data[at : at + LENGTH_PREFIX + length]))
        at += LENGTH_PREFIX + length
    if at != len(data):
        raise ValueError(f"{len(data) - at} bytes after the last batch")
    return batches
