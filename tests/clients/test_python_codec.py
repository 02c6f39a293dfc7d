"""The Python client's codec of record batches (clients/python, ``sluice._codec``), without a
server: the batch a native Kafka client wrote (tests/vectors) decoded, and its records encoded
to the same bytes; round trips of what the producer sends; the envelope; damage refused."""

from __future__ import annotations

import concurrent.futures
import json
import struct
from typing import Any

import google_crc32c
import pytest
from sluice import _codec
from sluice._batches import Batches, Headers, RecordMetadata, Value, batch_record
from sluice.errors import CorruptMessageError

from tests.kafka.native import RECORDS, VECTOR_BIN


def envelope(head: dict[str, Any], *batches: bytes) -> bytes:
    meta = json.dumps(head).encode()
    pad = b"\x00" * (-len(meta) % 8)
    return b"SLRB\x01\x00\x00\x00" + struct.pack("<Q", len(meta)) + meta + pad + b"".join(batches)


def test_the_native_batch_decodes_to_its_records() -> None:
    data = VECTOR_BIN.read_bytes()
    ((h, start),) = list(_codec.batches(data))
    assert start == 0
    assert (h.base_offset, h.partition_leader_epoch, h.magic, h.record_count) == (0, 0, 2, 4)
    assert (h.producer_id, h.producer_epoch, h.base_sequence) == (-1, -1, -1)
    assert not h.is_control and h.size == len(data)
    got = [(r.offset, r.key, r.value, r.headers, r.timestamp) for r in _codec.records(data, 0, h)]
    assert got == [(i, n.key, n.value, list(n.headers), n.timestamp) for i, n in enumerate(RECORDS)]


def test_the_native_batchs_records_encode_to_its_bytes() -> None:
    records: list[_codec.Record] = [(n.timestamp, n.key, n.value, list(n.headers)) for n in RECORDS]
    # the broker set the leader epoch (0) when it appended the batch; the client leaves -1
    assert _codec.encode_batch(records, leader_epoch=0) == VECTOR_BIN.read_bytes()
    mine = _codec.encode_batch(records)
    assert mine[12:16] == b"\xff\xff\xff\xff" and mine[16:] == VECTOR_BIN.read_bytes()[16:]


def test_a_producers_batch_round_trips() -> None:
    batches = Batches(10)
    sends: list[tuple[Value, Value, Headers, int | None]] = [
        ("text", None, None, None),
        (b"\x00\xff", "k", {"h": "v", "n": None}, 5),
        (None, b"key", [("a", b"\x01"), ("a", "again")], 1_700_000_000_000),
    ]
    for value, key, headers, ts in sends:
        batches.add("t", 0, batches.prepare(value, key, headers, ts), None)
    (b,) = batches.take()
    b.base_sequence = 7
    (call,) = batches.calls(42, 3, [b], tid="tx")
    assert call.path == "/v1/topics/t/partitions/0/batches"
    assert call.params == {"transactional_id": "tx"} and call.safe
    assert call.headers == {"content-type": "application/vnd.sluice.record-batch"}
    data = call.content
    assert data is not None and data is b.data
    ((h, _),) = list(_codec.batches(data))
    assert (h.producer_id, h.producer_epoch, h.base_sequence, h.record_count) == (42, 3, 7, 3)
    assert h.attributes == _codec.TRANSACTIONAL
    got = [(r.value, r.key, r.headers) for r in _codec.records(data, 0, h)]
    assert got == [
        (b"text", None, []),
        (b"\x00\xff", b"k", [("h", b"v"), ("n", None)]),
        (None, b"key", [("a", b"\x01"), ("a", b"again")]),
    ]
    stamps = [r.timestamp for r in _codec.records(data, 0, h)]
    # without a timestamp, the time of the encoding
    assert stamps[1:] == [5, 1_700_000_000_000] and stamps[0] > 1_700_000_000_000
    assert (h.base_timestamp, h.max_timestamp) == (stamps[0], max(stamps))
    # a second request for the same batch (a retry) carries the very same bytes
    (again,) = batches.calls(42, 3, [b], tid="tx")
    assert again.content is data


def test_an_idempotent_batch_is_not_transactional() -> None:
    batches = Batches(10)
    batches.add("my topic", 3, batch_record("v", None, None, 1), None)
    (call,) = batches.calls(9, 0, batches.take())
    assert call.path == "/v1/topics/my%20topic/partitions/3/batches" and call.params is None
    assert call.content is not None
    ((h, _),) = list(_codec.batches(call.content))
    assert (h.attributes, h.producer_id, h.base_sequence) == (0, 9, 0)


def test_an_answer_settles_every_future_but_a_cancelled_one() -> None:
    batches = Batches(10)
    futures: list[concurrent.futures.Future[RecordMetadata]] = []
    for i in range(3):
        futures.append(concurrent.futures.Future())
        batches.add("t", 0, batch_record(f"v{i}", None, None, 1), futures[-1])
    batches.add("t", 0, batch_record("none", None, None, 1), None)
    assert futures[1].cancel()
    taken = batches.take()
    assert not batches.answered(taken, [{"batches": [{"base_offset": 40, "error": None}]}])
    assert futures[0].result(timeout=0) == RecordMetadata("t", 0, 40)
    assert futures[1].cancelled()
    assert futures[2].result(timeout=0) == RecordMetadata("t", 0, 42)
    assert batches.sequences[("t", 0)] == 4


def test_the_envelope_and_several_batches() -> None:
    one = _codec.encode_batch([(1, None, b"a", []), (2, None, b"b", [])])
    two = bytearray(_codec.encode_batch([(3, None, b"c", [])]))
    struct.pack_into(">q", two, 0, 2)  # the base offset the server set
    head = {"next_offset": 3, "batches": 2}
    answer = _codec.open_envelope(envelope(head, one, bytes(two)))
    assert answer.head == head
    walked = [(h.base_offset, pos) for h, pos in _codec.batches(answer.data, answer.start)]
    assert walked == [(0, answer.start), (2, answer.start + len(one))]
    values = [
        (r.offset, r.value)
        for h, pos in _codec.batches(answer.data, answer.start)
        for r in _codec.records(answer.data, pos, h)
    ]
    assert values == [(0, b"a"), (1, b"b"), (2, b"c")]
    empty = _codec.open_envelope(envelope({"batches": 0}))
    assert list(_codec.batches(empty.data, empty.start)) == []


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:-1],  # truncated
        lambda b: b[:30] + bytes([b[30] ^ 1]) + b[31:],  # a byte the CRC covers
        lambda b: b[:16] + b"\x01" + b[17:],  # magic
        lambda b: b + b"\x00" * 3,  # trailing bytes
    ],
    ids=["truncated", "crc", "magic", "trailing"],
)
def test_a_damaged_batch_is_refused(damage: object) -> None:
    assert callable(damage)
    data = damage(VECTOR_BIN.read_bytes())
    with pytest.raises(CorruptMessageError):
        for h, pos in _codec.batches(data):
            _codec.records(data, pos, h)


def test_a_body_that_is_not_the_envelope_is_refused() -> None:
    with pytest.raises(CorruptMessageError):
        _codec.open_envelope(b'{"records": []}')
    with pytest.raises(CorruptMessageError):
        _codec.open_envelope(b"SLRB\x01\x00\x00\x00" + struct.pack("<Q", 99) + b"{}")


def _with(data: bytes, at: int, fmt: str, value: int) -> bytes:
    """``data`` with one field of the batch's header set, its CRC made again."""
    out = bytearray(data)
    struct.pack_into(fmt, out, at, value)
    struct.pack_into(">I", out, 17, google_crc32c.value(bytes(out[21:])))
    return bytes(out)


def test_a_batch_that_compaction_thinned_is_read() -> None:
    data = VECTOR_BIN.read_bytes()
    # its last offset kept beyond its records, as Kafka's compaction leaves a batch
    thinned = _with(data, 23, ">i", 9)
    ((h, pos),) = list(_codec.batches(thinned))
    assert h.last_offset_delta == 9 and h.record_count == 4
    assert [r.value for r in _codec.records(thinned, pos, h)] == [n.value for n in RECORDS]
    # a producer's last batch kept empty for its sequence: the header alone
    empty = _with(_with(data[:61], 8, ">i", 61 - 12), 57, ">i", 0)
    ((h, pos),) = list(_codec.batches(empty))
    assert h.record_count == 0 and _codec.records(empty, pos, h) == []
    # more records than offsets: refused
    with pytest.raises(CorruptMessageError, match="record count"):
        list(_codec.batches(_with(data, 57, ">i", 11)))
