"""HTTP helpers of the share-group tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx

from app.runtime import Broker


async def heartbeat(
    c: httpx.AsyncClient,
    g: str,
    member_id: str | None = None,
    epoch: int = 0,
    topics: list[str] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"member_id": member_id, "member_epoch": epoch}
    if topics is not None:
        body["subscribed_topics"] = topics
    r = await c.post(f"/v1/share-groups/{g}/heartbeat", json=body)
    assert r.status_code == 200, r.text
    return dict(r.json())


async def join(
    c: httpx.AsyncClient, g: str, topics: list[str], member_id: str | None = None
) -> str:
    return str((await heartbeat(c, g, member_id, 0, topics))["member_id"])


async def fetch(
    c: httpx.AsyncClient, g: str, member_id: str | None, *, expect: int = 200, **body: Any
) -> dict[str, Any]:
    r = await c.post(f"/v1/share-groups/{g}/fetch", json={"member_id": member_id, **body})
    assert r.status_code == expect, r.text
    return dict(r.json())


def offsets(answer: dict[str, Any]) -> list[int]:
    return [r["offset"] for r in answer["records"]]


def ack_item(
    first: int, last: int, kind: str | list[str], topic: str = "t", partition: int = 0, **extra: Any
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "topic": topic,
        "partition": partition,
        "first_offset": first,
        "last_offset": last,
        **extra,
    }
    if isinstance(kind, list):
        item["types"] = kind
    else:
        item["type"] = kind
    return item


async def ack(
    c: httpx.AsyncClient, g: str, member_id: str, *items: dict[str, Any]
) -> list[dict[str, Any]]:
    r = await c.post(
        f"/v1/share-groups/{g}/acknowledge",
        json={"member_id": member_id, "acknowledgements": list(items)},
    )
    assert r.status_code == 200, r.text
    return list(r.json()["results"])


async def ack_ok(c: httpx.AsyncClient, g: str, member_id: str, *items: dict[str, Any]) -> None:
    results = await ack(c, g, member_id, *items)
    assert all(r["error"] is None for r in results), results


async def view(
    c: httpx.AsyncClient,
    g: str,
    topic: str = "t",
    partition: int = 0,
    *,
    from_: int | None = None,
    to: int | None = None,
) -> dict[str, Any]:
    params = {k: v for k, v in (("from", from_), ("to", to)) if v is not None}
    r = await c.get(f"/v1/share-groups/{g}/partitions/{topic}/{partition}/records", params=params)
    assert r.status_code == 200, r.text
    return dict(r.json())


def states(v: dict[str, Any]) -> list[tuple[int, str, int]]:
    return [(r["offset"], r["state"], r["delivery_count"]) for r in v["records"]]


async def group(c: httpx.AsyncClient, g: str) -> dict[str, Any]:
    r = await c.get(f"/v1/share-groups/{g}")
    assert r.status_code == 200, r.text
    return dict(r.json())


async def until(predicate: Callable[[], bool], timeout: float = 5) -> None:
    """Yield to the loop until ``predicate`` holds (never sleeps on the clock)."""

    async def loop() -> None:
        while not predicate():
            await asyncio.sleep(0)

    await asyncio.wait_for(loop(), timeout)


async def expire(broker: Broker) -> None:
    """Process due locks now and wait until their state is durable."""
    broker.share.expire_due()
    await settle(broker)


async def settle(broker: Broker) -> None:
    def idle() -> bool:
        return not any(
            sp.staged for g in broker.share.groups.values() for sp in g.partitions.values()
        )

    await until(idle)


async def parked(broker: Broker, n: int = 1) -> None:
    """Return once ``n`` share fetches are parked."""

    def count() -> int:
        seen: set[int] = set()
        for waiters in broker.share.polls._waiters.values():
            seen.update(id(f) for f in waiters if not f.done())
        return len(seen)

    await until(lambda: count() >= n)
