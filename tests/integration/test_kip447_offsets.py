"""Offsets in transactions (KIP-447) through HTTP: pending until the transaction ends.

``POST /v1/transactions/{tid}/offsets`` checks the member against the group, joins the group
to the transaction and stores the offsets as pending; commit materialises them (never over a
newer plain commit), abort discards them; a stable offset fetch answers
``PENDING_TRANSACTION`` per partition meanwhile.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx

from app.config import Settings

from .conftest import running as served_app
from .helpers import assert_error, create_topic

GROUP = "g"


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with served_app(settings) as s:
        yield s.client


async def init(c: httpx.AsyncClient, tid: str, **extra: Any) -> tuple[int, int]:
    r = await c.post(
        "/v1/producers", json={"transactional_id": tid, "transaction_timeout_ms": 60_000, **extra}
    )
    assert r.status_code == 200, r.text
    return r.json()["producer_id"], r.json()["producer_epoch"]


async def join(c: httpx.AsyncClient, topics: list[str]) -> tuple[str, int]:
    r = await c.post(
        f"/v1/groups/{GROUP}/heartbeat",
        json={"member_id": None, "member_epoch": 0, "subscribed_topics": topics},
    )
    assert r.status_code == 200, r.text
    return r.json()["member_id"], r.json()["member_epoch"]


async def send_offsets(
    c: httpx.AsyncClient,
    tid: str,
    pid: int,
    epoch: int,
    member: str | None,
    member_epoch: int,
    offsets: dict[int, int],
    instance: str | None = None,
) -> httpx.Response:
    return await c.post(
        f"/v1/transactions/{tid}/offsets",
        json={
            "producer_id": pid,
            "producer_epoch": epoch,
            "group_id": GROUP,
            "member_id": member,
            "member_epoch": member_epoch,
            "group_instance_id": instance,
            "offsets": [
                {"topic": "in", "partition": p, "offset": o, "metadata": f"m{o}"}
                for p, o in offsets.items()
            ],
        },
    )


async def end(c: httpx.AsyncClient, tid: str, pid: int, epoch: int, how: str) -> tuple[int, int]:
    r = await c.post(
        f"/v1/transactions/{tid}/{how}", json={"producer_id": pid, "producer_epoch": epoch}
    )
    assert r.status_code == 200, r.text
    return r.json()["producer_id"], r.json()["producer_epoch"]


async def fetch(c: httpx.AsyncClient, stable: bool) -> dict[int, dict[str, Any]]:
    r = await c.get(
        f"/v1/groups/{GROUP}/offsets", params={"topic": "in", "require_stable": str(stable).lower()}
    )
    assert r.status_code == 200, r.text
    return {o["partition"]: o for o in r.json()["offsets"]}


def offset_of(entry: dict[str, Any] | None) -> int:
    return -1 if entry is None or entry.get("offset") is None else int(entry["offset"])


async def plain_commit(
    c: httpx.AsyncClient, member: str, epoch: int, offsets: dict[int, int]
) -> None:
    r = await c.post(
        f"/v1/groups/{GROUP}/offsets",
        json={
            "member_id": member,
            "member_epoch": epoch,
            "offsets": [{"topic": "in", "partition": p, "offset": o} for p, o in offsets.items()],
        },
    )
    assert r.status_code == 200, r.text
    assert all(o["error"] is None for o in r.json()["offsets"]), r.text


async def test_pending_until_commit_then_materialised(
    settings_factory: Callable[..., Settings],
) -> None:
    async with running(settings_factory()) as c:
        await create_topic(c, "in", 2)
        member, mepoch = await join(c, ["in"])
        pid, epoch = await init(c, "t1")
        r = await send_offsets(c, "t1", pid, epoch, member, mepoch, {0: 5, 1: 7})
        assert r.status_code == 200, r.text

        stable = await fetch(c, True)
        for p in (0, 1):
            assert stable[p]["error"]["code"] == "PENDING_TRANSACTION"
            assert stable[p]["error"]["retriable"] is True
        plain = await fetch(c, False)
        assert offset_of(plain.get(0)) == -1 and offset_of(plain.get(1)) == -1

        txn = (await c.get("/v1/transactions/t1")).json()
        assert txn["state"] == "Ongoing"

        await end(c, "t1", pid, epoch, "commit")
        stable = await fetch(c, True)
        assert {p: (offset_of(stable[p]), stable[p]["error"]) for p in (0, 1)} == {
            0: (5, None),
            1: (7, None),
        }
        assert stable[0]["metadata"] == "m5"


async def test_abort_discards_and_a_newer_plain_commit_wins(
    settings_factory: Callable[..., Settings],
) -> None:
    async with running(settings_factory()) as c:
        await create_topic(c, "in", 2)
        member, mepoch = await join(c, ["in"])
        await plain_commit(c, member, mepoch, {0: 1, 1: 1})

        pid, epoch = await init(c, "t1")
        assert (await send_offsets(c, "t1", pid, epoch, member, mepoch, {0: 9})).status_code == 200
        pid, epoch = await end(c, "t1", pid, epoch, "abort")
        stable = await fetch(c, True)
        assert offset_of(stable[0]) == 1 and stable[0]["error"] is None

        # staged first, then a plain commit of the same partition, then the transaction commits
        assert (
            await send_offsets(c, "t1", pid, epoch, member, mepoch, {0: 20, 1: 20})
        ).status_code == 200
        await plain_commit(c, member, mepoch, {0: 30})
        await end(c, "t1", pid, epoch, "commit")
        stable = await fetch(c, True)
        assert offset_of(stable[0]) == 30  # the newer plain commit is never overwritten
        assert offset_of(stable[1]) == 20


async def test_member_fencing_of_transactional_offsets(
    settings_factory: Callable[..., Settings],
) -> None:
    async with running(settings_factory()) as c:
        await create_topic(c, "in", 1)
        pid, epoch = await init(c, "t1")
        # an empty group accepts offsets without a member
        assert (await send_offsets(c, "t1", pid, epoch, None, -1, {0: 3})).status_code == 200
        pid, epoch = await end(c, "t1", pid, epoch, "commit")

        member, mepoch = await join(c, ["in"])
        assert_error(
            await send_offsets(c, "t1", pid, epoch, member, mepoch + 5, {0: 4}),
            409,
            "ILLEGAL_GENERATION",
        )
        assert_error(
            await send_offsets(c, "t1", pid, epoch, "no-such-member", mepoch, {0: 4}),
            404,
            "UNKNOWN_MEMBER_ID",
        )
        # nothing was staged by the refused calls
        stable = await fetch(c, True)
        assert offset_of(stable[0]) == 3 and stable[0]["error"] is None


async def test_pending_offsets_survive_a_restart(settings_factory: Callable[..., Settings]) -> None:
    settings = settings_factory()
    async with running(settings) as c:
        await create_topic(c, "in", 1)
        pid, epoch = await init(c, "t1")
        assert (await send_offsets(c, "t1", pid, epoch, None, -1, {0: 11})).status_code == 200
    async with running(settings) as c:
        stable = await fetch(c, True)
        assert stable[0]["error"]["code"] == "PENDING_TRANSACTION"
        await end(c, "t1", pid, epoch, "commit")
        stable = await fetch(c, True)
        assert offset_of(stable[0]) == 11 and stable[0]["error"] is None


async def test_fencing_a_producer_aborts_its_pending_offsets(
    settings_factory: Callable[..., Settings],
) -> None:
    async with running(settings_factory()) as c:
        await create_topic(c, "in", 1)
        pid, epoch = await init(c, "t1")
        assert (await send_offsets(c, "t1", pid, epoch, None, -1, {0: 11})).status_code == 200
        pid2, epoch2 = await init(c, "t1")  # a new instance: the open transaction is aborted
        assert pid2 == pid and epoch2 > epoch
        stable = await fetch(c, True)
        assert offset_of(stable.get(0)) == -1 and (stable.get(0) or {}).get("error") is None
        assert_error(
            await send_offsets(c, "t1", pid, epoch, None, -1, {0: 12}), 409, "PRODUCER_FENCED"
        )
