"""Restart in process: a new app on the same data directory finds everything as it was."""

from __future__ import annotations

import base64
import os
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx

from app.config import Settings

from .conftest import running as served_app
from .helpers import b64, create_topic, describe, produce, read


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with served_app(settings) as s:
        yield s.client


async def dump(c: httpx.AsyncClient) -> dict[str, Any]:
    """Every topic's description and every record's bytes (base64) and coordinates."""
    out: dict[str, Any] = {"list": (await c.get("/v1/topics")).json()}
    for t in out["list"]["topics"]:
        d = await describe(c, t["name"])
        out[t["name"]] = d
        for p in d["partitions"]:
            body = await read(
                c,
                t["name"],
                p["partition"],
                offset=p["log_start_offset"],
                encoding="base64",
                max_records=10_000,
            )
            out[f"{t['name']}/{p['partition']}"] = body
    return out


async def test_topics_and_records_survive_a_restart(
    settings_factory: Callable[..., Settings],
) -> None:
    settings = settings_factory()
    t0 = time.time_ns() // 1_000_000
    binary = os.urandom(300) + b"\xff\x00"
    async with running(settings) as c:
        await create_topic(c, "orders", 3, config={"segment_bytes": 1024, "retention_ms": -1})
        await create_topic(c, "audit", 1)
        await create_topic(c, "dropped", 1)
        await produce(c, "dropped", [{"value": "gone"}])
        assert (await c.delete("/v1/topics/dropped")).status_code == 204
        assert (
            await c.patch(
                "/v1/topics/audit", json={"partitions": 2, "config": {"segment_ms": 60_000}}
            )
        ).status_code == 200
        for i in range(20):
            await produce(
                c,
                "orders",
                [
                    {
                        "key": f"customer-{i % 5}",
                        "value": f"order {i} " + "x" * 80,
                        "timestamp": t0 + i,
                        "headers": [{"key": "n", "value": str(i)}],
                    },
                    {"value": f"unkeyed {i}"},
                ],
            )
        await produce(
            c,
            "audit",
            [
                {
                    "key": b64(b"\x00\x01"),
                    "value": b64(binary),
                    "headers": [
                        {"key": "bin", "value": b64(b"\xfe")},
                        {"key": "null", "value": None},
                    ],
                    "partition": 1,
                    "timestamp": t0 - 1000,
                }
            ],
            encoding="base64",
        )
        await produce(
            c,
            "audit",
            [
                {"value": {"json": [1, 2]}, "partition": 0},
                {"value": None, "key": "k", "partition": 0},
            ],
            encoding="json",
        )
        idem = await produce(
            c,
            "audit",
            [{"value": "once", "partition": 0}],
            headers={"Idempotency-Key": "restart-key"},
        )
        r = await c.post(
            "/v1/topics/orders/delete-records",
            json={"partitions": [{"partition": 0, "before_offset": 2}]},
        )
        assert r.status_code == 200
        before = await dump(c)

    assert before["list"] == {
        "topics": [{"name": "audit", "partitions": 2}, {"name": "orders", "partitions": 3}]
    }
    assert sum(p["high_watermark"] for p in before["orders"]["partitions"]) == 40

    async with running(settings) as c:
        after = await dump(c)
        assert after == before
        # the bytes themselves
        rec = (await read(c, "audit", 1, encoding="base64"))["records"][0]
        assert base64.b64decode(rec["value"]) == binary
        assert base64.b64decode(rec["key"]) == b"\x00\x01"
        assert rec["timestamp"] == t0 - 1000
        assert rec["headers"] == [
            {"key": "bin", "value": b64(b"\xfe")},
            {"key": "null", "value": None},
        ]
        recs = (await read(c, "audit", 0, encoding="json"))["records"]
        assert [x["value"] for x in recs[:2]] == [{"json": [1, 2]}, None]
        assert (recs[2]["encoding"], recs[2]["value"]) == ("base64", b64(b"once"))
        # offsets continue where they were
        hw = {p["partition"]: p["high_watermark"] for p in after["orders"]["partitions"]}
        got = await produce(c, "orders", [{"value": "next", "partition": p} for p in range(3)])
        assert [o["offset"] for o in got] == [hw[0], hw[1], hw[2]]
        # the Idempotency-Key is remembered
        again = await produce(
            c,
            "audit",
            [{"value": "once", "partition": 0}],
            headers={"Idempotency-Key": "restart-key"},
        )
        assert again == idem
        assert (await describe(c, "audit"))["partitions"][0]["high_watermark"] == 3
        # the deleted topic stays deleted; the log start stays moved
        assert (await c.get("/v1/topics/dropped")).status_code == 404
        assert after["orders"]["partitions"][0]["log_start_offset"] == 2
        r = await c.get("/v1/topics/orders/partitions/0/offsets", params={"at": "earliest"})
        assert r.json()["offset"] == 2
        # ListOffsets by timestamp works on the recovered index
        r = await c.get("/v1/topics/orders/partitions/1/offsets", params={"at": str(t0)})
        first = after["orders/1"]["records"]
        want = next(x for x in first if x["timestamp"] >= t0)
        assert r.json() == {"offset": want["offset"], "timestamp": want["timestamp"]}


async def test_two_restarts_in_a_row(settings_factory: Callable[..., Settings]) -> None:
    settings = settings_factory()
    async with running(settings) as c:
        await create_topic(c, "t")
        await produce(c, "t", [{"value": "1"}])
    async with running(settings) as c:
        await produce(c, "t", [{"value": "2"}])
    async with running(settings) as c:
        body = await read(c, "t")
        assert [(x["offset"], x["value"]) for x in body["records"]] == [(0, "1"), (1, "2")]
        assert body["high_watermark"] == 2
