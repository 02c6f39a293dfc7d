"""Producing record batches as they are (docs/api.md#produce-batches): the server checks each
batch as Kafka's broker does, appends the bytes it received (base offset set), and a request with
any batch refused stores none."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import google_crc32c
import httpx
import pytest

from app.config import Settings
from app.storage import record
from app.storage.record import Header, Record

from .conftest import running
from .helpers import assert_error, create_topic, watermarks

MEDIA = {"content-type": "application/vnd.sluice.record-batch"}
URL = "/v1/topics/t/partitions/0/batches"


def batch(*values: bytes, ts: int = 1_700_000_000_000, **kw: Any) -> bytes:
    return record.encode_batch(
        0, [Record(ts + i, b"k" if i % 2 else None, v) for i, v in enumerate(values)], **kw
    )


def recrc(data: bytes | bytearray) -> bytes:
    data = bytearray(data)
    struct.pack_into(">I", data, 17, google_crc32c.value(bytes(data[21:])))
    return bytes(data)


def with_field(data: bytes, at: int, fmt: str, value: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, at, value)
    return recrc(out)


async def post(c: httpx.AsyncClient, body: bytes, url: str = URL, **params: str) -> httpx.Response:
    return await c.post(url, content=body, headers=MEDIA, params=params)


async def read(c: httpx.AsyncClient, **params: Any) -> list[dict[str, Any]]:
    r = await c.get("/v1/topics/t/partitions/0/records", params={"max_records": 1000, **params})
    assert r.status_code == 200, r.text
    return list(r.json()["records"])


@pytest.fixture
async def c(client: httpx.AsyncClient) -> httpx.AsyncClient:
    await create_topic(client, "t", 2)
    return client


async def test_batches_are_appended_as_they_were_sent(c: httpx.AsyncClient) -> None:
    first = batch(b"a", b"b", b"c")
    second = record.encode_batch(0, [Record(5, None, b"h", [Header("x", b"1"), Header("y", None)])])
    r = await post(c, first + second)
    assert r.status_code == 200, r.text
    assert r.json() == {
        "batches": [
            {"topic": "t", "partition": 0, "base_offset": 0, "error": None},
            {"topic": "t", "partition": 0, "base_offset": 3, "error": None},
        ]
    }
    got = await read(c)
    assert [(g["offset"], g["key"], g["value"]) for g in got] == [
        (0, None, "a"),
        (1, "k", "b"),
        (2, None, "c"),
        (3, None, "h"),
    ]
    assert got[3]["headers"] == [{"key": "x", "value": "1"}, {"key": "y", "value": None}]
    assert got[0]["timestamp"] == 1_700_000_000_000
    again = await post(c, first)
    assert again.json()["batches"][0]["base_offset"] == 4
    assert await watermarks(c, "t") == [7, 0]


async def test_the_bytes_in_the_log_are_the_bytes_received(
    settings_factory: Callable[..., Settings],
) -> None:
    async with running(settings_factory()) as s:
        await create_topic(s.client, "t")
        sent = batch(b"x" * 100, b"y")
        await post(s.client, sent)
        await post(s.client, sent)
        lg = s.broker.topics.get("t").log(0)
        seg = lg.active
        second = seg.read(len(sent), len(sent))
        assert second[:8] == struct.pack(">q", 2) and second[8:] == sent[8:]


@pytest.mark.parametrize(
    ("damage", "code"),
    [
        (lambda b: b[:-1], "CORRUPT_MESSAGE"),  # truncated
        (lambda b: b + b"\x00" * 3, "CORRUPT_MESSAGE"),  # trailing bytes
        (lambda b: b[:30] + bytes([b[30] ^ 1]) + b[31:], "CORRUPT_MESSAGE"),  # CRC
        (lambda b: with_field(b, 16, ">b", 1), "CORRUPT_MESSAGE"),  # magic
        (lambda b: with_field(b, 21, ">h", 1), "UNSUPPORTED_COMPRESSION_TYPE"),  # gzip
        (lambda b: with_field(b, 21, ">h", 0x08), "INVALID_RECORD"),  # log append time
        (lambda b: with_field(b, 21, ">h", 0x20), "INVALID_RECORD"),  # control
        (lambda b: with_field(b, 21, ">h", 0x40), "INVALID_RECORD"),  # delete horizon
        (lambda b: with_field(b, 35, ">q", 9), "INVALID_RECORD"),  # max timestamp lies
        (lambda b: with_field(b, 27, ">q", 9), "INVALID_RECORD"),  # base timestamp lies
        (lambda b: with_field(b, 53, ">h", 0), "INVALID_RECORD"),  # epoch without producer
        (lambda b: with_field(b, 55, ">i", 0), "INVALID_RECORD"),  # sequence without producer
    ],
    ids=[
        "truncated",
        "trailing",
        "crc",
        "magic",
        "compressed",
        "append-time",
        "control",
        "delete-horizon",
        "max-timestamp",
        "base-timestamp",
        "epoch",
        "sequence",
    ],
)
async def test_a_lying_or_malformed_batch_is_refused_and_nothing_is_stored(
    c: httpx.AsyncClient, damage: Callable[[bytes], bytes], code: str
) -> None:
    good = batch(b"a", b"b")
    r = await post(c, good + damage(batch(b"c", b"d")))
    assert_error(r, 400, code)
    assert await watermarks(c, "t") == [0, 0]  # not even the good first batch


async def test_records_whose_offset_deltas_do_not_follow_are_refused(c: httpx.AsyncClient) -> None:
    good = bytearray(batch(b"a", b"b"))
    # the second record's offset delta (after its length, attributes and timestamp delta)
    first_len = good[61] >> 1
    at = 61 + 1 + first_len + 1 + 1 + 1  # its length varint, attributes, timestamp delta (1)
    assert good[at] == 2  # zigzag(1)
    good[at] = 4  # zigzag(2)
    assert_error(await post(c, recrc(good)), 400, "INVALID_RECORD")


async def test_sizes_and_counts(settings_factory: Callable[..., Settings]) -> None:
    async with running(settings_factory(max_records_per_request=5)) as s:
        await create_topic(s.client, "t", config={"max_message_bytes": 100})
        assert_error(await post(s.client, batch(b"x" * 101)), 413, "RECORD_TOO_LARGE")
        assert_error(
            await post(s.client, batch(b"a", b"b", b"c") + batch(b"d", b"e", b"f")),
            413,
            "REQUEST_TOO_LARGE",
        )
        assert (await post(s.client, batch(b"x" * 90))).status_code == 200


async def test_wrong_content_type_partition_and_topic(c: httpx.AsyncClient) -> None:
    r = await c.post(URL, content=batch(b"a"), headers={"content-type": "application/json"})
    assert_error(r, 415, "UNSUPPORTED_MEDIA_TYPE")
    r = await c.post(URL, content=batch(b"a"))
    assert_error(r, 415, "UNSUPPORTED_MEDIA_TYPE")
    assert_error(await post(c, b""), 400, "INVALID_REQUEST")
    assert_error(
        await post(c, batch(b"a"), "/v1/topics/t/partitions/9/batches"),
        404,
        "UNKNOWN_TOPIC_OR_PARTITION",
    )
    assert_error(
        await post(c, batch(b"a"), "/v1/topics/t/partitions/-1/batches"), 400, "INVALID_REQUEST"
    )
    assert_error(
        await post(c, batch(b"a"), "/v1/topics/nope/partitions/0/batches"),
        404,
        "UNKNOWN_TOPIC_OR_PARTITION",
    )


async def test_an_idempotent_producer_s_batch(c: httpx.AsyncClient) -> None:
    pid = (await c.post("/v1/producers", json={})).json()["producer_id"]
    one = batch(b"a", b"b", producer_id=pid, producer_epoch=0, base_sequence=0)
    r = await post(c, one)
    assert r.json()["batches"][0]["base_offset"] == 0
    again = await post(c, one)  # a retry: its original offset, nothing appended
    assert again.json()["batches"][0]["base_offset"] == 0
    assert await watermarks(c, "t") == [2, 0]
    gap = batch(b"c", producer_id=pid, producer_epoch=0, base_sequence=5)
    assert_error(await post(c, gap), 409, "OUT_OF_ORDER_SEQUENCE_NUMBER")
    two = batch(b"c", producer_id=pid, producer_epoch=0, base_sequence=2)
    three = batch(b"d", producer_id=pid, producer_epoch=0, base_sequence=3)
    assert_error(await post(c, two + three), 400, "INVALID_RECORD")  # one batch a request
    assert (await post(c, two)).json()["batches"][0]["base_offset"] == 2
    never = batch(b"e", producer_id=pid + 1000, producer_epoch=0, base_sequence=0)
    assert_error(await post(c, never), 400, "UNKNOWN_PRODUCER_ID")
    assert [g["value"] for g in await read(c)] == ["a", "b", "c"]


async def test_a_transactional_producer_s_batch(c: httpx.AsyncClient) -> None:
    tx = (await c.post("/v1/producers", json={"transactional_id": "tx"})).json()
    pid, epoch = tx["producer_id"], tx["producer_epoch"]
    txb = batch(
        b"t1",
        b"t2",
        producer_id=pid,
        producer_epoch=epoch,
        base_sequence=0,
        attributes=record.TRANSACTIONAL_FLAG,
    )
    assert_error(await post(c, txb), 400, "INVALID_RECORD")  # no transactional_id
    plain = batch(b"p", producer_id=pid, producer_epoch=epoch, base_sequence=0)
    assert_error(await post(c, plain, transactional_id="tx"), 400, "INVALID_RECORD")
    assert_error(await post(c, plain), 409, "INVALID_TXN_STATE")
    r = await post(c, txb, transactional_id="tx")
    assert r.status_code == 200, r.text
    assert (await c.get("/v1/transactions/tx")).json()["state"] == "Ongoing"
    assert await read(c, isolation_level="read_committed") == []
    r = await c.post("/v1/transactions/tx/commit", json=tx)
    assert r.status_code == 200, r.text
    committed = await read(c, isolation_level="read_committed")
    assert [g["value"] for g in committed] == ["t1", "t2"]
    tx = r.json()
    aborted = batch(
        b"x",
        producer_id=pid,
        producer_epoch=tx["producer_epoch"],
        base_sequence=0,
        attributes=record.TRANSACTIONAL_FLAG,
    )
    assert (await post(c, aborted, transactional_id="tx")).status_code == 200
    assert (await c.post("/v1/transactions/tx/abort", json=tx)).status_code == 200
    assert [g["value"] for g in await read(c, isolation_level="read_committed")] == ["t1", "t2"]


async def test_a_batch_a_native_kafka_client_wrote_is_taken_as_it_is(c: httpx.AsyncClient) -> None:
    from tests.kafka.native import RECORDS, VECTOR_BIN

    r = await post(c, VECTOR_BIN.read_bytes())
    assert r.status_code == 200, r.text
    got = await read(c, encoding="base64")
    assert len(got) == len(RECORDS)
    assert [g["timestamp"] for g in got] == [n.timestamp for n in RECORDS]
