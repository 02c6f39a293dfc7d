"""Transactional share acknowledgements (docs/semantics.md#transactional-acknowledgements)
through create_app() with a FakeClock: POST /v1/transactions/{tid}/acknowledgements, commit,
abort, timeout, fencing, leaving members, lock suspension, a restart with the transaction open,
and bad input."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from app.clock import FakeClock
from app.config import Settings
from app.transactions.ending import row_of
from app.transactions.state import TxnState
from tests.integration.conftest import Served, running
from tests.integration.helpers import assert_error, create_topic, produce
from tests.integration.share_helpers import (
    ack,
    ack_item,
    expire,
    fetch,
    heartbeat,
    join,
    offsets,
    states,
    view,
)
from tests.integration.txn_helpers import batch, end_txn, init_producer, produce_ok, values

G = "g1"
TID = "tx"


@pytest.fixture
async def s(settings_factory: Callable[..., Settings], clock: FakeClock) -> AsyncIterator[Served]:
    async with running(settings_factory(), clock) as served:
        yield served


async def setup(s: Served, n: int = 5, **config: Any) -> str:
    """Topic ``t`` with ``n`` records, group G from the earliest offset, one member that has
    fetched all of them; answers the member id."""
    c = s.client
    await create_topic(c, "t")
    await create_topic(c, "out")
    r = await c.patch(
        f"/v1/share-groups/{G}/config", json={"auto_offset_reset": "earliest", **config}
    )
    assert r.status_code == 200, r.text
    await produce(c, "t", [{"value": f"v{i}"} for i in range(n)])
    m = await join(c, G, ["t"])
    assert offsets(await fetch(c, G, m)) == list(range(n))
    return m


async def txn_ack(
    s: Served,
    pid: int,
    epoch: int,
    member: str,
    *items: dict[str, Any],
    tid: str = TID,
    group: str = G,
) -> Any:
    return await s.client.post(
        f"/v1/transactions/{tid}/acknowledgements",
        json={
            "producer_id": pid,
            "producer_epoch": epoch,
            "group_id": group,
            "member_id": member,
            "acknowledgements": list(items),
        },
    )


async def txn_ack_ok(
    s: Served, pid: int, epoch: int, member: str, *items: dict[str, Any], tid: str = TID
) -> None:
    r = await txn_ack(s, pid, epoch, member, *items, tid=tid)
    assert r.status_code == 200, r.text
    assert all(x["error"] is None for x in r.json()["results"]), r.text


async def describe(s: Served, tid: str = TID) -> dict[str, Any]:
    r = await s.client.get(f"/v1/transactions/{tid}")
    assert r.status_code == 200, r.text
    return dict(r.json())


async def test_commit_applies_the_acknowledgements_with_the_produced_results(s: Served) -> None:
    c = s.client
    m = await setup(s, 4)
    pid, e = await init_producer(c, transactional_id=TID)
    await produce_ok(c, pid, e, [batch("out", 0, 0, 2)], tid=TID)
    await txn_ack_ok(s, pid, e, m, ack_item(0, 3, ["accept", "accept", "release", "reject"]))
    d = await describe(s)
    assert (d["state"], d["share_groups"]) == ("Ongoing", [G])
    assert states(await view(c, G)) == [(o, "acquired", 1) for o in range(4)]
    assert all(r["lock_expires_at"] is None for r in (await view(c, G))["records"])
    assert await values(c, "out", isolation="read_committed") == []

    r = await end_txn(c, TID, pid, e)
    assert r.status_code == 200, r.text
    assert await values(c, "out", isolation="read_committed") == ["v0", "v1"]
    assert states(await view(c, G)) == [(2, "available", 1), (3, "archived", 1)]
    assert (await describe(s))["share_groups"] == []
    m2 = await join(c, G, ["t"])
    got = await fetch(c, G, m2)
    assert [(x["offset"], x["delivery_count"]) for x in got["records"]] == [(2, 2)]


async def test_abort_releases_with_the_delivery_count_unchanged(s: Served) -> None:
    c = s.client
    m = await setup(s, 3)
    pid, e = await init_producer(c, transactional_id=TID)
    await txn_ack_ok(s, pid, e, m, ack_item(0, 2, "accept"))
    r = await end_txn(c, TID, pid, e, "abort")
    assert r.status_code == 200, r.text
    assert states(await view(c, G)) == [(o, "available", 1) for o in range(3)]
    got = await fetch(c, G, m)
    assert [(x["offset"], x["delivery_count"]) for x in got["records"]] == [(0, 2), (1, 2), (2, 2)]


async def test_acknowledgements_start_a_transaction_when_none_is_open(s: Served) -> None:
    m = await setup(s, 1)
    pid, e = await init_producer(s.client, transactional_id=TID)
    assert (await describe(s))["state"] == "Empty"
    await txn_ack_ok(s, pid, e, m, ack_item(0, 0, "accept"))
    d = await describe(s)
    assert (d["state"], d["partitions"], d["share_groups"]) == ("Ongoing", [], [G])
    r = await end_txn(s.client, TID, pid, e)
    assert r.status_code == 200, r.text
    assert (await view(s.client, G))["records"] == []  # acknowledged: the start moved on


async def test_timeout_abort_releases(s: Served, clock: FakeClock) -> None:
    c = s.client
    m = await setup(s, 2, record_lock_duration_ms=15_000)
    pid, e = await init_producer(c, transactional_id=TID, transaction_timeout_ms=60_000)
    await txn_ack_ok(s, pid, e, m, ack_item(0, 1, "accept"))
    clock.advance(30_000)  # past the lock duration: a held lock does not expire
    await expire(s.broker)
    assert states(await view(c, G)) == [(0, "acquired", 1), (1, "acquired", 1)]
    assert await s.broker.transactions.abort_timed_out() == 0
    clock.advance(31_000)
    assert await s.broker.transactions.abort_timed_out() == 1
    assert states(await view(c, G)) == [(0, "available", 1), (1, "available", 1)]
    assert_error(
        await txn_ack(s, pid, e, m, ack_item(0, 0, "accept")), 409, "TRANSACTION_TIMED_OUT"
    )


async def test_held_records_refuse_plain_acks_renew_and_release_on_leave(
    s: Served, clock: FakeClock
) -> None:
    c = s.client
    m = await setup(s, 3)
    pid, e = await init_producer(c, transactional_id=TID)
    await txn_ack_ok(s, pid, e, m, ack_item(0, 1, "accept"))
    for kind in ("accept", "release", "renew"):
        (res,) = await ack(c, G, m, ack_item(0, 0, kind))
        assert res["error"]["code"] == "INVALID_RECORD_STATE", res
    (res,) = (await txn_ack(s, pid, e, m, ack_item(1, 1, "accept"))).json()["results"]
    assert res["error"]["code"] == "INVALID_RECORD_STATE"  # already held
    # the member leaves: only its unheld record is released
    await heartbeat(c, G, m, -1)
    assert states(await view(c, G)) == [(0, "acquired", 1), (1, "acquired", 1), (2, "available", 0)]
    m2 = await join(c, G, ["t"])
    assert offsets(await fetch(c, G, m2)) == [2]
    # the session sweep does not touch held records either
    clock.advance(10 * s.broker.settings.share_session_timeout_ms)
    s.broker.share.membership.sweep_sessions()
    await expire(s.broker)
    assert [x[:2] for x in states(await view(c, G))][:2] == [(0, "acquired"), (1, "acquired")]
    # the transaction still decides them after the member is gone
    r = await end_txn(c, TID, pid, e)
    assert r.status_code == 200, r.text
    assert (await view(c, G))["start_offset"] == 2


async def test_fencing_the_producer_aborts_and_releases(s: Served) -> None:
    c = s.client
    m = await setup(s, 2)
    pid, e = await init_producer(c, transactional_id=TID)
    await txn_ack_ok(s, pid, e, m, ack_item(0, 1, "accept"))
    pid2, e2 = await init_producer(c, transactional_id=TID)  # a new instance fences the old
    assert (pid2, e2) != (pid, e)
    assert states(await view(c, G)) == [(0, "available", 1), (1, "available", 1)]
    assert_error(await txn_ack(s, pid, e, m, ack_item(0, 0, "accept")), 409, "PRODUCER_FENCED")
    assert_error(await end_txn(c, TID, pid, e), 409, "PRODUCER_FENCED")


async def test_partial_results_per_partition(s: Served) -> None:
    c = s.client
    m = await setup(s, 2)
    pid, e = await init_producer(c, transactional_id=TID)
    r = await txn_ack(
        s,
        pid,
        e,
        m,
        ack_item(0, 0, "accept"),
        ack_item(0, 0, "accept", partition=3),
        ack_item(5, 2, "accept", topic="t2"),
    )
    assert r.status_code == 200, r.text
    codes = [
        (x["topic"], x["partition"], x["error"] and x["error"]["code"]) for x in r.json()["results"]
    ]
    assert codes == [("t", 0, None), ("t", 3, "INVALID_RECORD_STATE"), ("t2", 0, "INVALID_REQUEST")]
    assert states(await view(c, G))[0] == (0, "acquired", 1)
    await end_txn(c, TID, pid, e)
    assert states(await view(c, G)) == [(1, "acquired", 1)]


async def test_bad_input_is_a_documented_4xx_and_changes_nothing(s: Served) -> None:
    c = s.client
    m = await setup(s, 1)
    pid, e = await init_producer(c, transactional_id=TID)
    item = ack_item(0, 0, "accept")
    good: dict[str, Any] = {
        "producer_id": pid,
        "producer_epoch": e,
        "group_id": G,
        "member_id": m,
        "acknowledgements": [item],
    }
    url = f"/v1/transactions/{TID}/acknowledgements"
    bad_bodies: list[Any] = [
        [],
        "x",
        {},
        {**good, "producer_id": "1"},
        {**good, "producer_epoch": -1},
        {**good, "group_id": None},
        {**good, "group_id": ""},
        {**good, "member_id": None},
        {**good, "member_id": ""},
        {**good, "acknowledgements": []},
        {**good, "acknowledgements": None},
        {**good, "acknowledgements": [1]},
        {**good, "acknowledgements": [{**item, "partition": -1}]},
    ]
    for body in bad_bodies:
        assert_error(await c.post(url, json=body), 400, "INVALID_REQUEST")
    assert_error(await c.post(url, content=b"{nope"), 400, "INVALID_REQUEST")
    assert_error(
        await c.post("/v1/transactions/nope/acknowledgements", json=good),
        409,
        "INVALID_PRODUCER_ID_MAPPING",
    )
    assert_error(await c.post(url, json={**good, "member_id": "ghost"}), 404, "UNKNOWN_MEMBER_ID")
    assert_error(await c.post(url, json={**good, "group_id": "nogroup"}), 404, "UNKNOWN_MEMBER_ID")
    assert_error(await c.post(url, json={**good, "producer_epoch": e + 1}), 409, "PRODUCER_FENCED")
    d = await describe(s)
    assert (d["state"], d["share_groups"], d["pending_state"]) == ("Empty", [], None)
    assert states(await view(c, G)) == [(0, "acquired", 1)]
    assert (await view(c, G))["records"][0]["lock_expires_at"] is not None


async def test_restart_with_the_transaction_open(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    settings = settings_factory()
    async with running(settings, clock) as s:
        m = await setup(s, 4)
        pid, e = await init_producer(s.client, transactional_id=TID)
        await produce_ok(s.client, pid, e, [batch("out", 0, 0, 1)], tid=TID)
        await txn_ack_ok(
            s, pid, e, m, ack_item(0, 1, ["accept", "release"]), ack_item(3, 3, "accept")
        )
    async with running(settings, clock) as s:
        c = s.client
        assert (await describe(s))["state"] == "Ongoing"
        assert states(await view(c, G)) == [
            (0, "acquired", 1),
            (1, "acquired", 1),
            (2, "available", 0),
            (3, "acquired", 1),
        ]
        m2 = await join(c, G, ["t"])
        assert offsets(await fetch(c, G, m2)) == [2]  # the held records go to nobody
        r = await end_txn(c, TID, pid, e)
        assert r.status_code == 200, r.text
        assert await values(c, "out", isolation="read_committed") == ["v0"]
        assert states(await view(c, G)) == [
            (1, "available", 1),
            (2, "acquired", 1),
            (3, "acknowledged", 1),
        ]
    async with running(settings, clock) as s:  # and the end itself was durable
        assert states(await view(s.client, G)) == [
            (1, "available", 1),
            (2, "available", 0),
            (3, "acknowledged", 1),
        ]


async def test_restart_with_the_transaction_timing_out(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    settings = settings_factory()
    async with running(settings, clock) as s:
        m = await setup(s, 2)
        pid, e = await init_producer(s.client, transactional_id=TID, transaction_timeout_ms=10_000)
        await txn_ack_ok(s, pid, e, m, ack_item(0, 1, "accept"))
    clock.advance(20_000)
    async with running(settings, clock) as s:
        assert states(await view(s.client, G)) == [(0, "acquired", 1), (1, "acquired", 1)]
        assert await s.broker.transactions.abort_timed_out() == 1
        assert states(await view(s.client, G)) == [(0, "available", 1), (1, "available", 1)]


async def test_prepare_commit_found_at_start_is_finished(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    settings = settings_factory()
    async with running(settings, clock) as s:
        m = await setup(s, 2)
        pid, e = await init_producer(s.client, transactional_id=TID)
        await txn_ack_ok(s, pid, e, m, ack_item(0, 1, ["accept", "reject"]))
        # the server dies right after the commit decision became durable
        tm = s.broker.transactions.txns[TID]
        await s.broker.transactions.store.save(
            row_of(
                TID,
                dataclasses.replace(
                    tm.transit(),
                    state=TxnState.PREPARE_COMMIT,  # as the coordinator writes it
                    last_producer_id=tm.producer_id,
                    last_epoch=tm.producer_epoch,
                ),
            )
        )
    async with running(settings, clock) as s:
        d = await describe(s)
        assert (d["state"], d["share_groups"]) == ("CompleteCommit", [])
        v = await view(s.client, G)
        assert (v["start_offset"], v["records"]) == (2, [])  # accepted and rejected: done
        r = await end_txn(s.client, TID, pid, e)  # a retried commit answers 200 again
        assert r.status_code == 200, r.text


async def test_admin_reset_and_delete_wait_for_held_records(s: Served) -> None:
    c = s.client
    m = await setup(s, 2)
    pid, e = await init_producer(c, transactional_id=TID)
    await txn_ack_ok(s, pid, e, m, ack_item(0, 0, "accept"))
    await heartbeat(c, G, m, -1)  # no member left, but offset 0 is still held
    reset = {"topics": [{"topic": "t", "to": "latest"}]}
    assert_error(await c.post(f"/v1/share-groups/{G}/offsets", json=reset), 409, "NON_EMPTY_GROUP")
    assert_error(await c.delete(f"/v1/share-groups/{G}"), 409, "NON_EMPTY_GROUP")
    assert states(await view(c, G))[0] == (0, "acquired", 1)
    r = await end_txn(c, TID, pid, e, "abort")
    assert r.status_code == 200, r.text
    r = await c.post(f"/v1/share-groups/{G}/offsets", json=reset)
    assert r.status_code == 200, r.text


async def test_an_ending_waits_for_a_state_round_of_its_partition(s: Served) -> None:
    """A state round that took the partition before the ending must not commit its view (one
    without the ending) after the ending's: the ending waits for it, then writes a view that
    has both."""
    c = s.client
    await create_topic(c, "dlq")
    m = await setup(s, 4, dead_letter_topic="dlq")
    pid, e = await init_producer(c, transactional_id=TID)
    await txn_ack_ok(s, pid, e, m, ack_item(0, 1, "accept"))
    share = s.broker.share
    copy, exclusive = share.dead_letters.copy, share.writer.exclusive
    copying, gate, ending = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def gated_copy(staged: Any, topic_of: Any) -> None:  # holds the round mid-write
        copying.set()
        await gate.wait()
        await copy(staged, topic_of)

    def asking(partitions: Any) -> Any:
        ending.set()
        return exclusive(partitions)

    share.dead_letters.copy = gated_copy  # type: ignore[method-assign]
    share.writer.exclusive = asking  # type: ignore[method-assign]
    try:
        rejecting = asyncio.create_task(ack(c, G, m, ack_item(2, 2, "reject")))
        await asyncio.wait_for(copying.wait(), 5)
        ending_task = asyncio.create_task(end_txn(c, TID, pid, e))
        await asyncio.wait_for(ending.wait(), 5)
        for _ in range(10):
            await asyncio.sleep(0)  # room for the ending to run ahead, if it could
        assert not ending_task.done()
        gate.set()
        (res,) = await asyncio.wait_for(rejecting, 5)
        assert res["error"] is None
        assert (await asyncio.wait_for(ending_task, 5)).status_code == 200
    finally:
        share.dead_letters.copy = copy  # type: ignore[method-assign]
        share.writer.exclusive = exclusive  # type: ignore[method-assign]
    assert states(await view(c, G)) == [(3, "acquired", 1)]
    assert await values(c, "dlq") == ["v2"]
    conn = sqlite3.connect(s.broker.data.metadata)
    try:
        assert conn.execute("SELECT start_offset FROM share_partitions").fetchall() == [(3,)]
        assert conn.execute("SELECT * FROM share_txn_acks").fetchall() == []
    finally:
        conn.close()
