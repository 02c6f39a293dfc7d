"""Record batch framing: encode and decode, pure functions.

A batch on disk, big-endian::

    base_offset       int64    first offset of the batch
    batch_length      int32    bytes after this field
    magic             int8     format version (1)
    crc               uint32   CRC-32 of base_offset..magic and of everything after crc
    attributes        int16    bit 4 transactional, bit 5 control, bit 6 keyed (below)
    last_offset_delta int32    last offset - base offset
    first_timestamp   int64    ms
    max_timestamp     int64    ms
    producer_id       int64    -1 when none
    producer_epoch    int16    -1 when none
    base_sequence     int32    -1 when none
    record_count      int32
    records           record_count records

A record::

    length            int32    bytes after this field
    offset_delta      int32
    timestamp_delta   int64    timestamp - first_timestamp
    key_length        int32    -1 for a null key
    key               bytes
    value_length      int32    -1 for a null value
    value             bytes
    header_count      int32
    headers           header_count × (key_length int32, key utf-8, value_length int32, value)

The CRC covers the offset and length too, so a flipped bit anywhere is detected.

A keyed batch (bit 6) comes from a simple produce with an ``Idempotency-Key``: its producer id
field holds a 64-bit hash of the key instead of a producer id, so that a retry after a crash
can find the batch in the log. Such a batch carries no producer state.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator, Sequence
from typing import NamedTuple, Protocol

from app.errors import CorruptRecordError

MAGIC = 1
TRANSACTIONAL_FLAG = 0x10
CONTROL_FLAG = 0x20
KEYED_FLAG = 0x40

_PREFIX = struct.Struct(">qiB")  # base_offset, batch_length, magic
_CRC = struct.Struct(">I")
_BODY = struct.Struct(">hiqqqhii")  # attributes .. record_count
_HEADER = struct.Struct(">qiBIhiqqqhii")
HEADER_SIZE = _HEADER.size  # 57
LOG_OVERHEAD = 12  # base_offset + batch_length: bytes not counted in batch_length
_CRC_START = _PREFIX.size  # 13
_BODY_START = _CRC_START + 4  # 17

_REC_HEAD = struct.Struct(">iiqi")  # length, offset_delta, timestamp_delta, key_length
_REC_PLAIN = struct.Struct(">iiqii")  # the same, then value_length, for a record without key
_I32 = struct.Struct(">i")
_HDR_KEY = struct.Struct(">i")
REC_FIXED = _REC_HEAD.size + 8  # + value_length + header_count

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
    """Bytes a record takes inside a batch: what the server's ``max_record_bytes`` limits, and
    what reads count against their ``max_bytes``."""
    size = REC_FIXED + len(record.key or b"") + len(record.value or b"")  # + payload_size
    for h in record.headers:
        size += 8 + len(h.key.encode()) + len(h.value or b"")
    return size


def encode_batch(
    base_offset: int,
    records: Sequence[Record],
    *,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    attributes: int = 0,
) -> bytes:
    """Encode records as one batch starting at ``base_offset``."""
    if not records:
        raise ValueError("a batch holds at least one record")
    first_ts = records[0].timestamp
    max_ts = first_ts
    parts: list[bytes] = []
    extend = parts.extend
    pack_head = _REC_HEAD.pack
    pack_i32 = _I32.pack
    pack_plain = _REC_PLAIN.pack
    no_headers = b"\x00\x00\x00\x00"
    for delta, (ts, key, value, headers) in enumerate(records):
        if ts > max_ts:
            max_ts = ts
        vlen = -1 if value is None else len(value)
        if key is None and not headers:
            # the common record: no key, no headers; one pack instead of four
            if value:
                extend((pack_plain(24 + vlen, delta, ts - first_ts, -1, vlen), value, no_headers))
            else:
                extend((pack_plain(24, delta, ts - first_ts, -1, vlen), no_headers))
            continue
        klen = -1 if key is None else len(key)
        if headers:
            hparts = [pack_i32(len(headers))]
            for h in headers:
                hk = h.key.encode()
                hparts.append(pack_i32(len(hk)))
                hparts.append(hk)
                if h.value is None:
                    hparts.append(pack_i32(-1))
                else:
                    hparts.append(pack_i32(len(h.value)))
                    hparts.append(h.value)
            hbytes = b"".join(hparts)
        else:
            hbytes = b"\x00\x00\x00\x00"
        body_len = 4 + 8 + 4 + max(klen, 0) + 4 + max(vlen, 0) + len(hbytes)
        parts.append(pack_head(body_len, delta, ts - first_ts, klen))
        if key:
            parts.append(key)
        parts.append(pack_i32(vlen))
        if value:
            parts.append(value)
        parts.append(hbytes)
    payload = b"".join(parts)
    head = _BODY.pack(
        attributes,
        len(records) - 1,
        first_ts,
        max_ts,
        producer_id,
        producer_epoch,
        base_sequence,
        len(records),
    )
    # batch_length counts magic + crc + body; the payload is copied once more, not twice
    prefix = _PREFIX.pack(base_offset, 1 + 4 + len(head) + len(payload), MAGIC)
    crc = zlib.crc32(payload, zlib.crc32(head, zlib.crc32(prefix)))
    return b"".join((prefix, _CRC.pack(crc), head, payload))


_MAX_TS_AT = _CRC_START + 4 + 2 + 4 + 8  # after magic, crc, attributes, last delta, first ts
_I64 = struct.Struct(">q")


def batch_max_timestamp(batch: bytes) -> int:
    """The max_timestamp field of an encoded batch."""
    (ts,) = _I64.unpack_from(batch, _MAX_TS_AT)
    return int(ts)


def read_header(buf: bytes | memoryview, pos: int = 0) -> BatchHeader:
    """Parse and sanity-check the header at ``pos``; the CRC is not checked here."""
    if len(buf) - pos < HEADER_SIZE:
        raise CorruptRecordError("truncated batch header", pos)
    h = BatchHeader._make(_HEADER.unpack_from(buf, pos))
    if h.magic != MAGIC:
        raise CorruptRecordError(f"unknown magic {h.magic}", pos)
    if not HEADER_SIZE - LOG_OVERHEAD <= h.batch_length <= MAX_BATCH_BYTES:
        raise CorruptRecordError(f"invalid batch length {h.batch_length}", pos)
    if h.record_count < 1 or h.last_offset_delta != h.record_count - 1 or h.base_offset < 0:
        raise CorruptRecordError("invalid record count or offset", pos)
    return h


def check_batch(buf: bytes | memoryview, pos: int = 0) -> BatchHeader:
    """Parse the header at ``pos`` and verify the whole batch's CRC; raise if invalid."""
    h = read_header(buf, pos)
    end = pos + h.size
    if end > len(buf):
        raise CorruptRecordError("truncated batch", pos)
    crc = zlib.crc32(buf[pos : pos + _CRC_START])
    crc = zlib.crc32(buf[pos + _BODY_START : end], crc)
    if crc != h.crc:
        raise CorruptRecordError("CRC mismatch", pos)
    return h


def decode_records(
    buf: bytes | memoryview, pos: int, h: BatchHeader, skip_below: int = 0
) -> Iterator[StoredRecord]:
    """Yield the records of the batch whose header ``h`` starts at ``pos``, from the first
    whose offset is at least ``skip_below`` (the records before it are stepped over by their
    length, not decoded: a read from the middle of a large batch costs what it returns).

    The caller has verified the batch (``check_batch``) or trusts it (already-recovered data);
    malformed record framing still raises ``CorruptRecordError`` rather than misreading.
    """
    p = pos + HEADER_SIZE
    end = pos + h.size
    base = h.base_offset
    first_ts = h.first_timestamp
    unpack_head = _REC_HEAD.unpack_from
    unpack_i32 = _I32.unpack_from
    b = bytes(buf) if isinstance(buf, memoryview) else buf
    try:
        for _ in range(h.record_count):
            length, odelta, tdelta, klen = unpack_head(b, p)
            rec_end = p + 4 + length
            if length < REC_FIXED - 4 or rec_end > end:
                raise CorruptRecordError("invalid record length", p)
            if base + odelta < skip_below:
                p = rec_end
                continue
            q = p + _REC_HEAD.size
            if klen < 0:
                key = None
            else:
                key = b[q : q + klen]
                q += klen
            (vlen,) = unpack_i32(b, q)
            q += 4
            if vlen < 0:
                value = None
            else:
                value = b[q : q + vlen]
                q += vlen
            (hcount,) = unpack_i32(b, q)
            q += 4
            headers: tuple[Header, ...] = ()
            if hcount:
                hl: list[Header] = []
                for _h in range(hcount):
                    (hklen,) = unpack_i32(b, q)
                    q += 4
                    hkey = b[q : q + hklen].decode()
                    q += hklen
                    (hvlen,) = unpack_i32(b, q)
                    q += 4
                    if hvlen < 0:
                        hval = None
                    else:
                        hval = b[q : q + hvlen]
                        q += hvlen
                    hl.append(Header(hkey, hval))
                headers = tuple(hl)
            if q != rec_end:
                raise CorruptRecordError("record framing mismatch", p)
            yield StoredRecord(base + odelta, first_ts + tdelta, key, value, headers)
            p = rec_end
    except (struct.error, UnicodeDecodeError) as exc:
        raise CorruptRecordError(f"malformed record ({exc})", p) from None
    if p != end:
        raise CorruptRecordError("batch has trailing bytes", p)
