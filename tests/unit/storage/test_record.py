"""The batch codec (Kafka's RecordBatch v2): encode/decode round trips, every damage the CRC
covers is detected, and the framing is checked behind a valid CRC."""

from __future__ import annotations

import struct

import google_crc32c
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import CorruptRecordError
from app.storage import record
from app.storage.record import Header, Record, StoredRecord

PROPERTY = settings(max_examples=200, deadline=None)


def expected(base: int, records: list[Record]) -> list[StoredRecord]:
    return [
        StoredRecord(base + i, r.timestamp, r.key, r.value, tuple(r.headers))
        for i, r in enumerate(records)
    ]


def roundtrip(
    base: int, records: list[Record], **kw: int
) -> tuple[record.BatchHeader, list[StoredRecord]]:
    data = record.encode_batch(base, records, **kw)
    h = record.check_batch(data)
    return h, list(record.decode_records(data, 0, h))


def recrc(data: bytearray) -> bytes:
    """Give a hand-edited batch its length and a valid CRC again (to reach the framing
    checks)."""
    struct.pack_into(">i", data, 8, len(data) - record.LOG_OVERHEAD)
    struct.pack_into(">I", data, 17, google_crc32c.value(bytes(data[21:])))
    return bytes(data)


def varint(n: int) -> bytes:
    z, out = (n << 1) ^ (n >> 63), bytearray()
    while z > 0x7F:
        out.append(z & 0x7F | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def with_records(body: bytes, count: int) -> bytes:
    """A valid batch header (one record's worth) around hand-made record bytes."""
    good = bytearray(record.encode_batch(0, [Record(1, None, b"v")]))
    data = good[: record.HEADER_SIZE] + body
    struct.pack_into(">i", data, 23, count - 1)  # last offset delta
    struct.pack_into(">i", data, 57, count)  # record count
    return recrc(data)


# -- round trips ------------------------------------------------------------------------------

KEY_VALUE_CASES = [
    (None, None),
    (b"", b""),
    (None, b""),
    (b"", None),
    (b"k", None),
    (None, b"v"),
    (b"\x00", b"\x00" * 1000),
    (b"key", b"value"),
]


@pytest.mark.parametrize("with_headers", [False, True])
def test_null_and_empty_keys_and_values_stay_distinct(with_headers: bool) -> None:
    headers = (Header("h", b"1"),) if with_headers else ()
    records = [Record(1000 + i, k, v, headers) for i, (k, v) in enumerate(KEY_VALUE_CASES)]
    h, got = roundtrip(7, records)
    assert got == expected(7, records)
    for (k, v), r in zip(KEY_VALUE_CASES, got, strict=True):
        assert (r.key is None) == (k is None)
        assert (r.value is None) == (v is None)
    assert h.record_count == len(records)


def test_headers_with_null_values_and_unicode_keys() -> None:
    headers = [
        Header("", None),
        Header("ключ", b""),
        Header("🔑 ключ", b"\x00\xff"),
        Header("a", None),
        Header("a", b"dup"),
        Header("ä" * 300, b"x" * 300),
    ]
    records = [
        Record(5, b"k", b"v", headers),
        Record(6, None, None, headers[:1]),
        Record(7, None, b"plain"),
    ]
    _, got = roundtrip(0, records)
    assert got == expected(0, records)
    assert got[0].headers[0].value is None
    assert got[0].headers[1].value == b""
    assert [h.key for h in got[0].headers] == [h.key for h in headers]  # order and duplicates


def test_many_records_offsets_and_timestamps() -> None:
    n = 5000
    # non-monotonic timestamps: deltas from the first one are negative too
    records = [
        Record(
            1_000_000 + (i * 7919) % 10_007 - 5000,
            str(i).encode() if i % 3 else None,
            bytes([i % 256]) * (i % 17),
        )
        for i in range(n)
    ]
    h, got = roundtrip(123_456_789, records)
    assert got == expected(123_456_789, records)
    assert h.base_offset == 123_456_789
    assert h.record_count == n
    assert h.last_offset_delta == n - 1
    assert h.last_offset == 123_456_789 + n - 1
    assert h.next_offset == 123_456_789 + n
    assert h.first_timestamp == records[0].timestamp
    assert h.max_timestamp == max(r.timestamp for r in records)


def test_header_fields_and_sizes() -> None:
    records = [Record(10, b"a", b"bb", [Header("h", b"v")]), Record(3, None, b"c")]
    data = record.encode_batch(42, records)
    h = record.check_batch(data)
    assert record.HEADER_SIZE == 61
    assert h.magic == record.MAGIC == 2
    assert h.partition_leader_epoch == record.NO_LEADER_EPOCH
    assert h.size == len(data)
    assert h.batch_length == len(data) - record.LOG_OVERHEAD
    assert h.first_timestamp == 10
    assert h.max_timestamp == 10
    assert record.read_header(data) == h
    # record_size is an upper bound of what a record takes (its varints at their largest)
    assert sum(record.record_size(r) for r in records) >= len(data) - record.HEADER_SIZE


def test_the_bytes_are_kafkas() -> None:
    """One batch, byte for byte as Kafka's format lays it out (fields and varints by hand)."""
    data = record.encode_batch(
        5,
        [Record(1000, b"k", b"vv", [Header("h", None)])],
        producer_id=7,
        producer_epoch=1,
        base_sequence=3,
        attributes=record.TRANSACTIONAL_FLAG,
    )
    rec = b"\x00" + varint(0) + varint(0) + varint(1) + b"k" + varint(2) + b"vv" + varint(1)
    rec += varint(1) + b"h" + varint(-1)
    after_crc = struct.pack(">hiqqqhii", 0x10, 0, 1000, 1000, 7, 1, 3, 1) + varint(len(rec)) + rec
    head = struct.pack(">qiiBI", 5, 9 + len(after_crc), -1, 2, google_crc32c.value(after_crc))
    assert data == head + after_crc


def test_producer_id_epoch_and_sequence() -> None:
    records = [Record(1, None, b"x"), Record(2, None, b"y")]
    h, got = roundtrip(
        9, records, producer_id=2**62 + 5, producer_epoch=32767, base_sequence=2**31 - 1
    )
    assert (h.producer_id, h.producer_epoch, h.base_sequence) == (2**62 + 5, 32767, 2**31 - 1)
    assert got == expected(9, records)
    h, _ = roundtrip(9, records)
    assert (h.producer_id, h.producer_epoch, h.base_sequence) == (-1, -1, -1)


@pytest.mark.parametrize("transactional", [False, True])
def test_data_and_control_batches(transactional: bool) -> None:
    flag = record.TRANSACTIONAL_FLAG if transactional else 0
    h, got = roundtrip(0, [Record(1, None, b"m")], attributes=flag)
    assert (h.attributes, h.is_transactional, h.is_control) == (flag, transactional, False)
    assert got == expected(0, [Record(1, None, b"m")])
    marker = record.marker_record(True, 7)
    h, got = roundtrip(
        3, [marker], attributes=flag | record.CONTROL_FLAG, producer_id=4, producer_epoch=2
    )
    assert h.is_control and h.is_transactional is transactional
    assert (h.producer_id, h.producer_epoch, h.base_sequence) == (4, 2, -1)
    assert record.marker_is_commit(got[0].key) and got[0].timestamp == 7


def test_a_keyed_tag_sits_in_the_leader_epoch_outside_the_crc() -> None:
    tag = record.keyed_tag(-(2**63))
    assert 2**30 <= tag < 2**31 and tag == record.keyed_tag(-(2**63) + 2**62 + 2**30)
    data = record.encode_batch(0, [Record(1, None, b"v")], leader_epoch=tag)
    h = record.check_batch(data)
    assert h.partition_leader_epoch == tag and h.producer_id == -1
    moved = bytearray(data)
    record.set_base_offset(moved, 10)
    record.set_leader_epoch(moved, -1)
    again = record.check_batch(moved)  # still valid: neither is under the CRC
    assert (again.base_offset, again.partition_leader_epoch) == (10, -1)
    assert [r.offset for r in record.decode_records(moved, 0, again)] == [10]


def test_batches_at_positions_inside_a_buffer_and_memoryview() -> None:
    a = [Record(1, b"k", b"v1")]
    b = [Record(2, None, b"v2"), Record(3, None, None)]
    buf = record.encode_batch(0, a) + record.encode_batch(1, b)
    h0 = record.check_batch(buf, 0)
    h1 = record.check_batch(memoryview(buf), h0.size)
    assert h1.base_offset == 1
    assert list(record.decode_records(memoryview(buf), h0.size, h1)) == expected(1, b)
    assert list(record.decode_records(buf, 0, h0)) == expected(0, a)
    assert [r.offset for r in record.decode_records(buf, h0.size, h1, skip_below=2)] == [2]


def test_an_empty_batch_cannot_be_encoded() -> None:
    with pytest.raises(ValueError):
        record.encode_batch(0, [])


# -- framing checks behind a valid CRC ----------------------------------------------------------


@pytest.mark.parametrize(
    ("at", "fmt", "value"),
    [
        (16, ">b", 1),  # magic
        (57, ">i", 0),  # record_count
        (23, ">i", 5),  # last_offset_delta disagrees with record_count
        (0, ">q", -1),  # negative base offset
    ],
    ids=["magic", "record_count", "last_offset_delta", "base_offset"],
)
def test_read_header_rejects_bad_fields_even_with_a_valid_crc(
    at: int, fmt: str, value: int
) -> None:
    good = record.encode_batch(0, [Record(1, None, b"v"), Record(2, None, b"w")])
    bad = bytearray(good)
    struct.pack_into(fmt, bad, at, value)
    with pytest.raises(CorruptRecordError):
        record.read_header(recrc(bad))
    with pytest.raises(CorruptRecordError):
        record.check_batch(recrc(bad))


def test_read_header_rejects_a_length_shorter_than_a_header() -> None:
    bad = bytearray(record.encode_batch(0, [Record(1, None, b"v")]))
    struct.pack_into(">i", bad, 8, 3)
    with pytest.raises(CorruptRecordError, match="length"):
        record.read_header(bytes(bad))


def _record(body: bytes) -> bytes:
    return varint(len(body)) + body


def test_decode_rejects_a_wrong_record_length_even_with_a_valid_crc() -> None:
    body = b"\x00" + varint(0) + varint(0) + varint(-1) + varint(1) + b"v" + varint(0)
    for length in (len(body) - 1, len(body) + 1):
        data = with_records(varint(length) + body, 1)
        h = record.check_batch(data)
        with pytest.raises(CorruptRecordError):
            list(record.decode_records(data, 0, h))


def test_decode_rejects_trailing_bytes_even_with_a_valid_crc() -> None:
    body = b"\x00" + varint(0) + varint(0) + varint(-1) + varint(1) + b"v" + varint(0)
    data = with_records(_record(body) + b"junk", 1)
    with pytest.raises(CorruptRecordError):
        list(record.decode_records(data, 0, record.check_batch(data)))


def test_decode_rejects_a_key_length_past_the_record() -> None:
    body = b"\x00" + varint(0) + varint(0) + varint(10_000) + b"key" + varint(-1) + varint(0)
    data = with_records(_record(body), 1)
    with pytest.raises(CorruptRecordError):
        list(record.decode_records(data, 0, record.check_batch(data)))


def test_decode_rejects_invalid_utf8_in_a_header_key() -> None:
    body = b"\x00" + varint(0) + varint(0) + varint(-1) + varint(-1)
    body += varint(1) + varint(2) + b"\xff\xfe" + varint(0)
    data = with_records(_record(body), 1)
    with pytest.raises(CorruptRecordError):
        list(record.decode_records(data, 0, record.check_batch(data)))


def test_decode_rejects_fewer_records_than_counted() -> None:
    body = b"\x00" + varint(0) + varint(0) + varint(-1) + varint(1) + b"v" + varint(0)
    data = with_records(_record(body), 2)
    with pytest.raises(CorruptRecordError):
        list(record.decode_records(data, 0, record.check_batch(data)))


# -- properties ---------------------------------------------------------------------------------

blobs = st.none() | st.binary(max_size=64)
headers = st.lists(st.builds(Header, st.text(max_size=12), blobs), max_size=4)
records_st = st.lists(
    st.builds(Record, st.integers(-(2**40), 2**41), blobs, blobs, headers),
    min_size=1,
    max_size=20,
)
batch_args = st.fixed_dictionaries(
    {
        "producer_id": st.integers(-1, 2**63 - 1),
        "producer_epoch": st.integers(-1, 2**15 - 1),
        "base_sequence": st.integers(-1, 2**31 - 1),
        "attributes": st.sampled_from([0, record.TRANSACTIONAL_FLAG]),
    }
)
bases = st.integers(0, 2**62)


@PROPERTY
@given(bases, records_st, batch_args)
def test_property_encode_check_decode_is_identity(
    base: int, records: list[Record], kw: dict[str, int]
) -> None:
    data = record.encode_batch(base, records, **kw)
    h = record.check_batch(data)
    assert list(record.decode_records(data, 0, h)) == expected(base, records)
    assert h.size == len(data)
    assert h.next_offset == base + len(records)
    assert h.max_timestamp == max(r.timestamp for r in records)
    assert (h.producer_id, h.producer_epoch, h.base_sequence, h.attributes) == (
        kw["producer_id"],
        kw["producer_epoch"],
        kw["base_sequence"],
        kw["attributes"],
    )
    assert sum(record.record_size(r) for r in records) >= len(data) - record.HEADER_SIZE


# The CRC covers the batch from its attributes on, as Kafka's does; the base offset and the
# partition leader epoch before it are rewritten by whoever appends (the log checks that the
# base offsets follow each other), and the length is checked by the CRC's span.
UNCOVERED = set(range(0, 8)) | set(range(12, 16))


def _damaged_is_detected(data: bytes, damaged: bytes, base: int, records: list[Record]) -> None:
    """A damaged batch must fail check_batch; it must never decode into other records."""
    try:
        h = record.check_batch(damaged)
    except CorruptRecordError:
        return
    decoded = list(record.decode_records(damaged, 0, h))  # only reached if undetected
    assert decoded == expected(base, records), "damage decoded into different records"
    pytest.fail("a damaged batch passed check_batch")


@PROPERTY
@given(bases, records_st, st.data())
def test_property_any_single_byte_change_is_detected(
    base: int, records: list[Record], data_st: st.DataObject
) -> None:
    data = record.encode_batch(base, records)
    covered = [i for i in range(len(data)) if i not in UNCOVERED]
    pos = data_st.draw(st.sampled_from(covered), label="position")
    mode = data_st.draw(st.sampled_from(["flip", "random"]), label="mode")
    if mode == "flip":
        new = data[pos] ^ (1 << data_st.draw(st.integers(0, 7), label="bit"))
    else:
        new = data_st.draw(st.integers(0, 255).filter(lambda b: b != data[pos]), label="byte")
    damaged = data[:pos] + bytes([new]) + data[pos + 1 :]
    _damaged_is_detected(data, damaged, base, records)


@PROPERTY
@given(bases, records_st, st.data())
def test_property_truncation_at_any_length_is_detected(
    base: int, records: list[Record], data_st: st.DataObject
) -> None:
    data = record.encode_batch(base, records)
    n = data_st.draw(st.integers(0, len(data) - 1), label="length")
    with pytest.raises(CorruptRecordError):
        record.check_batch(data[:n])
    # and the same inside a longer buffer, at a non-zero position
    with pytest.raises(CorruptRecordError):
        record.check_batch(b"\x00" * 5 + data[:n], 5)


def test_every_bit_flip_and_every_truncation_of_one_batch_is_detected() -> None:
    records = [
        Record(1, b"k", b"v" * 20, [Header("é", None)]),
        Record(0, None, b""),
        Record(9, b"", None),
    ]
    data = record.encode_batch(77, records, producer_id=3, producer_epoch=1, base_sequence=4)
    for pos in range(len(data)):
        if pos in UNCOVERED:
            continue
        for bit in range(8):
            damaged = bytearray(data)
            damaged[pos] ^= 1 << bit
            _damaged_is_detected(data, bytes(damaged), 77, records)
        for byte in (0x00, 0xFF):
            if data[pos] != byte:
                _damaged_is_detected(
                    data, data[:pos] + bytes([byte]) + data[pos + 1 :], 77, records
                )
    for n in range(len(data)):
        with pytest.raises(CorruptRecordError):
            record.check_batch(data[:n])


# -- byte for byte against a batch a native Kafka client wrote ----------------------------------


def test_a_native_clients_batch_decodes_and_encodes_byte_for_byte() -> None:
    """tests/vectors holds a batch as a Kafka 4.4 broker stored it from a native client's
    produce (no idempotence, no compression): the codec reads every record of it, and encodes
    the same records into the same bytes (the broker set the leader epoch, 0)."""
    from tests.kafka.native import RECORDS, VECTOR_BIN

    native = VECTOR_BIN.read_bytes()
    h = record.check_batch(native)
    assert (h.magic, h.partition_leader_epoch, h.producer_id) == (2, 0, -1)
    got = list(record.decode_records(native, 0, h))
    assert [(r.key, r.value, r.timestamp) for r in got] == [
        (n.key, n.value, n.timestamp) for n in RECORDS
    ]
    assert [[(x.key, x.value) for x in r.headers] for r in got] == [
        [(k, v) for k, v in n.headers] for n in RECORDS
    ]
    ours = record.encode_batch(
        0,
        [
            Record(n.timestamp, n.key, n.value, [Header(k, v) for k, v in n.headers])
            for n in RECORDS
        ],
        leader_epoch=0,
    )
    assert ours == native
