"""Reading by offset (with long polls) and ListOffsets."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from .conftest import Served
from .helpers import assert_error, create_topic, parked, produce, read


async def test_read_shape_and_paging(client: httpx.AsyncClient) -> None:
    await create_topic(client, "r")
    await produce(client, "r", [{"value": f"v{i}"} for i in range(10)])
    body = await read(client, "r", offset=0)
    assert set(body) == {
        "records",
        "next_offset",
        "high_watermark",
        "last_stable_offset",
        "log_start_offset",
    }
    assert [x["offset"] for x in body["records"]] == list(range(10))
    assert (
        body["next_offset"],
        body["high_watermark"],
        body["last_stable_offset"],
        body["log_start_offset"],
    ) == (10, 10, 10, 0)
    # pages of three from the middle
    offsets, nxt = [], 2
    while nxt < 10:
        page = await read(client, "r", offset=nxt, max_records=3)
        assert 1 <= len(page["records"]) <= 3
        assert page["records"][0]["offset"] == nxt
        nxt = page["next_offset"]
        assert nxt == page["records"][-1]["offset"] + 1
        offsets += [x["offset"] for x in page["records"]]
    assert offsets == list(range(2, 10))


async def test_read_across_batches_and_segments(client: httpx.AsyncClient) -> None:
    await create_topic(client, "segs", config={"segment_bytes": 1024})
    values = []
    for i in range(25):
        batch = [f"{i}-{j}-" + "y" * 90 for j in range(i % 3 + 1)]
        values += batch
        await produce(client, "segs", [{"value": v} for v in batch])
    got, nxt = [], 0
    while True:
        page = await read(client, "segs", offset=nxt, max_records=7)
        if not page["records"]:
            break
        assert [x["offset"] for x in page["records"]] == list(
            range(nxt, nxt + len(page["records"]))
        )
        got += [x["value"] for x in page["records"]]
        nxt = page["next_offset"]
    assert got == values
    assert nxt == len(values)


async def test_max_records(client: httpx.AsyncClient) -> None:
    await create_topic(client, "mr")
    await produce(client, "mr", [{"value": str(i)} for i in range(5)])
    body = await read(client, "mr", offset=1, max_records=2)
    assert [x["value"] for x in body["records"]] == ["1", "2"]
    assert body["next_offset"] == 3
    body = await read(client, "mr", offset=0, max_records=1)
    assert [x["offset"] for x in body["records"]] == [0]
    assert body["next_offset"] == 1


async def test_max_bytes(client: httpx.AsyncClient) -> None:
    await create_topic(client, "mb")
    await produce(client, "mb", [{"value": "z" * 100} for _ in range(5)])
    # at least one record, even when it is larger than max_bytes
    body = await read(client, "mb", max_bytes=1)
    assert [x["offset"] for x in body["records"]] == [0]
    assert body["next_offset"] == 1
    body = await read(client, "mb", max_bytes=450)
    assert 1 <= len(body["records"]) < 5
    assert body["next_offset"] == len(body["records"])
    body = await read(client, "mb", max_bytes=1_000_000)
    assert len(body["records"]) == 5


async def test_max_records_above_limit_is_clamped(client: httpx.AsyncClient) -> None:
    await create_topic(client, "clamp")
    await produce(client, "clamp", [{"value": "v"}] * 3)
    for n in (10_000, 10_001, 10**9):
        body = await read(client, "clamp", max_records=n)
        assert len(body["records"]) == 3


async def test_offset_at_high_watermark_is_empty(client: httpx.AsyncClient) -> None:
    await create_topic(client, "hw")
    body = await read(client, "hw", offset=0)
    assert body == {
        "records": [],
        "next_offset": 0,
        "high_watermark": 0,
        "last_stable_offset": 0,
        "log_start_offset": 0,
    }
    await produce(client, "hw", [{"value": "a"}] * 2)
    body = await read(client, "hw", offset=2)
    assert body["records"] == [] and body["next_offset"] == 2 and body["high_watermark"] == 2


async def test_offset_beyond_high_watermark_is_409(client: httpx.AsyncClient) -> None:
    await create_topic(client, "hw")
    await produce(client, "hw", [{"value": "a"}] * 2)
    for off in (3, 10**12):
        r = await client.get("/v1/topics/hw/partitions/0/records", params={"offset": off})
        err = assert_error(r, 409, "OFFSET_OUT_OF_RANGE")
        assert err["kafka_code"] == 1
    # a long poll beyond the end is refused at once, not parked
    r = await asyncio.wait_for(
        client.get(
            "/v1/topics/hw/partitions/0/records", params={"offset": 3, "max_wait_ms": 60_000}
        ),
        5,
    )
    assert_error(r, 409, "OFFSET_OUT_OF_RANGE")


async def test_unknown_topic_or_partition_on_read(client: httpx.AsyncClient) -> None:
    assert_error(
        await client.get("/v1/topics/ghost/partitions/0/records"), 404, "UNKNOWN_TOPIC_OR_PARTITION"
    )
    await create_topic(client, "two", 2)
    for p in (2, 99):  # a partition below 0 is bad input (test_bad_input)
        assert_error(
            await client.get(f"/v1/topics/two/partitions/{p}/records"),
            404,
            "UNKNOWN_TOPIC_OR_PARTITION",
        )
        assert_error(
            await client.get(f"/v1/topics/two/partitions/{p}/offsets"),
            404,
            "UNKNOWN_TOPIC_OR_PARTITION",
        )


# -- long polls ---------------------------------------------------------------------------------


async def test_long_poll_woken_by_produce(served: Served) -> None:
    c = served.client
    await create_topic(c, "lp")
    started = time.monotonic()
    poll = asyncio.create_task(
        c.get("/v1/topics/lp/partitions/0/records", params={"offset": 0, "max_wait_ms": 5000})
    )
    await parked(served.broker, "lp", 0)
    assert not poll.done()
    await produce(c, "lp", [{"value": "wake"}, {"value": "up"}])
    r = await asyncio.wait_for(poll, 3)
    assert r.status_code == 200
    body = r.json()
    assert [x["value"] for x in body["records"]] == ["wake", "up"]
    assert body["next_offset"] == 2 and body["high_watermark"] == 2
    assert time.monotonic() - started < 4


async def test_long_poll_ignores_other_partitions(served: Served) -> None:
    c = served.client
    await create_topic(c, "lp", 2)
    poll = asyncio.create_task(
        c.get("/v1/topics/lp/partitions/0/records", params={"offset": 0, "max_wait_ms": 5000})
    )
    await parked(served.broker, "lp", 0)
    await produce(c, "lp", [{"value": "elsewhere", "partition": 1}])
    assert not poll.done()
    await parked(served.broker, "lp", 0)  # still waiting on partition 0
    await produce(c, "lp", [{"value": "here", "partition": 0}])
    r = await asyncio.wait_for(poll, 3)
    assert [x["value"] for x in r.json()["records"]] == ["here"]


async def test_many_long_polls_woken_together(served: Served) -> None:
    c = served.client
    await create_topic(c, "lp")
    await produce(c, "lp", [{"value": "old"}])
    polls = [
        asyncio.create_task(
            c.get("/v1/topics/lp/partitions/0/records", params={"offset": 1, "max_wait_ms": 5000})
        )
        for _ in range(5)
    ]
    await parked(served.broker, "lp", 0, n=5)
    await produce(c, "lp", [{"value": "new"}])
    rs = await asyncio.wait_for(asyncio.gather(*polls), 3)
    assert [[x["offset"] for x in r.json()["records"]] for r in rs] == [[1]] * 5


async def test_shutdown_releases_long_polls(served: Served) -> None:
    """SIGTERM begins the shutdown: parked long polls answer at once, produce is 503."""
    c = served.client
    await create_topic(c, "lp")
    poll = asyncio.create_task(
        c.get("/v1/topics/lp/partitions/0/records", params={"offset": 0, "max_wait_ms": 30_000})
    )
    await parked(served.broker, "lp", 0)
    served.broker.begin_shutdown()
    r = await asyncio.wait_for(poll, 3)
    assert r.status_code == 200
    assert r.json()["records"] == []
    err = assert_error(
        await c.post("/v1/topics/lp/records", json={"records": [{"value": "a"}]}), 503, "NOT_READY"
    )
    assert err["retriable"] is True
    assert_error(await c.get("/readyz"), 503, "NOT_READY")
    assert (await c.get("/healthz")).status_code == 200


async def test_concurrent_produces_get_distinct_contiguous_offsets(
    client: httpx.AsyncClient,
) -> None:
    await create_topic(client, "cc")
    answers = await asyncio.gather(
        *(produce(client, "cc", [{"value": f"{i}-{j}"} for j in range(3)]) for i in range(20))
    )
    offsets = sorted(o["offset"] for a in answers for o in a)
    assert offsets == list(range(60))
    for i, a in enumerate(answers):  # each request's records are contiguous
        assert [o["offset"] for o in a] == list(range(a[0]["offset"], a[0]["offset"] + 3))
        body = await read(client, "cc", offset=a[0]["offset"], max_records=3)
        assert [x["value"] for x in body["records"]] == [f"{i}-{j}" for j in range(3)]


async def test_long_poll_times_out_empty(client: httpx.AsyncClient) -> None:
    await create_topic(client, "lp")
    await produce(client, "lp", [{"value": "a"}])
    started = time.monotonic()
    body = await asyncio.wait_for(read(client, "lp", offset=1, max_wait_ms=50), 3)
    elapsed = time.monotonic() - started
    assert body["records"] == [] and body["next_offset"] == 1 and body["high_watermark"] == 1
    assert elapsed >= 0.04


async def test_long_poll_with_data_answers_at_once(client: httpx.AsyncClient) -> None:
    await create_topic(client, "lp")
    await produce(client, "lp", [{"value": "a"}])
    body = await asyncio.wait_for(read(client, "lp", offset=0, max_wait_ms=60_000), 3)
    assert [x["value"] for x in body["records"]] == ["a"]


# -- ListOffsets --------------------------------------------------------------------------------


async def offsets_at(c: httpx.AsyncClient, topic: str, at: str, p: int = 0) -> dict[str, int]:
    r = await c.get(f"/v1/topics/{topic}/partitions/{p}/offsets", params={"at": at})
    assert r.status_code == 200, r.text
    return dict(r.json())


async def test_list_offsets_earliest_latest(client: httpx.AsyncClient) -> None:
    await create_topic(client, "lo", 2)
    assert await offsets_at(client, "lo", "earliest") == {"offset": 0, "timestamp": -1}
    assert await offsets_at(client, "lo", "latest") == {"offset": 0, "timestamp": -1}
    await produce(client, "lo", [{"value": "a", "partition": 1}] * 4)
    assert (await offsets_at(client, "lo", "latest", 1))["offset"] == 4
    assert (await offsets_at(client, "lo", "earliest", 1))["offset"] == 0
    assert (await offsets_at(client, "lo", "latest", 0))["offset"] == 0
    r = await client.get("/v1/topics/lo/partitions/1/offsets")  # latest by default
    assert r.json()["offset"] == 4


async def test_list_offsets_by_timestamp(client: httpx.AsyncClient) -> None:
    await create_topic(client, "lt")
    # timestamps not in order (create time from producers), across several batches
    stamps = [1000, 3000, 2000, 4000, 4000, 2500]
    await produce(
        client,
        "lt",
        [{"value": "a", "timestamp": stamps[0]}, {"value": "b", "timestamp": stamps[1]}],
    )
    await produce(client, "lt", [{"value": "c", "timestamp": stamps[2]}])
    await produce(
        client, "lt", [{"value": str(i), "timestamp": t} for i, t in enumerate(stamps[3:])]
    )

    def first_at_or_after(target: int) -> dict[str, int]:
        for off, ts in enumerate(stamps):
            if ts >= target:
                return {"offset": off, "timestamp": ts}
        return {"offset": -1, "timestamp": -1}

    for target in (0, 999, 1000, 1001, 2000, 2001, 2500, 3000, 3001, 4000):
        assert await offsets_at(client, "lt", str(target)) == first_at_or_after(target), target
    assert await offsets_at(client, "lt", "4001") == {"offset": -1, "timestamp": -1}


async def test_list_offsets_by_timestamp_on_empty_partition(client: httpx.AsyncClient) -> None:
    await create_topic(client, "empty")
    assert await offsets_at(client, "empty", "0") == {"offset": -1, "timestamp": -1}


@pytest.mark.parametrize("at", ["", "soon", "1.5", "latest ", "EARLIEST", "0x10", "-1"])
async def test_list_offsets_bad_at(client: httpx.AsyncClient, at: str) -> None:
    await create_topic(client, "bad")
    r = await client.get("/v1/topics/bad/partitions/0/offsets", params={"at": at})
    assert_error(r, 400, "INVALID_TIMESTAMP" if at == "-1" else "INVALID_REQUEST")
