"""Record batches in Kafka's format (RecordBatch v2, magic 2): encode, check and decode.

A batch, big-endian, as Kafka defines it::

    base_offset             int64    first offset of the batch
    batch_length            int32    bytes after this field
    partition_leader_epoch  int32    (see below)
    magic                   int8     2
    crc                     uint32   CRC-32C of everything after it (attributes onward)
    attributes              int16    bits 0-2 compression (none), 3 timestamp type (create
                                     time), 4 transactional, 5 control
    last_offset_delta       int32    last offset - base offset
    base_timestamp          int64    ms, the first record's
    max_timestamp           int64    ms
    producer_id             int64    -1 when none
    producer_epoch          int16    -1 when none
    base_sequence           int32    -1 when none
    record_count            int32
    records                 record_count records

A record: ``length`` (varint, bytes after it), ``attributes`` (int8, 0), ``timestamp_delta``
(varlong), ``offset_delta`` (varint), key length (varint, -1 for null) and key, value length and
value, header count (varint) and headers (key length and UTF-8 key, value length and value).
Control batches hold one record whose key is (version int16, type int16: 0 abort, 1 commit).

The CRC does not cover the base offset and the partition leader epoch, which a server rewrites
when it appends a batch a client built (Kafka's brokers do the same). Sluice has no partition
leaders; in its log the field is -1, except in a batch appended by a simple produce with an
``Idempotency-Key``, where it holds a tag of the key (``keyed_tag``) so that a retry after a
crash finds what the first attempt appended.

Encoding and walking records run in compiled code (the record module of aiokafka, a maintained
Kafka client library, and Google's CRC-32C): about half a microsecond a record to encode, a
tenth to check and walk.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from typing import NamedTuple, Protocol

import google_crc32c
from aiokafka.errors import CorruptRecordException
from aiokafka.record.default_records import DefaultRecordBatch, DefaultRecordBatchBuilder

from app.errors import CorruptRecordError, ErrorCode, InvalidRequest, SluiceError, TooLarge

MAGIC = 2
COMPRESSION_MASK = 0x07
TIMESTAMP_TYPE_FLAG = 0x08
TRANSACTIONAL_FLAG = 0x10
CONTROL_FLAG = 0x20
DELETE_HORIZON_FLAG = 0x40
NO_LEADER_EPOCH = -1

_HEADER = struct.Struct(">qiiBIhiqqqhii")
HEADER_SIZE = _HEADER.size  # 61
LOG_OVERHEAD = 12  # base_offset + batch_length: bytes not counted in batch_length
LEADER_EPOCH_AT = 12
MAGIC_AT = 16
_CRC_AT = 17
ATTRIBUTES_AT = 21  # where the CRC starts
_MAX_TS_AT = 35
_BASE_TS_AT = 27
_I64 = struct.Struct(">q")
_I32 = struct.Struct(">i")
_CRC = struct.Struct(">I")

# A record's framing, at most: length (5), attributes (1), timestamp delta (10), offset delta
# (5), key and value lengths and header count (5 each); a header's two lengths (5 each).
REC_FIXED = 36
HEADER_FIXED = 10

MAX_BATCH_BYTES = 1 << 30


class Header(NamedTuple):
    key: str
    value: bytes | None


class Record(NamedTuple):
    """A record to append."""

    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: Sequence[Header] = ()


class StoredRecord(NamedTuple):
    """A record read back, with its offset."""

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple[Header, ...]


class BatchHeader(NamedTuple):
    base_offset: int
    batch_length: int
    partition_leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    first_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    record_count: int

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.base_offset + self.last_offset_delta + 1

    @property
    def size(self) -> int:
        """Bytes the whole batch takes on disk."""
        return LOG_OVERHEAD + self.batch_length

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & CONTROL_FLAG)

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & TRANSACTIONAL_FLAG)


MARKER_KEY = struct.Struct(">hh")  # version, type (0 abort, 1 commit)
MARKER_VALUE = struct.Struct(">hi")  # version, coordinator epoch


def marker_record(commit: bool, timestamp: int) -> Record:
    """The one record of a control batch: a COMMIT or ABORT marker."""
    return Record(timestamp, MARKER_KEY.pack(0, 1 if commit else 0), MARKER_VALUE.pack(0, 0))


def marker_is_commit(key: bytes | None) -> bool:
    if key is None or len(key) != MARKER_KEY.size:
        raise CorruptRecordError("malformed control record", 0)
    _version, kind = MARKER_KEY.unpack(key)
    return bool(kind == 1)


def keyed_tag(key_hash: int) -> int:
    """The partition leader epoch that marks a batch of an ``Idempotency-Key`` whose 64-bit
    hash is ``key_hash``: 30 bits of it, above 2**30 (never -1, never a small epoch)."""
    return (key_hash & 0x3FFFFFFF) | 0x40000000


class RecordLike(Protocol):
    """A record to append or one read back: what the size rules look at."""

    @property
    def key(self) -> bytes | None: ...
    @property
    def value(self) -> bytes | None: ...
    @property
    def headers(self) -> Sequence[Header]: ...


def payload_size(record: RecordLike) -> int:
    """Bytes of a record's key and value: what a topic's ``max_message_bytes`` limits."""
    return len(record.key or b"") + len(record.value or b"")


def record_size(record: RecordLike) -> int:
    """Bytes a record takes inside a batch, at most (its framing counted at its largest): what
    the server's ``max_record_bytes`` limits, and what reads count against their
    ``max_bytes``."""
    size = REC_FIXED + len(record.key or b"") + len(record.value or b"")  # + payload_size
    for h in record.headers:
        size += HEADER_FIXED + len(h.key.encode()) + len(h.value or b"")
    return size


# -- encoding ----------------------------------------------------------------------------------


def encode_batch(
    base_offset: int,
    records: Sequence[Record],
    *,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    attributes: int = 0,
    leader_epoch: int = NO_LEADER_EPOCH,
) -> bytes:
    """Encode records as one batch starting at ``base_offset`` (attributes: transactional,
    control)."""
    if not records:
        raise ValueError("a batch holds at least one record")
    if attributes & CONTROL_FLAG:
        data = bytearray(_encode_control(records, producer_id, producer_epoch, attributes))
    else:
        builder = DefaultRecordBatchBuilder(
            magic=MAGIC,
            compression_type=0,
            is_transactional=1 if attributes & TRANSACTIONAL_FLAG else 0,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            base_sequence=base_sequence,
            batch_size=MAX_BATCH_BYTES,
        )
        append = builder.append
        for delta, (ts, key, value, headers) in enumerate(records):
            append(
                delta,
                timestamp=ts,
                key=key,
                value=value,
                headers=[(h.key, h.value) for h in headers] if headers else [],
            )
        data = builder.build()
    _I64.pack_into(data, 0, base_offset)
    if leader_epoch != NO_LEADER_EPOCH:
        _I32.pack_into(data, LEADER_EPOCH_AT, leader_epoch)
    return bytes(data)


def _varint(n: int) -> bytes:
    """A signed varint (zigzag), as Kafka writes record fields."""
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while True:
        b = z & 0x7F
        z >>= 7
        if z:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(data: bytes | None) -> bytes:
    return _varint(-1) if data is None else _varint(len(data)) + data


def _encode_control(
    records: Sequence[Record], producer_id: int, producer_epoch: int, attributes: int
) -> bytes:
    """A control batch (a marker), encoded here: the library builds data batches only."""
    ((ts, key, value, _),) = records
    body = b"\x00" + _varint(0) + _varint(0) + _field(key) + _field(value) + _varint(0)
    record = _varint(len(body)) + body
    after_crc = (
        struct.pack(">hiqqqhii", attributes, 0, ts, ts, producer_id, producer_epoch, -1, 1) + record
    )
    crc = google_crc32c.value(after_crc)
    head = struct.pack(">qiiBI", 0, 4 + 1 + 4 + len(after_crc), NO_LEADER_EPOCH, MAGIC, crc)
    return head + after_crc


def set_base_offset(batch: bytearray | memoryview, base_offset: int, pos: int = 0) -> None:
    """Rewrite the base offset of the batch at ``pos`` (outside the CRC)."""
    _I64.pack_into(batch, pos, base_offset)


def set_leader_epoch(batch: bytearray | memoryview, epoch: int, pos: int = 0) -> None:
    """Rewrite the partition leader epoch of the batch at ``pos`` (outside the CRC)."""
    _I32.pack_into(batch, pos + LEADER_EPOCH_AT, epoch)


def batch_max_timestamp(batch: bytes) -> int:
    """The max_timestamp field of an encoded batch."""
    (ts,) = _I64.unpack_from(batch, _MAX_TS_AT)
    return int(ts)


# -- reading -----------------------------------------------------------------------------------


def read_header(
    buf: bytes | bytearray | memoryview, pos: int = 0, *, compacted: bool = False
) -> BatchHeader:
    """Parse and sanity-check the header at ``pos``; the CRC is not checked here. A batch
    holds a record at every offset from its first to its last, unless ``compacted``: a batch
    of a Kafka topic that compaction thinned keeps its last offset (for its producer's
    sequence) and may hold fewer records, none at all for a producer's last batch."""
    if len(buf) - pos < HEADER_SIZE:
        raise CorruptRecordError("truncated batch header", pos)
    h = BatchHeader._make(_HEADER.unpack_from(buf, pos))
    if h.magic != MAGIC:
        raise CorruptRecordError(f"unknown magic {h.magic}", pos)
    if not HEADER_SIZE - LOG_OVERHEAD <= h.batch_length <= MAX_BATCH_BYTES:
        raise CorruptRecordError(f"invalid batch length {h.batch_length}", pos)
    if compacted:
        counted = 0 <= h.record_count <= h.last_offset_delta + 1
    else:
        counted = h.record_count >= 1 and h.last_offset_delta == h.record_count - 1
    if not counted or h.base_offset < 0:
        raise CorruptRecordError("invalid record count or offset", pos)
    return h


def check_batch(
    buf: bytes | bytearray | memoryview, pos: int = 0, *, compacted: bool = False
) -> BatchHeader:
    """Parse the header at ``pos`` and verify the whole batch's CRC; raise if invalid."""
    h = read_header(buf, pos, compacted=compacted)
    end = pos + h.size
    if end > len(buf):
        raise CorruptRecordError("truncated batch", pos)
    if google_crc32c.value(bytes(buf[pos + ATTRIBUTES_AT : end])) != h.crc:
        raise CorruptRecordError("CRC mismatch", pos)
    return h


def decode_records(
    buf: bytes | bytearray | memoryview, pos: int, h: BatchHeader, skip_below: int = 0
) -> Iterator[StoredRecord]:
    """Yield the records of the batch whose header ``h`` starts at ``pos``, from the first
    whose offset is at least ``skip_below``.

    The caller has verified the batch (``check_batch``) or trusts it (already-recovered data);
    malformed record framing still raises ``CorruptRecordError`` rather than misreading."""
    end = pos + h.size
    data = bytes(buf[pos:end]) if pos or end != len(buf) else bytes(buf)
    try:
        batch = DefaultRecordBatch(data)
        for r in batch:
            offset = r.offset
            if offset < skip_below:
                continue
            headers = r.headers
            yield StoredRecord(
                offset,
                r.timestamp,
                r.key,
                r.value,
                tuple(Header(k, v) for k, v in headers) if headers else (),
            )
    except (CorruptRecordException, UnicodeDecodeError) as exc:  # framing, a header's key
        raise CorruptRecordError(f"malformed record ({exc})", pos) from None


# -- batches a client built --------------------------------------------------------------------


class ClientBatch(NamedTuple):
    """A batch of a produce request, checked: its header and where it is in the body."""

    header: BatchHeader
    start: int
    end: int


def _refuse(code: str, message: str, index: int) -> SluiceError:
    error = TooLarge if code == "RECORD_TOO_LARGE" else InvalidRequest
    return error(ErrorCode[code], f"batch {index}: {message}")


def check_client_batches(
    body: bytes, *, max_record_bytes: int, max_message_bytes: int
) -> list[ClientBatch]:
    """Check every batch of a produce body as Kafka's broker does before it appends one
    (``docs/api.md#produce-batches``): framing and CRC (``CORRUPT_MESSAGE``), attributes and
    timestamps (``UNSUPPORTED_COMPRESSION_TYPE``, ``INVALID_RECORD``), sizes
    (``RECORD_TOO_LARGE``). Raises the first refusal; answers the batches in order. Producer
    fields are checked by whoever knows the producer."""
    out: list[ClientBatch] = []
    pos = 0
    while pos < len(body):
        i = len(out)
        try:
            h = check_batch(body, pos)
        except CorruptRecordError as exc:
            raise _refuse("CORRUPT_MESSAGE", exc.reason, i) from None
        end = pos + h.size
        attributes = h.attributes
        if attributes & COMPRESSION_MASK:
            raise _refuse(
                "UNSUPPORTED_COMPRESSION_TYPE",
                f"compression codec {attributes & COMPRESSION_MASK}: send batches uncompressed",
                i,
            )
        if attributes & (TIMESTAMP_TYPE_FLAG | CONTROL_FLAG | DELETE_HORIZON_FLAG):
            raise _refuse(
                "INVALID_RECORD",
                "attributes: log append time, control batches and delete horizons are the server's",
                i,
            )
        _check_records(body, pos, end, h, i, max_record_bytes, max_message_bytes)
        out.append(ClientBatch(h, pos, end))
        pos = end
    if not out:
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, "the body holds no record batch")
    return out


def _check_records(
    body: bytes,
    pos: int,
    end: int,
    h: BatchHeader,
    index: int,
    max_record_bytes: int,
    max_message_bytes: int,
) -> None:
    """Walk the records: offset deltas 0, 1, 2…, the header's timestamps, sizes."""
    # no record can be larger than its batch: only a batch over a limit needs sizes looked at
    sizes = h.batch_length > min(max_record_bytes, max_message_bytes)
    expected = h.base_offset
    first = True
    max_ts = -(2**63)
    try:
        for r in DefaultRecordBatch(body[pos:end]):
            if r.offset != expected:
                raise _refuse(
                    "INVALID_RECORD",
                    f"record {expected - h.base_offset}: offset "
                    f"delta {r.offset - h.base_offset}, expected the next",
                    index,
                )
            ts = r.timestamp
            if first:
                if ts != h.first_timestamp:
                    raise _refuse(
                        "INVALID_RECORD", "base timestamp is not the first record's", index
                    )
                first = False
            if ts > max_ts:
                max_ts = ts
            if sizes:
                key, value = r.key, r.value
                payload = (len(key) if key else 0) + (len(value) if value else 0)
                if payload > max_message_bytes:
                    raise _refuse(
                        "RECORD_TOO_LARGE",
                        "a record's key and value exceed the topic's max_message_bytes",
                        index,
                    )
                total = payload + sum(len(k) + len(v or b"") for k, v in r.headers)
                if total + REC_FIXED > max_record_bytes:
                    raise _refuse(
                        "RECORD_TOO_LARGE", "a record exceeds the server's max_record_bytes", index
                    )
            expected += 1
    except (CorruptRecordException, UnicodeDecodeError) as exc:
        raise _refuse("CORRUPT_MESSAGE", f"malformed record ({exc})", index) from None
    if max_ts != h.max_timestamp:
        raise _refuse(
            "INVALID_RECORD",
            f"max_timestamp {h.max_timestamp} is not the largest record timestamp {max_ts}",
            index,
        )
