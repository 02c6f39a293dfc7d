"""Reading record batches as stored (docs/api.md#read-batches): the envelope, whole batches
from the one holding the offset, the limits, and read_committed leaving out aborted batches and
markers."""

from __future__ import annotations

import asyncio
import struct
from typing import Any

import httpx
import orjson
import pytest

from app.storage import record

from .helpers import create_topic, produce


def open_envelope(body: bytes) -> tuple[dict[str, Any], list[record.BatchHeader], list[Any]]:
    """The head, the batch headers and the records of an answer of batches."""
    assert body[:8] == b"SLRB\x01\x00\x00\x00"
    (n,) = struct.unpack_from("<Q", body, 8)
    head = orjson.loads(body[16 : 16 + n])
    pos = 16 + n + (-n % 8)
    headers, records = [], []
    while pos < len(body):
        h = record.check_batch(body, pos)
        headers.append(h)
        records += list(record.decode_records(body, pos, h))
        pos += h.size
    assert len(headers) == head.get("batches", len(headers))
    return head, headers, records


async def read_batches(
    c: httpx.AsyncClient, **params: Any
) -> tuple[dict[str, Any], list[Any], list[Any]]:
    r = await c.get("/v1/topics/t/partitions/0/records", params={"format": "batches", **params})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/vnd.sluice.batches"
    return open_envelope(r.content)


@pytest.fixture
async def c(client: httpx.AsyncClient) -> httpx.AsyncClient:
    await create_topic(client, "t")
    for i in range(4):  # four batches of three records
        await produce(client, "t", [{"value": f"{i}.{j}", "partition": 0} for j in range(3)])
    return client


async def test_whole_batches_from_the_one_holding_the_offset(c: httpx.AsyncClient) -> None:
    head, headers, records = await read_batches(c)
    assert [h.base_offset for h in headers] == [0, 3, 6, 9]
    assert [r.value for r in records] == [f"{i}.{j}".encode() for i in range(4) for j in range(3)]
    assert head == {
        "next_offset": 12,
        "high_watermark": 12,
        "last_stable_offset": 12,
        "log_start_offset": 0,
        "batches": 4,
    }
    json_read = (await c.get("/v1/topics/t/partitions/0/records")).json()["records"]
    assert [r.offset for r in records] == [r["offset"] for r in json_read]
    # from the middle of a batch: the batch is whole, the reader skips what is below
    head, headers, _ = await read_batches(c, offset=4, max_records=2)
    assert [h.base_offset for h in headers] == [3] and head["next_offset"] == 6
    head, headers, _ = await read_batches(c, offset=4, max_records=3)
    assert [h.base_offset for h in headers] == [3, 6] and head["next_offset"] == 9
    # max_bytes: at least one batch, then whole batches within it
    one = headers[0].size
    head, headers, _ = await read_batches(c, max_bytes=1)
    assert len(headers) == 1 and head["next_offset"] == 3
    head, headers, _ = await read_batches(c, max_bytes=2 * one)
    assert len(headers) == 2
    head, headers, _ = await read_batches(c, offset=12)
    assert headers == [] and head["next_offset"] == 12


async def test_read_committed_leaves_out_aborted_batches_and_markers(c: httpx.AsyncClient) -> None:
    async def txn(values: list[str], end: str | None) -> None:
        tx = (await c.post("/v1/producers", json={"transactional_id": "x"})).json()
        batch = {
            "topic": "t",
            "partition": 0,
            "base_sequence": 0,
            "records": [{"value": v} for v in values],
        }
        r = await c.post("/v1/produce", json={**tx, "transactional_id": "x", "batches": [batch]})
        assert r.json()["batches"][0]["error"] is None, r.text
        if end is not None:
            assert (await c.post(f"/v1/transactions/x/{end}", json=tx)).status_code == 200

    await txn(["kept"], "commit")  # 12, marker 13
    await txn(["gone"], "abort")  # 14, marker 15
    await txn(["open"], None)  # 16: holds the last stable offset
    head, headers, records = await read_batches(c, offset=12, isolation_level="read_committed")
    assert [r.value for r in records] == [b"kept"]
    assert head["last_stable_offset"] == head["next_offset"] == 16
    assert all(not h.is_control for h in headers)
    _, headers, records = await read_batches(c, offset=12)
    assert [r.value for r in records] == [b"kept", b"gone", b"open"]  # markers never


async def test_a_long_poll_answers_the_batch_that_arrives(c: httpx.AsyncClient) -> None:
    waiting = asyncio.create_task(read_batches(c, offset=12, max_wait_ms=10_000))
    while not waiting.done():
        await produce(c, "t", [{"value": "late", "partition": 0}])
        await asyncio.wait([waiting], timeout=0.05)
    _, _, records = waiting.result()
    assert records[0].value == b"late"
