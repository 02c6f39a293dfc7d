"""Bad input: the exact status and code, the error shape, nothing appended, server still fine.

Runs against an app with small limits: record 1 KiB, body 64 KiB, 10 records per request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from .helpers import assert_error, assert_healthy, b64, create_topic, produce, read, watermarks

TOPIC = "bad"


async def check_refused(c: httpx.AsyncClient, r: httpx.Response, status: int, code: str) -> None:
    assert_error(r, status, code)
    assert await watermarks(c, TOPIC) == [1, 0]
    await assert_healthy(c)
    # and the server still takes good requests
    r2 = await c.get(f"/v1/topics/{TOPIC}/partitions/0/records")
    assert [x["value"] for x in r2.json()["records"]] == ["seed"]


@pytest.fixture
async def c(small_client: httpx.AsyncClient) -> AsyncIterator[httpx.AsyncClient]:
    await create_topic(small_client, TOPIC, 2)
    await produce(small_client, TOPIC, [{"value": "seed", "partition": 0}])
    yield small_client


RAW_BODIES: dict[str, bytes] = {
    "not json": b"records: [1]",
    "truncated json": b'{"records": [{"value": "a"}',
    "empty": b"",
    "whitespace": b"  \n ",
    "array": b'[{"value": "a"}]',
    "string": b'"records"',
    "number": b"42",
    "null": b"null",
    "nan": b'{"records": [{"value": NaN}]}',
    "lone surrogate": b'{"records": [{"value": "\\ud800"}]}',
    "invalid utf-8": b'{"records": [{"value": "\xff"}]}',
}


@pytest.mark.parametrize("name", list(RAW_BODIES))
async def test_malformed_body(c: httpx.AsyncClient, name: str) -> None:
    r = await c.post(f"/v1/topics/{TOPIC}/records", content=RAW_BODIES[name])
    await check_refused(c, r, 400, "INVALID_REQUEST")


BAD_BODIES: dict[str, Any] = {
    "records missing": {},
    "records null": {"records": None},
    "records empty": {"records": []},
    "records an object": {"records": {"value": "a"}},
    "records a string": {"records": "a"},
    "record a string": {"records": ["a"]},
    "record null": {"records": [None]},
    "record a list": {"records": [["value", "a"]]},
    "second record not an object": {"records": [{"value": "a"}, 5]},
    "utf8 value a number": {"records": [{"value": 5}]},
    "utf8 value an object": {"records": [{"value": {"a": 1}}]},
    "utf8 value a bool": {"records": [{"value": True}]},
    "utf8 key a number": {"records": [{"key": 1, "value": "a"}]},
    "base64 value a number": {"records": [{"value": 5}], "encoding": "base64"},
    "base64 value a list": {"records": [{"value": ["AA=="]}], "encoding": "base64"},
    "invalid base64": {"records": [{"value": "!!!not base64"}], "encoding": "base64"},
    "base64 missing padding": {"records": [{"value": "QUI"}], "encoding": "base64"},
    "invalid base64 key": {"records": [{"key": "@@", "value": "QQ=="}], "encoding": "base64"},
    "invalid base64 in one record": {
        "records": [{"value": "QQ=="}, {"value": "Q"}],
        "encoding": "base64",
    },
    "unknown encoding": {"records": [{"value": "a"}], "encoding": "rot13"},
    "encoding a number": {"records": [{"value": "a"}], "encoding": 8},
    "encoding a list": {"records": [{"value": "a"}], "encoding": ["utf8"]},
    "unknown record encoding": {"records": [{"value": "a", "encoding": "hex"}]},
    "headers an object": {"records": [{"value": "a", "headers": {"k": "v"}}]},
    "headers a string": {"records": [{"value": "a", "headers": "k=v"}]},
    "header not an object": {"records": [{"value": "a", "headers": ["k"]}]},
    "header without key": {"records": [{"value": "a", "headers": [{"value": "v"}]}]},
    "header key a number": {"records": [{"value": "a", "headers": [{"key": 1, "value": "v"}]}]},
    "header key null": {"records": [{"value": "a", "headers": [{"key": None, "value": "v"}]}]},
    "header value wrong type": {"records": [{"value": "a", "headers": [{"key": "k", "value": 5}]}]},
    "header value invalid base64": {
        "records": [{"value": "QQ==", "headers": [{"key": "k", "value": "*"}]}],
        "encoding": "base64",
    },
    "negative partition": {"records": [{"value": "a", "partition": -1}]},
    "bool partition": {"records": [{"value": "a", "partition": True}]},
    "false partition": {"records": [{"value": "a", "partition": False}]},
    "string partition": {"records": [{"value": "a", "partition": "0"}]},
    "float partition": {"records": [{"value": "a", "partition": 0.5}]},
    "huge partition": {"records": [{"value": "a", "partition": 2**31}]},
    "negative timestamp": {"records": [{"value": "a", "timestamp": -1}]},
    "bool timestamp": {"records": [{"value": "a", "timestamp": True}]},
    "string timestamp": {"records": [{"value": "a", "timestamp": "1700000000000"}]},
    "float timestamp": {"records": [{"value": "a", "timestamp": 1.5}]},
    "huge timestamp": {"records": [{"value": "a", "timestamp": 2**63}]},
}


@pytest.mark.parametrize("name", list(BAD_BODIES))
async def test_invalid_produce_body(c: httpx.AsyncClient, name: str) -> None:
    r = await c.post(f"/v1/topics/{TOPIC}/records", json=BAD_BODIES[name])
    await check_refused(c, r, 400, "INVALID_REQUEST")


async def test_bad_record_after_good_ones_appends_nothing(c: httpx.AsyncClient) -> None:
    body = {
        "records": [
            {"value": "ok", "partition": 1},
            {"value": "ok2"},
            {"value": "x", "timestamp": -5},
        ]
    }
    r = await c.post(f"/v1/topics/{TOPIC}/records", json=body)
    await check_refused(c, r, 400, "INVALID_REQUEST")


# -- limits -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "record",
    [
        {"value": "x" * 2000},
        {"key": "k" * 1100, "value": None},
        {"key": "k" * 600, "value": "v" * 600},
        {"value": "v", "headers": [{"key": "h", "value": "x" * 1100}]},
        {"value": "v", "headers": [{"key": "h" * 1100, "value": None}]},
        {"value": "v", "headers": [{"key": f"h{i}", "value": "x" * 100} for i in range(12)]},
    ],
    ids=["value", "key", "key+value", "header value", "header key", "many headers"],
)
async def test_record_too_large(c: httpx.AsyncClient, record: dict[str, Any]) -> None:
    r = await c.post(f"/v1/topics/{TOPIC}/records", json={"records": [{"value": "ok"}, record]})
    await check_refused(c, r, 413, "RECORD_TOO_LARGE")


async def test_record_too_large_in_base64_and_json(c: httpx.AsyncClient) -> None:
    r = await c.post(
        f"/v1/topics/{TOPIC}/records",
        json={"records": [{"value": b64(b"\x00" * 1500)}], "encoding": "base64"},
    )
    await check_refused(c, r, 413, "RECORD_TOO_LARGE")
    r = await c.post(
        f"/v1/topics/{TOPIC}/records",
        json={"records": [{"value": list(range(400))}], "encoding": "json"},
    )
    await check_refused(c, r, 413, "RECORD_TOO_LARGE")


async def test_records_under_the_record_limit_are_taken(c: httpx.AsyncClient) -> None:
    got = await produce(c, TOPIC, [{"value": "x" * 900, "partition": 1}])
    assert got[0]["offset"] == 0
    assert (await read(c, TOPIC, 1))["records"][0]["value"] == "x" * 900


async def test_body_larger_than_max_request_bytes(c: httpx.AsyncClient) -> None:
    body = orjson.dumps({"records": [{"value": "a"}], "pad": "p" * (64 * 1024)})
    r = await c.post(f"/v1/topics/{TOPIC}/records", content=body)
    await check_refused(c, r, 413, "REQUEST_TOO_LARGE")


async def test_streamed_body_larger_than_max_request_bytes(c: httpx.AsyncClient) -> None:
    """Without a Content-Length (chunked), the limit still holds while reading."""

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"records": [{"value": "a"}], "pad": "'
        for _ in range(20):
            yield b"p" * 4096
        yield b'"}'

    r = await c.post(f"/v1/topics/{TOPIC}/records", content=chunks())
    await check_refused(c, r, 413, "REQUEST_TOO_LARGE")


async def test_topic_bodies_larger_than_max_request_bytes(c: httpx.AsyncClient) -> None:
    big = orjson.dumps({"name": "big", "pad": "p" * (64 * 1024)})
    assert_error(await c.post("/v1/topics", content=big), 413, "REQUEST_TOO_LARGE")
    assert_error(await c.get("/v1/topics/big"), 404, "UNKNOWN_TOPIC_OR_PARTITION")


async def test_more_records_than_the_limit(c: httpx.AsyncClient) -> None:
    r = await c.post(f"/v1/topics/{TOPIC}/records", json={"records": [{"value": "a"}] * 11})
    await check_refused(c, r, 413, "REQUEST_TOO_LARGE")
    got = await produce(c, TOPIC, [{"value": "a", "partition": 1}] * 10)
    assert [o["offset"] for o in got] == list(range(10))


async def test_unknown_topic_is_404(c: httpx.AsyncClient) -> None:
    r = await c.post("/v1/topics/nope/records", json={"records": [{"value": "a"}]})
    await check_refused(c, r, 404, "UNKNOWN_TOPIC_OR_PARTITION")


async def test_unknown_partition_is_404(c: httpx.AsyncClient) -> None:
    r = await c.post(
        f"/v1/topics/{TOPIC}/records", json={"records": [{"value": "a", "partition": 2}]}
    )
    await check_refused(c, r, 404, "UNKNOWN_TOPIC_OR_PARTITION")


# -- query and path parameters ------------------------------------------------------------------


@pytest.mark.parametrize(
    "path,params",
    [
        ("partitions/0/records", {"offset": "-1"}),
        ("partitions/0/records", {"offset": "abc"}),
        ("partitions/0/records", {"offset": "1.5"}),
        ("partitions/0/records", {"max_records": "abc"}),
        ("partitions/0/records", {"max_records": "0"}),
        ("partitions/0/records", {"max_records": "-5"}),
        ("partitions/0/records", {"max_bytes": "0"}),
        ("partitions/0/records", {"max_bytes": "lots"}),
        ("partitions/0/records", {"max_wait_ms": "-1"}),
        ("partitions/0/records", {"max_wait_ms": "soon"}),
        ("partitions/0/records", {"encoding": "hex"}),
        ("partitions/0/records", {"isolation_level": "read_whatever"}),
        ("partitions/x/records", {}),
        ("partitions/x/offsets", {}),
        ("partitions/-1/records", {}),
        ("partitions/-1/offsets", {}),
        ("partitions/2147483648/records", {}),
        ("partitions/2147483648/offsets", {}),
        ("partitions/0/offsets", {"isolation_level": "none"}),
        ("partitions/0/offsets", {"at": "whenever"}),
    ],
    ids=lambda v: str(v),
)
async def test_bad_query_or_path_params(
    c: httpx.AsyncClient, path: str, params: dict[str, str]
) -> None:
    r = await c.get(f"/v1/topics/{TOPIC}/{path}", params=params)
    await check_refused(c, r, 400, "INVALID_REQUEST")


async def test_wrong_method_and_unknown_route(c: httpx.AsyncClient) -> None:
    r = await c.put(f"/v1/topics/{TOPIC}/records", json={"records": [{"value": "a"}]})
    await check_refused(c, r, 405, "METHOD_NOT_ALLOWED")
    r = await c.post(f"/v1/topics/{TOPIC}/partitions/0/records", json={"records": [{"value": "a"}]})
    await check_refused(c, r, 405, "METHOD_NOT_ALLOWED")
    r = await c.post(f"/v1/topic/{TOPIC}/records", json={"records": [{"value": "a"}]})
    await check_refused(c, r, 404, "NOT_FOUND")


async def test_stored_json_deeper_than_the_encoder_goes_reads_back_as_json(
    c: httpx.AsyncClient,
) -> None:
    """A value sent as text may be JSON nested deeper than the answer's encoder goes (255
    levels): read with encoding=json, by offset and by a share fetch, it is answered as stored,
    not a 500."""
    deep = "[" * 400 + "1" + "]" * 400
    [placed] = await produce(c, TOPIC, [{"value": deep, "partition": 1}])
    got = await read(c, TOPIC, 1, offset=placed["offset"], encoding="json")
    value = got["records"][0]["value"]
    for _ in range(400):
        (value,) = value
    assert value == 1
    r = await c.patch("/v1/share-groups/deep/config", json={"auto_offset_reset": "earliest"})
    assert r.status_code == 200, r.text
    r = await c.post(
        "/v1/share-groups/deep/fetch",
        json={"subscribed_topics": [TOPIC], "encoding": "json", "max_records": 10},
    )
    assert r.status_code == 200, r.text
    assert len(r.json()["records"]) == 2  # the seed and the deep one
    await assert_healthy(c)
