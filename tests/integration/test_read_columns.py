"""Reads with ``format=columns``: the same records as the JSON answer, in the binary layout of
docs/api.md#read-columns, decoded here with nothing but ``struct``."""

from __future__ import annotations

import base64
import struct
from typing import Any

import httpx
import orjson

from .helpers import create_topic, produce, read


def decode(body: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The meta and the records of a columns answer, as the JSON answer writes them (base64)."""
    assert body[:8] == b"SLCB\x01\x00\x00\x00"
    (n,) = struct.unpack_from("<Q", body, 8)
    assert (16 + n) % 8 == 0 or body[16 + n : 16 + n + (-n % 8)] == b"\0" * (-n % 8)
    meta = orjson.loads(body[16 : 16 + n])
    pos = 16 + n + (-n % 8)
    bufs = []
    for _ in range(14):
        assert pos % 8 == 0  # every buffer starts 8-aligned
        (size,) = struct.unpack_from("<Q", body, pos)
        bufs.append(body[pos + 8 : pos + 8 + size])
        pos += 8 + size + (-size % 8)
    assert pos == len(body)
    count = meta["records"]

    def ints(b: bytes, code: str) -> list[int]:
        return list(struct.unpack(f"<{len(b) // struct.calcsize(code)}{code}", b))

    def strings(valid: bytes | None, offs: bytes, data: bytes, k: int) -> list[bytes | None]:
        o = ints(offs, "i")
        assert len(o) == k + 1
        return [
            None
            if valid is not None and not valid[i // 8] >> (i % 8) & 1
            else data[o[i] : o[i + 1]]
            for i in range(k)
        ]

    m = len(bufs[9]) // 4 - 1
    keys = strings(bufs[2], bufs[3], bufs[4], count)
    values = strings(bufs[5], bufs[6], bufs[7], count)
    per = ints(bufs[8], "i")
    h_keys = strings(None, bufs[9], bufs[10], m)
    h_values = strings(bufs[11], bufs[12], bufs[13], m)

    def b64(v: bytes | None) -> str | None:
        return None if v is None else base64.b64encode(v).decode()

    records = [
        {
            "offset": off,
            "timestamp": ts,
            "key": b64(keys[i]),
            "value": b64(values[i]),
            "headers": [
                {"key": (h_keys[j] or b"").decode(), "value": b64(h_values[j])}
                for j in range(per[i], per[i + 1])
            ],
        }
        for i, (off, ts) in enumerate(zip(ints(bufs[0], "q"), ints(bufs[1], "q"), strict=True))
    ]
    return meta, records


async def _columns(client: httpx.AsyncClient, topic: str, **params: Any) -> httpx.Response:
    r = await client.get(
        f"/v1/topics/{topic}/partitions/0/records", params={**params, "format": "columns"}
    )
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/vnd.sluice.columns"
    return r


async def test_columns_carry_what_the_json_answer_carries(client: httpx.AsyncClient) -> None:
    await create_topic(client, "c")
    await produce(
        client,
        "c",
        [
            {"key": "k0", "value": "v0", "headers": [{"key": "h", "value": "x"}]},
            {"key": None, "value": None},
            {"value": base64.b64encode(bytes(range(256))).decode(), "encoding": "base64"},
            {
                "key": "",
                "value": "",
                "headers": [{"key": "a", "value": None}, {"key": "b", "value": "y"}],
            },
        ],
    )
    want = await read(client, "c", offset=0, encoding="base64")
    meta, records = decode((await _columns(client, "c", offset=0)).content)
    assert meta == {k: v for k, v in want.items() if k != "records"} | {"records": 4}
    assert records == [
        {k: v for k, v in r.items() if k not in ("topic", "partition")} for r in want["records"]
    ]
    # paging, limits and the bounds work as for JSON
    meta, records = decode((await _columns(client, "c", offset=1, max_records=2)).content)
    assert [r["offset"] for r in records] == [1, 2] and meta["next_offset"] == 3


async def test_an_empty_answer_and_read_committed(client: httpx.AsyncClient) -> None:
    await create_topic(client, "e")
    meta, records = decode((await _columns(client, "e", offset=0)).content)
    assert records == [] and meta["records"] == 0 and meta["next_offset"] == 0
    pid = (await client.post("/v1/producers", json={"transactional_id": "col-t"})).json()
    r = await client.post(
        "/v1/produce",
        json={
            **pid,
            "transactional_id": "col-t",
            "batches": [
                {"topic": "e", "partition": 0, "base_sequence": 0, "records": [{"value": "a"}]}
            ],
        },
    )
    assert r.json()["batches"][0]["error"] is None
    await produce(client, "e", [{"value": "after"}])
    meta, records = decode(
        (await _columns(client, "e", offset=0, isolation_level="read_committed")).content
    )
    assert records == [] and meta["last_stable_offset"] == 0
    await client.post("/v1/transactions/col-t/abort", json=pid)
    meta, records = decode(
        (await _columns(client, "e", offset=0, isolation_level="read_committed")).content
    )
    assert [base64.b64decode(r["value"] or "") for r in records] == [b"after"]
    assert records[0]["offset"] == 1  # the aborted record is left out, a gap


async def test_an_unknown_format_is_refused(client: httpx.AsyncClient) -> None:
    await create_topic(client, "f")
    r = await client.get("/v1/topics/f/partitions/0/records", params={"format": "xml"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "INVALID_REQUEST"
