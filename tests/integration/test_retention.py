"""Retention through the API: old segments go, the log start moves, reads below it are refused."""

from __future__ import annotations

from app.clock import FakeClock

from .conftest import Served


async def _fill(s: Served, topic: str, n: int, ts: int) -> None:
    for i in range(n):
        r = await s.client.post(
            f"/v1/topics/{topic}/records",
            json={"records": [{"value": f"{i:04d}" + "x" * 200, "timestamp": ts}]},
        )
        assert r.status_code == 200


async def test_retention_by_time_deletes_old_segments(
    fake_clock_served: Served, clock: FakeClock
) -> None:
    s = fake_clock_served
    await s.client.post(
        "/v1/topics", json={"name": "r", "config": {"retention_ms": 60_000, "segment_bytes": 1024}}
    )
    await _fill(s, "r", 20, clock.now_ms())
    assert await s.broker.retention.apply() == 0  # nothing is old yet
    clock.advance(30_000)
    await _fill(s, "r", 20, clock.now_ms())
    clock.advance(40_000)  # the first 20 are 70 s old, the last 20 are 40 s old
    deleted = await s.broker.retention.apply()
    assert deleted > 0
    part = (await s.client.get("/v1/topics/r")).json()["partitions"][0]
    assert 0 < part["log_start_offset"] <= 20
    assert part["high_watermark"] == 40
    r = await s.client.get("/v1/topics/r/partitions/0/records", params={"offset": 0})
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "OFFSET_OUT_OF_RANGE"
    kept = (
        await s.client.get(
            "/v1/topics/r/partitions/0/records",
            params={"offset": part["log_start_offset"], "max_records": 100},
        )
    ).json()["records"]
    assert [int(x["value"][:4]) for x in kept][-20:] == list(range(20))
    assert kept[0]["offset"] == part["log_start_offset"]


async def test_retention_by_bytes_keeps_the_newest(
    fake_clock_served: Served, clock: FakeClock
) -> None:
    s = fake_clock_served
    await s.client.post(
        "/v1/topics", json={"name": "b", "config": {"retention_bytes": 4096, "segment_bytes": 1024}}
    )
    await _fill(s, "b", 60, clock.now_ms())
    assert await s.broker.retention.apply() > 0
    lg = s.broker.topics.get("b").log(0)
    assert lg.size_bytes <= 4096 + 1024  # whole segments only; the active one stays
    part = (await s.client.get("/v1/topics/b")).json()["partitions"][0]
    assert part["log_start_offset"] > 0
    assert part["high_watermark"] == 60


async def test_an_expired_active_segment_is_rolled_and_removed(
    fake_clock_served: Served, clock: FakeClock
) -> None:
    s = fake_clock_served
    await s.client.post("/v1/topics", json={"name": "a", "config": {"retention_ms": 1000}})
    await _fill(s, "a", 5, clock.now_ms())
    clock.advance(5000)
    assert await s.broker.retention.apply() == 1
    part = (await s.client.get("/v1/topics/a")).json()["partitions"][0]
    assert part["log_start_offset"] == part["high_watermark"] == 5
    await _fill(s, "a", 1, clock.now_ms())
    got = (await s.client.get("/v1/topics/a/partitions/0/records", params={"offset": 5})).json()[
        "records"
    ]
    assert [x["offset"] for x in got] == [5]
