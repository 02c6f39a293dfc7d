"""Topics: create, list, describe, alter, delete, delete-records, and their refusals."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from app.partitioner import partition_for_key
from app.topics import TOPIC_CONFIG

from .helpers import (
    assert_error,
    assert_healthy,
    create_topic,
    describe,
    produce,
    read,
    watermarks,
)

DEFAULTS = {k: spec.default for k, spec in TOPIC_CONFIG.items()}


def empty_partitions(n: int) -> list[dict[str, int]]:
    return [
        {"partition": p, "log_start_offset": 0, "high_watermark": 0, "last_stable_offset": 0}
        for p in range(n)
    ]


async def test_create_answers_201_with_description(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/v1/topics", json={"name": "orders", "partitions": 3, "config": {"retention_ms": 60_000}}
    )
    assert r.status_code == 201
    assert r.json() == {
        "name": "orders",
        "config": {**DEFAULTS, "retention_ms": 60_000},
        "partitions": empty_partitions(3),
    }
    assert await describe(client, "orders") == r.json()


async def test_create_defaults_to_one_partition(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/topics", json={"name": "plain"})
    assert r.status_code == 201
    assert r.json() == {"name": "plain", "config": DEFAULTS, "partitions": empty_partitions(1)}


@pytest.mark.parametrize("name", ["a", "A-z_0.9", "x" * 249, "..."])
async def test_valid_names(client: httpx.AsyncClient, name: str) -> None:
    assert (await create_topic(client, name))["name"] == name
    assert (await describe(client, name))["name"] == name


async def test_list_topics(client: httpx.AsyncClient) -> None:
    assert (await client.get("/v1/topics")).json() == {"topics": []}
    await create_topic(client, "b", 2)
    await create_topic(client, "a", 1)
    r = await client.get("/v1/topics")
    assert r.status_code == 200
    assert r.json() == {"topics": [{"name": "a", "partitions": 1}, {"name": "b", "partitions": 2}]}


async def test_describe_reports_offsets(client: httpx.AsyncClient) -> None:
    await create_topic(client, "d", 2)
    await produce(client, "d", [{"value": str(i), "partition": 1} for i in range(3)])
    d = await describe(client, "d")
    assert d["partitions"] == [
        {"partition": 0, "log_start_offset": 0, "high_watermark": 0, "last_stable_offset": 0},
        {"partition": 1, "log_start_offset": 0, "high_watermark": 3, "last_stable_offset": 3},
    ]


async def test_describe_unknown_topic(client: httpx.AsyncClient) -> None:
    assert_error(await client.get("/v1/topics/ghost"), 404, "UNKNOWN_TOPIC_OR_PARTITION")


async def test_duplicate_create_is_409(client: httpx.AsyncClient) -> None:
    await create_topic(client, "dup", 2)
    await produce(client, "dup", [{"value": "kept", "partition": 1}])
    err = assert_error(
        await client.post("/v1/topics", json={"name": "dup", "partitions": 5}),
        409,
        "TOPIC_ALREADY_EXISTS",
    )
    assert err["retriable"] is False
    assert await watermarks(client, "dup") == [0, 1]


async def test_concurrent_creates_of_one_name_create_once(client: httpx.AsyncClient) -> None:
    rs = await asyncio.gather(
        *(client.post("/v1/topics", json={"name": "race", "partitions": 2}) for _ in range(5))
    )
    assert sorted(r.status_code for r in rs) == [201, 409, 409, 409, 409]
    assert (await client.get("/v1/topics")).json() == {
        "topics": [{"name": "race", "partitions": 2}]
    }


@pytest.mark.parametrize(
    "name",
    [
        "",
        "x" * 250,
        "a/b",
        "a b",
        " a",
        "é",
        "a\tb",
        ".",
        "..",
        None,
        5,
        True,
        ["a"],
        {"n": "a"},
    ],
    ids=repr,
)
async def test_invalid_topic_names(client: httpx.AsyncClient, name: Any) -> None:
    r = await client.post("/v1/topics", json={"name": name, "partitions": 1})
    assert_error(r, 400, "INVALID_TOPIC")
    assert (await client.get("/v1/topics")).json() == {"topics": []}


async def test_topic_name_with_trailing_newline_is_refused(client: httpx.AsyncClient) -> None:
    """Names are 1-249 characters of [A-Za-z0-9._-]; a trailing newline is none of them."""
    for name in ("a\n", "x" * 249 + "\n"):
        r = await client.post("/v1/topics", json={"name": name, "partitions": 1})
        assert_error(r, 400, "INVALID_TOPIC")
    assert (await client.get("/v1/topics")).json() == {"topics": []}


async def test_missing_name_is_invalid_topic(client: httpx.AsyncClient) -> None:
    assert_error(await client.post("/v1/topics", json={"partitions": 1}), 400, "INVALID_TOPIC")


@pytest.mark.parametrize(
    "partitions", [0, -1, "3", True, False, 1.5, 2.25, 1001, [1], {"n": 2}], ids=repr
)
async def test_invalid_partition_counts(client: httpx.AsyncClient, partitions: Any) -> None:
    r = await client.post("/v1/topics", json={"name": "p", "partitions": partitions})
    assert_error(r, 400, "INVALID_PARTITIONS")
    assert_error(await client.get("/v1/topics/p"), 404, "UNKNOWN_TOPIC_OR_PARTITION")


async def test_max_partitions_accepted(client: httpx.AsyncClient) -> None:
    d = await create_topic(client, "wide", 1000)
    assert len(d["partitions"]) == 1000


@pytest.mark.parametrize(
    "config",
    [
        {"nope": 1},
        {"retention_ms": 0},
        {"retention_ms": -2},
        {"segment_bytes": 1023},
        {"segment_bytes": 2**30 + 1},
        {"index_interval_bytes": 63},
        {"max_message_bytes": 10},
        {"retention_bytes": -5},
        {"retention_ms": "1000"},
        {"retention_ms": 1.5},
        {"retention_ms": True},
        {"retention_ms": [1]},
        [],
        "retention_ms=1",
        5,
    ],
    ids=repr,
)
async def test_invalid_config_on_create(client: httpx.AsyncClient, config: Any) -> None:
    r = await client.post("/v1/topics", json={"name": "c", "config": config})
    assert_error(r, 400, "INVALID_CONFIG")
    assert_error(await client.get("/v1/topics/c"), 404, "UNKNOWN_TOPIC_OR_PARTITION")


async def test_config_minus_one_means_never(client: httpx.AsyncClient) -> None:
    d = await create_topic(client, "forever", config={"retention_ms": -1, "retention_bytes": -1})
    assert d["config"]["retention_ms"] == -1
    assert d["config"]["retention_bytes"] == -1


async def test_create_body_must_be_an_object(client: httpx.AsyncClient) -> None:
    assert_error(await client.post("/v1/topics", json=["x"]), 400, "INVALID_REQUEST")
    assert_error(await client.post("/v1/topics", content=b"{nope"), 400, "INVALID_REQUEST")
    assert_error(await client.post("/v1/topics", content=b""), 400, "INVALID_REQUEST")
    assert (await client.get("/v1/topics")).json() == {"topics": []}


# -- PATCH --------------------------------------------------------------------------------------


async def test_patch_increases_partitions(client: httpx.AsyncClient) -> None:
    await create_topic(client, "grow", 2)
    await produce(client, "grow", [{"value": "x", "partition": 1}])
    r = await client.patch("/v1/topics/grow", json={"partitions": 5})
    assert r.status_code == 200
    assert [p["high_watermark"] for p in r.json()["partitions"]] == [0, 1, 0, 0, 0]
    assert r.json() == await describe(client, "grow")
    assert (await client.get("/v1/topics")).json()["topics"] == [{"name": "grow", "partitions": 5}]
    # new partitions take records, and keys now map over 5 partitions
    got = await produce(client, "grow", [{"value": "n", "partition": 4}])
    assert got[0]["partition"] == 4 and got[0]["offset"] == 0
    got = await produce(client, "grow", [{"key": "user-7", "value": "v"}])
    assert got[0]["partition"] == partition_for_key(b"user-7", 5)


async def test_patch_same_partition_count_is_a_no_op(client: httpx.AsyncClient) -> None:
    await create_topic(client, "same", 3)
    r = await client.patch("/v1/topics/same", json={"partitions": 3})
    assert r.status_code == 200
    assert len(r.json()["partitions"]) == 3


@pytest.mark.parametrize("partitions", [1, 0, -1, "4", True, 1001, 2.5], ids=repr)
async def test_patch_invalid_or_decreasing_partitions(
    client: httpx.AsyncClient, partitions: Any
) -> None:
    await create_topic(client, "shrink", 2)
    r = await client.patch("/v1/topics/shrink", json={"partitions": partitions})
    assert_error(r, 400, "INVALID_PARTITIONS")
    assert len((await describe(client, "shrink"))["partitions"]) == 2


async def test_patch_config(client: httpx.AsyncClient) -> None:
    await create_topic(client, "cfg", config={"retention_ms": 1000})
    r = await client.patch("/v1/topics/cfg", json={"config": {"segment_bytes": 4096}})
    assert r.status_code == 200
    # merged, not replaced
    assert r.json()["config"] == {**DEFAULTS, "retention_ms": 1000, "segment_bytes": 4096}
    # null puts a key back to its default
    r = await client.patch("/v1/topics/cfg", json={"config": {"retention_ms": None}})
    assert r.status_code == 200
    assert r.json()["config"] == {**DEFAULTS, "segment_bytes": 4096}
    assert (await describe(client, "cfg"))["config"] == r.json()["config"]


@pytest.mark.parametrize(
    "config",
    [
        {"unknown_key": 1},
        {"retention_ms": 0},
        {"segment_bytes": 100},
        {"max_message_bytes": 2**40},
        {"segment_bytes": "4096"},
        {"segment_bytes": False},
        {"segment_bytes": 4096.5},
        [{"segment_bytes": 4096}],
        "x",
    ],
    ids=repr,
)
async def test_patch_invalid_config(client: httpx.AsyncClient, config: Any) -> None:
    await create_topic(client, "cfg", config={"retention_ms": 1000})
    r = await client.patch("/v1/topics/cfg", json={"config": config})
    assert_error(r, 400, "INVALID_CONFIG")
    assert (await describe(client, "cfg"))["config"] == {**DEFAULTS, "retention_ms": 1000}


async def test_patch_is_all_or_nothing(client: httpx.AsyncClient) -> None:
    await create_topic(client, "atomic", 1)
    r = await client.patch("/v1/topics/atomic", json={"partitions": 4, "config": {"bogus": 1}})
    assert_error(r, 400, "INVALID_CONFIG")
    d = await describe(client, "atomic")
    assert len(d["partitions"]) == 1
    assert d["config"] == DEFAULTS


async def test_patch_unknown_topic_and_bad_body(client: httpx.AsyncClient) -> None:
    assert_error(
        await client.patch("/v1/topics/ghost", json={"partitions": 2}),
        404,
        "UNKNOWN_TOPIC_OR_PARTITION",
    )
    await create_topic(client, "t")
    assert_error(await client.patch("/v1/topics/t", content=b"nope"), 400, "INVALID_REQUEST")
    assert_error(await client.patch("/v1/topics/t", json=[1]), 400, "INVALID_REQUEST")
    assert len((await describe(client, "t"))["partitions"]) == 1


# -- DELETE -------------------------------------------------------------------------------------


async def test_delete_topic(client: httpx.AsyncClient) -> None:
    await create_topic(client, "gone", 2)
    await produce(client, "gone", [{"value": "old", "partition": 0}] * 3)
    r = await client.delete("/v1/topics/gone")
    assert r.status_code == 204
    assert r.content == b""
    assert_error(await client.get("/v1/topics/gone"), 404, "UNKNOWN_TOPIC_OR_PARTITION")
    assert_error(await client.delete("/v1/topics/gone"), 404, "UNKNOWN_TOPIC_OR_PARTITION")
    assert_error(
        await client.post("/v1/topics/gone/records", json={"records": [{"value": "x"}]}),
        404,
        "UNKNOWN_TOPIC_OR_PARTITION",
    )
    assert_error(
        await client.get("/v1/topics/gone/partitions/0/records"), 404, "UNKNOWN_TOPIC_OR_PARTITION"
    )
    assert (await client.get("/v1/topics")).json() == {"topics": []}
    await assert_healthy(client)


async def test_recreated_topic_starts_empty(client: httpx.AsyncClient) -> None:
    await create_topic(client, "again", 1, config={"retention_ms": 5000})
    await produce(client, "again", [{"value": "old"}] * 4)
    assert (await client.delete("/v1/topics/again")).status_code == 204
    d = await create_topic(client, "again", 2)
    assert d["partitions"] == empty_partitions(2)
    assert d["config"] == DEFAULTS
    body = await read(client, "again", 0, offset=0)
    assert body["records"] == [] and body["high_watermark"] == 0
    got = await produce(client, "again", [{"value": "new", "partition": 0}])
    assert got[0]["offset"] == 0
    assert [r["value"] for r in (await read(client, "again", 0))["records"]] == ["new"]


# -- delete-records -----------------------------------------------------------------------------


async def test_delete_records_moves_log_start(client: httpx.AsyncClient) -> None:
    await create_topic(client, "dr", 2)
    await produce(client, "dr", [{"value": str(i), "partition": 0} for i in range(10)])
    await produce(client, "dr", [{"value": str(i), "partition": 1} for i in range(4)])
    r = await client.post(
        "/v1/topics/dr/delete-records",
        json={
            "partitions": [
                {"partition": 0, "before_offset": 6},
                {"partition": 1, "before_offset": -1},
            ]
        },
    )
    assert r.status_code == 200, r.text
    assert r.json() == {
        "partitions": [
            {"partition": 0, "log_start_offset": 6},
            {"partition": 1, "log_start_offset": 4},
        ]
    }
    d = await describe(client, "dr")
    assert [(p["log_start_offset"], p["high_watermark"]) for p in d["partitions"]] == [
        (6, 10),
        (4, 4),
    ]
    assert_error(
        await client.get("/v1/topics/dr/partitions/0/records", params={"offset": 5}),
        409,
        "OFFSET_OUT_OF_RANGE",
    )
    assert_error(
        await client.get("/v1/topics/dr/partitions/0/records", params={"offset": 0}),
        409,
        "OFFSET_OUT_OF_RANGE",
    )
    body = await read(client, "dr", 0, offset=6)
    assert [(x["offset"], x["value"]) for x in body["records"]] == [
        (6, "6"),
        (7, "7"),
        (8, "8"),
        (9, "9"),
    ]
    assert body["log_start_offset"] == 6
    r = await client.get("/v1/topics/dr/partitions/0/offsets", params={"at": "earliest"})
    assert r.json()["offset"] == 6
    # by timestamp, the log start is the first offset there is (mid-batch here)
    r = await client.get("/v1/topics/dr/partitions/0/offsets", params={"at": "0"})
    assert r.json()["offset"] == 6
    # moving it back is not possible: the log start stays
    r = await client.post(
        "/v1/topics/dr/delete-records", json={"partitions": [{"partition": 0, "before_offset": 2}]}
    )
    assert r.status_code == 200
    assert r.json() == {"partitions": [{"partition": 0, "log_start_offset": 6}]}
    # new records still append after the high watermark
    got = await produce(client, "dr", [{"value": "n", "partition": 1}])
    assert got[0]["offset"] == 4


async def test_delete_records_beyond_high_watermark_is_409(client: httpx.AsyncClient) -> None:
    await create_topic(client, "dr", 2)
    await produce(client, "dr", [{"value": "a", "partition": 0}] * 3)
    r = await client.post(
        "/v1/topics/dr/delete-records",
        json={
            "partitions": [
                {"partition": 1, "before_offset": 0},
                {"partition": 0, "before_offset": 4},
            ]
        },
    )
    assert_error(r, 409, "OFFSET_OUT_OF_RANGE")
    d = await describe(client, "dr")
    assert [p["log_start_offset"] for p in d["partitions"]] == [0, 0]
    assert len((await read(client, "dr", 0))["records"]) == 3


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"partitions": []},
        {"partitions": "0"},
        {"partitions": [5]},
        {"partitions": [{"partition": 0}]},
        {"partitions": [{"before_offset": 1}]},
        {"partitions": [{"partition": "0", "before_offset": 1}]},
        {"partitions": [{"partition": -1, "before_offset": 1}]},
        {"partitions": [{"partition": 0, "before_offset": -2}]},
        {"partitions": [{"partition": 0, "before_offset": True}]},
        {"partitions": [{"partition": 0, "before_offset": 1.5}]},
        ["partitions"],
        None,
    ],
    ids=repr,
)
async def test_delete_records_malformed(client: httpx.AsyncClient, body: Any) -> None:
    await create_topic(client, "dr")
    await produce(client, "dr", [{"value": "a"}] * 3)
    assert_error(
        await client.post("/v1/topics/dr/delete-records", json=body), 400, "INVALID_REQUEST"
    )
    assert (await describe(client, "dr"))["partitions"][0]["log_start_offset"] == 0
    await assert_healthy(client)


async def test_delete_records_unknown_topic_or_partition(client: httpx.AsyncClient) -> None:
    body = {"partitions": [{"partition": 0, "before_offset": 0}]}
    assert_error(
        await client.post("/v1/topics/ghost/delete-records", json=body),
        404,
        "UNKNOWN_TOPIC_OR_PARTITION",
    )
    await create_topic(client, "dr")
    body = {"partitions": [{"partition": 1, "before_offset": 0}]}
    assert_error(
        await client.post("/v1/topics/dr/delete-records", json=body),
        404,
        "UNKNOWN_TOPIC_OR_PARTITION",
    )
    assert_error(
        await client.post("/v1/topics/dr/delete-records", content=b""), 400, "INVALID_REQUEST"
    )


async def test_delete_records_across_segments(client: httpx.AsyncClient) -> None:
    """Small segments: whole segments below the new log start go; reads there still work."""
    await create_topic(client, "seg", config={"segment_bytes": 1024})
    t0 = time.time_ns() // 1_000_000  # recent: older records would fall to retention_ms
    for i in range(30):
        await produce(client, "seg", [{"value": f"{i:03d}" + "x" * 200, "timestamp": t0 + i}])
    r = await client.post(
        "/v1/topics/seg/delete-records",
        json={"partitions": [{"partition": 0, "before_offset": 17}]},
    )
    assert r.json() == {"partitions": [{"partition": 0, "log_start_offset": 17}]}
    assert_error(
        await client.get("/v1/topics/seg/partitions/0/records", params={"offset": 16}),
        409,
        "OFFSET_OUT_OF_RANGE",
    )
    body = await read(client, "seg", 0, offset=17)
    assert [x["offset"] for x in body["records"]] == list(range(17, 30))
    assert body["records"][0]["value"].startswith("017")
    # by timestamp: nothing below the log start is answered
    r = await client.get("/v1/topics/seg/partitions/0/offsets", params={"at": "0"})
    assert r.json() == {"offset": 17, "timestamp": t0 + 17}
    r = await client.get("/v1/topics/seg/partitions/0/offsets", params={"at": str(t0 + 3)})
    assert r.json() == {"offset": 17, "timestamp": t0 + 17}
    r = await client.get("/v1/topics/seg/partitions/0/offsets", params={"at": str(t0 + 25)})
    assert r.json() == {"offset": 25, "timestamp": t0 + 25}
