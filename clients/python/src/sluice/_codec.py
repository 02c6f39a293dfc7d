"""Kafka's record batches (RecordBatch v2, magic 2) on the client's side: a producer's batch
encoded, the batches of an answer checked and walked, and the envelope that carries them
(``docs/api.md#batches``). No I/O.

A batch, big-endian, as Kafka defines it: base offset (int64), batch length (int32, the bytes
after it), partition leader epoch (int32), magic (int8, 2), CRC-32C (uint32, of everything
from the attributes on), attributes (int16: compression in bits 0-2, none here; 4 transactional;
5 control), last offset delta (int32), base and max timestamps (int64, ms), producer id (int64),
producer epoch (int16), base sequence (int32), record count (int32), then the records. The
server sets the base offset and the leader epoch, which the CRC does not cover.

Encoding and walking records run in compiled code, the record module of aiokafka (a maintained
Kafka client library); the CRC of what the server answers is checked with Google's CRC-32C.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import google_crc32c
from aiokafka.errors import CorruptRecordException
from aiokafka.record.default_records import DefaultRecordBatch, DefaultRecordBatchBuilder

from sluice._core import decode
from sluice.errors import CorruptMessageError

MAGIC = 2
TRANSACTIONAL = 0x10
CONTROL = 0x20
COMPRESSION = 0x07
NO_LEADER_EPOCH = -1
MEDIA_TYPE = "application/vnd.sluice.record-batch"  # a produce body of batches
ENVELOPE_MEDIA_TYPE = "application/vnd.sluice.batches"  # an answer of batches
ENVELOPE_MAGIC = b"SLRB\x01\x00\x00\x00"

_HEAD = struct.Struct(">qiiBIhiqqqhii")
HEAD_SIZE = _HEAD.size  # 61
_LOG_OVERHEAD = 12  # base offset and batch length: not counted in the batch length
_LEADER_EPOCH_AT = 12
_ATTRIBUTES_AT = 21  # where the CRC starts
_U64 = struct.Struct("<Q")
_I32 = struct.Struct(">i")
_NO_LIMIT = 1 << 62  # the builder's size limit: a request's batch is sized by its caller

HeaderList = list[tuple[str, bytes | None]]


# A record to encode, as aiokafka's builder takes it: timestamp (ms; None for the time of the
# encoding), key, value, headers as a list of pairs. A plain tuple: a producer makes one a send.
Record = tuple[int | None, bytes | None, bytes | None, HeaderList]


class BatchHead(NamedTuple):
    """The fields of a batch before its records."""

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
    record_count: int

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def size(self) -> int:
        return _LOG_OVERHEAD + self.batch_length

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & CONTROL)


class Envelope(NamedTuple):
    """An answer of batches: its head, and where in ``data`` its batches start."""

    head: dict[str, Any]
    data: bytes
    start: int


def encode_batch(
    records: Sequence[Record],
    *,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    transactional: bool = False,
    leader_epoch: int = NO_LEADER_EPOCH,
) -> bytes:
    """One batch of ``records`` (base offset 0, which the server sets), uncompressed, with
    the producer's id, epoch and base sequence (-1 each for none). A record without a timestamp
    takes the time of the encoding, read once for the batch."""
    if not records:
        raise ValueError("a batch holds at least one record")
    builder = DefaultRecordBatchBuilder(
        magic=MAGIC,
        compression_type=0,
        is_transactional=1 if transactional else 0,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=base_sequence,
        batch_size=_NO_LIMIT,
    )
    append = builder.append
    now = time.time_ns() // 1_000_000
    for delta, (timestamp, key, value, headers) in enumerate(records):
        append(
            delta,
            timestamp=now if timestamp is None else timestamp,
            key=key,
            value=value,
            headers=headers,
        )
    data = builder.build()
    if leader_epoch != NO_LEADER_EPOCH:  # outside the CRC: as a broker sets it
        _I32.pack_into(data, _LEADER_EPOCH_AT, leader_epoch)
    return bytes(data)


def _corrupt(message: str, pos: int) -> CorruptMessageError:
    return CorruptMessageError(f"the answer's batch at byte {pos}: {message}", status=200)


def read_head(data: bytes, pos: int = 0) -> BatchHead:
    """The head of the batch at ``pos``, its framing and CRC checked (``CorruptMessageError``
    otherwise): a client checks what it is given, as Kafka's do."""
    if len(data) - pos < HEAD_SIZE:
        raise _corrupt("truncated head", pos)
    h = BatchHead._make(_HEAD.unpack_from(data, pos))
    if h.magic != MAGIC:
        raise _corrupt(f"magic {h.magic}", pos)
    end = pos + h.size
    if h.batch_length < HEAD_SIZE - _LOG_OVERHEAD or end > len(data):
        raise _corrupt(f"batch length {h.batch_length}", pos)
    # a batch of a Kafka topic that compaction thinned keeps its last offset and holds fewer
    # records (none at all for a producer's last batch): the offsets between are not records
    if h.last_offset_delta < 0 or not 0 <= h.record_count <= h.last_offset_delta + 1:
        raise _corrupt("record count", pos)
    if h.attributes & COMPRESSION:
        raise _corrupt(f"compression codec {h.attributes & COMPRESSION}", pos)
    if google_crc32c.value(data[pos + _ATTRIBUTES_AT : end]) != h.crc:
        raise _corrupt("CRC mismatch", pos)
    return h


def batches(data: bytes, pos: int = 0) -> Iterator[tuple[BatchHead, int]]:
    """Each batch from ``pos`` to the end of ``data``, checked: its head and where it starts."""
    while pos < len(data):
        h = read_head(data, pos)
        yield h, pos
        pos += h.size


def records(data: bytes, pos: int, h: BatchHead) -> list[Any]:
    """The records of the batch whose head ``h`` is at ``pos``, as aiokafka reads them
    (``offset``, ``timestamp``, ``key``, ``value``, ``headers`` as a list of pairs); malformed
    framing raises ``CorruptMessageError``."""
    end = pos + h.size
    try:
        return list(DefaultRecordBatch(data[pos:end] if pos or end != len(data) else data))
    except (CorruptRecordException, UnicodeDecodeError) as exc:  # framing, a header's key
        raise _corrupt(f"malformed record ({exc})", pos) from None


def open_envelope(data: bytes) -> Envelope:
    """The head and the batches of an answer of batches (``docs/api.md#batch-envelope``)."""
    if data[:8] != ENVELOPE_MAGIC:
        raise CorruptMessageError("an answer of batches that is not the envelope", status=200)
    if len(data) < 16:
        raise CorruptMessageError("a truncated envelope", status=200)
    (n,) = _U64.unpack_from(data, 8)
    if 16 + n > len(data):
        raise CorruptMessageError("a truncated envelope", status=200)
    head = decode(data[16 : 16 + n])
    return Envelope(head, data, 16 + n + (-n % 8))
