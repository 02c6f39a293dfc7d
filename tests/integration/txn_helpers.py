"""Helpers for the producer and transaction tests."""

from __future__ import annotations

from typing import Any

import httpx


async def init_producer(c: httpx.AsyncClient, **body: Any) -> tuple[int, int]:
    r = await c.post("/v1/producers", json=body)
    assert r.status_code == 200, r.text
    return int(r.json()["producer_id"]), int(r.json()["producer_epoch"])


def batch(topic: str, partition: int, seq: int, n: int = 1, tag: str = "v") -> dict[str, Any]:
    return {
        "topic": topic,
        "partition": partition,
        "base_sequence": seq,
        "records": [{"value": f"{tag}{seq + i}"} for i in range(n)],
    }


async def produce_raw(
    c: httpx.AsyncClient,
    pid: int,
    epoch: int,
    batches: list[dict[str, Any]],
    tid: str | None = None,
) -> httpx.Response:
    body: dict[str, Any] = {"producer_id": pid, "producer_epoch": epoch, "batches": batches}
    if tid is not None:
        body["transactional_id"] = tid
    return await c.post("/v1/produce", json=body)


async def produce_ok(
    c: httpx.AsyncClient,
    pid: int,
    epoch: int,
    batches: list[dict[str, Any]],
    tid: str | None = None,
) -> list[dict[str, Any]]:
    """Produce, expect 200; answers the per-batch results."""
    r = await produce_raw(c, pid, epoch, batches, tid)
    assert r.status_code == 200, r.text
    return list(r.json()["batches"])


async def produce_one(
    c: httpx.AsyncClient,
    pid: int,
    epoch: int,
    topic: str,
    partition: int,
    seq: int,
    n: int = 1,
    tid: str | None = None,
) -> dict[str, Any]:
    (res,) = await produce_ok(c, pid, epoch, [batch(topic, partition, seq, n)], tid)
    return res


def error_code(res: dict[str, Any]) -> str | None:
    return None if res["error"] is None else str(res["error"]["code"])


async def end_txn(
    c: httpx.AsyncClient, tid: str, pid: int, epoch: int, how: str = "commit"
) -> httpx.Response:
    return await c.post(
        f"/v1/transactions/{tid}/{how}", json={"producer_id": pid, "producer_epoch": epoch}
    )


async def values(
    c: httpx.AsyncClient,
    topic: str,
    partition: int = 0,
    isolation: str = "read_uncommitted",
    offset: int = 0,
) -> list[str]:
    r = await c.get(
        f"/v1/topics/{topic}/partitions/{partition}/records",
        params={"offset": offset, "isolation_level": isolation, "max_records": 10000},
    )
    assert r.status_code == 200, r.text
    return [rec["value"] for rec in r.json()["records"]]


async def partition_info(c: httpx.AsyncClient, topic: str, partition: int = 0) -> dict[str, Any]:
    r = await c.get(f"/v1/topics/{topic}")
    assert r.status_code == 200, r.text
    return dict(r.json()["partitions"][partition])
