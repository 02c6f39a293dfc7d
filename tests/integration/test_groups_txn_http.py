"""KIP-447 end to end in process: transactional offsets over HTTP with real consumer groups.

The transaction coordinator calls ``broker.groups`` (its offset participant): member fencing,
pending offsets hidden until commit, discarded on abort and on the transaction timeout.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from app.clock import FakeClock
from app.config import Settings

from .conftest import Served, running
from .helpers import assert_error, create_topic
from .txn_helpers import end_txn, init_producer


@pytest.fixture
async def gs(settings_factory: Callable[..., Settings], clock: FakeClock) -> AsyncIterator[Served]:
    async with running(settings_factory(), clock) as s:
        yield s


async def join(c: httpx.AsyncClient, member: str) -> int:
    r = await c.post(
        "/v1/groups/g/heartbeat",
        json={"member_id": member, "member_epoch": 0, "subscribed_topics": ["in"]},
    )
    assert r.status_code == 200, r.text
    return int(r.json()["member_epoch"])


async def send_offsets(
    c: httpx.AsyncClient,
    pid: int,
    epoch: int,
    offset: int,
    member: str | None = "a",
    member_epoch: int = 1,
    instance: str | None = None,
) -> httpx.Response:
    return await c.post(
        "/v1/transactions/tx/offsets",
        json={
            "producer_id": pid,
            "producer_epoch": epoch,
            "group_id": "g",
            "member_id": member,
            "member_epoch": member_epoch,
            "group_instance_id": instance,
            "offsets": [{"topic": "in", "partition": 0, "offset": offset, "metadata": "tx"}],
        },
    )


async def fetched(c: httpx.AsyncClient, stable: bool) -> dict[str, Any]:
    r = await c.get(
        "/v1/groups/g/offsets", params={"topic": "in", "require_stable": str(stable).lower()}
    )
    assert r.status_code == 200, r.text
    return dict(r.json()["offsets"][0])


async def test_offsets_commit_with_the_transaction(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "in", 1)
    assert await join(c, "a") == 1
    pid, e = await init_producer(c, transactional_id="tx")
    r = await send_offsets(c, pid, e, 10)
    assert r.status_code == 200, r.text
    assert (await fetched(c, False))["offset"] == -1
    pending = await fetched(c, True)
    assert pending["error"]["code"] == "PENDING_TRANSACTION"
    r = await end_txn(c, "tx", pid, e, "commit")
    assert r.status_code == 200, r.text
    assert await fetched(c, True) == {
        "topic": "in",
        "partition": 0,
        "offset": 10,
        "metadata": "tx",
        "error": None,
    }
    e = int(r.json()["producer_epoch"])
    # the next transaction aborts: its offsets are discarded
    assert (await send_offsets(c, pid, e, 20)).status_code == 200
    r = await end_txn(c, "tx", pid, e, "abort")
    assert r.status_code == 200, r.text
    assert await fetched(c, True) == {
        "topic": "in",
        "partition": 0,
        "offset": 10,
        "metadata": "tx",
        "error": None,
    }


async def test_zombie_members_are_fenced(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "in", 1)
    await join(c, "a")
    pid, e = await init_producer(c, transactional_id="tx")
    for epoch in (0, 2):
        err = assert_error(
            await send_offsets(c, pid, e, 5, member_epoch=epoch), 409, "ILLEGAL_GENERATION"
        )
        assert err["kafka_code"] == 22
    assert_error(await send_offsets(c, pid, e, 5, member="ghost"), 404, "UNKNOWN_MEMBER_ID")
    assert_error(
        await send_offsets(c, pid, e, 5, member=None, member_epoch=-1), 404, "UNKNOWN_MEMBER_ID"
    )
    assert (await fetched(c, True))["error"] is None  # nothing staged


async def test_a_timed_out_transaction_discards_its_offsets(gs: Served, clock: FakeClock) -> None:
    c = gs.client
    await create_topic(c, "in", 1)
    await join(c, "a")
    pid, e = await init_producer(c, transactional_id="tx", transaction_timeout_ms=1000)
    assert (await send_offsets(c, pid, e, 7)).status_code == 200
    assert (await fetched(c, True))["error"]["code"] == "PENDING_TRANSACTION"
    clock.advance(1001)
    assert await gs.broker.transactions.abort_timed_out() == 1
    assert await fetched(c, True) == {
        "topic": "in",
        "partition": 0,
        "offset": -1,
        "metadata": None,
        "error": None,
    }
