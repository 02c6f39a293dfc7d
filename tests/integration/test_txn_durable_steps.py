"""Durable steps of a transaction with offsets and share acknowledgements (W4): how many
SQLite commits each request makes, and that the steps merged into one commit stay atomic.

Sending offsets (or share acknowledgements) joins the group to the transaction and stages them
in one commit; ending the transaction makes Prepare* durable, then the markers (and dead-letter
copies), then ends the consumer groups' offsets and the share groups' acknowledgements and
writes Complete* in one commit (docs/semantics.md#durability-order).
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any

import httpx
import pytest

from app.clock import FakeClock
from app.config import Settings

from .conftest import Served, running
from .helpers import assert_error, create_topic, produce
from .share_helpers import ack_item, fetch, join, offsets, settle, states, view
from .txn_helpers import batch, end_txn, init_producer, produce_ok, values


@pytest.fixture
async def gs(settings_factory: Callable[..., Settings], clock: FakeClock) -> AsyncIterator[Served]:
    async with running(settings_factory(), clock) as s:
        yield s


async def send_offsets(s: Served, pid: int, epoch: int, offset: int) -> None:
    r = await s.client.post(
        "/v1/transactions/tx/offsets",
        json={
            "producer_id": pid,
            "producer_epoch": epoch,
            "group_id": "g",
            "member_id": None,
            "member_epoch": -1,
            "offsets": [{"topic": "in", "partition": 0, "offset": offset}],
        },
    )
    assert r.status_code == 200, r.text


def on_disk(s: Served) -> dict[str, Any]:
    """What a fresh connection sees in the metadata database."""
    conn = sqlite3.connect(s.broker.data.metadata)
    try:
        (state,) = conn.execute(
            "SELECT state FROM transactions WHERE transactional_id = 'tx'"
        ).fetchone()
        committed = conn.execute(
            "SELECT committed_offset FROM consumer_group_offsets WHERE group_id = 'g'"
        ).fetchall()
        pending = conn.execute(
            "SELECT committed_offset FROM consumer_group_pending_offsets WHERE group_id = 'g'"
        ).fetchall()
    finally:
        conn.close()
    return {
        "state": state,
        "committed": [r[0] for r in committed],
        "pending": [r[0] for r in pending],
    }


async def end_blocked_after_markers(s: Served, pid: int, epoch: int) -> httpx.Response:
    """End the transaction with its Complete* write failing for want of the database lock:
    right after the markers, the metadata database is locked elsewhere."""
    appender = s.broker.appender
    markers = appender.append_markers
    await s.broker.db.writer.execute("PRAGMA busy_timeout=0")
    blocker = sqlite3.connect(s.broker.data.metadata, isolation_level=None)

    async def then_block(
        producer_id: int, epoch: int, commit: bool, partitions: Collection[tuple[str, int]]
    ) -> None:
        await markers(producer_id, epoch, commit, partitions)
        blocker.execute("BEGIN IMMEDIATE")

    appender.append_markers = then_block  # type: ignore[method-assign]
    try:
        return await end_txn(s.client, "tx", pid, epoch)
    finally:
        del appender.append_markers  # the class's method again
        if blocker.in_transaction:
            blocker.execute("ROLLBACK")
        blocker.close()
        await s.broker.db.writer.execute("PRAGMA busy_timeout=5000")


async def test_offsets_take_one_commit_and_ending_two(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "in", 1)
    await create_topic(c, "out", 1)
    pid, e = await init_producer(c, transactional_id="tx")
    stats, flusher = gs.broker.db.stats, gs.broker.flusher.stats
    for i in range(3):
        before = stats.commits
        await produce_ok(c, pid, e, [batch("out", 0, 0)], "tx")
        assert stats.commits - before == 1  # the partition joins the transaction
        before = stats.commits
        await send_offsets(gs, pid, e, 10 * (i + 1))
        assert stats.commits - before == 1  # the group joins and its offsets are staged
        assert on_disk(gs) == {
            "state": "Ongoing",
            "committed": [10 * i] if i else [],
            "pending": [10 * (i + 1)],
        }
        before, rounds = stats.commits, flusher.rounds
        r = await end_txn(c, "tx", pid, e)
        assert r.status_code == 200, r.text
        assert stats.commits - before == 2  # Prepare*, then offsets ended with Complete*
        assert flusher.rounds - rounds == 1  # the markers between them
        assert on_disk(gs) == {
            "state": "CompleteCommit",
            "committed": [10 * (i + 1)],
            "pending": [],
        }
        pid, e = r.json()["producer_id"], r.json()["producer_epoch"]


async def test_a_failed_completion_ends_no_offsets_and_is_finished_later(gs: Served) -> None:
    """The offsets' end and Complete* commit together or not at all; the sweeper finishes."""
    c = gs.client
    await create_topic(c, "in", 1)
    await create_topic(c, "out", 1)
    pid, e = await init_producer(c, transactional_id="tx")
    await produce_ok(c, pid, e, [batch("out", 0, 0)], "tx")
    await send_offsets(gs, pid, e, 10)
    coordinator = gs.broker.transactions
    r = await end_blocked_after_markers(gs, pid, e)
    assert_error(r, 507, "KAFKA_STORAGE_ERROR")
    assert on_disk(gs) == {"state": "PrepareCommit", "committed": [], "pending": [10]}
    g = gs.broker.groups.groups["g"]
    assert pid in g.pending and not g.offsets  # memory agrees with the disk
    assert (await c.get("/v1/transactions/tx")).json()["state"] == "PrepareCommit"
    await coordinator.abort_timed_out()  # finishes interrupted ends
    assert on_disk(gs) == {"state": "CompleteCommit", "committed": [10], "pending": []}
    assert pid not in g.pending
    r = await c.get("/v1/groups/g/offsets", params={"topic": "in", "require_stable": "true"})
    assert r.json()["offsets"][0]["offset"] == 10


async def test_a_bad_offset_changes_neither_the_transaction_nor_the_group(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "in", 1)
    pid, e = await init_producer(c, transactional_id="tx")
    before = gs.broker.db.stats.commits
    r = await c.post(
        "/v1/transactions/tx/offsets",
        json={
            "producer_id": pid,
            "producer_epoch": e,
            "group_id": "g",
            "member_id": None,
            "member_epoch": -1,
            "offsets": [{"topic": "in", "partition": 0, "offset": -1}],
        },
    )
    assert r.status_code == 400, r.text
    assert gs.broker.db.stats.commits == before
    assert on_disk(gs)["state"] == "Empty"
    assert (await c.get("/v1/transactions/tx")).json()["groups"] == []


# -- with transactional share acknowledgements ------------------------------------------------


async def hold_share_acks(
    s: Served, pid: int, epoch: int, member: str, *items: dict[str, Any]
) -> None:
    r = await s.client.post(
        "/v1/transactions/tx/acknowledgements",
        json={
            "producer_id": pid,
            "producer_epoch": epoch,
            "group_id": "sg",
            "member_id": member,
            "acknowledgements": list(items),
        },
    )
    assert r.status_code == 200, r.text
    assert all(x["error"] is None for x in r.json()["results"]), r.text


async def share_setup(s: Served, n: int, **config: Any) -> str:
    """Topic ``in`` with ``n`` records, share group ``sg`` (earliest) whose member fetched them
    all; every share state write done. Answers the member id."""
    c = s.client
    await create_topic(c, "in", 1)
    await create_topic(c, "out", 1)
    r = await c.patch(
        "/v1/share-groups/sg/config", json={"auto_offset_reset": "earliest", **config}
    )
    assert r.status_code == 200, r.text
    await produce(c, "in", [{"value": f"v{i}"} for i in range(n)])
    member = await join(c, "sg", ["in"])
    assert offsets(await fetch(c, "sg", member)) == list(range(n))
    await settle(s.broker)
    return member


def share_on_disk(s: Served) -> dict[str, Any]:
    conn = sqlite3.connect(s.broker.data.metadata)
    try:
        (start,) = conn.execute(
            "SELECT start_offset FROM share_partitions WHERE group_id = 'sg'"
        ).fetchone()
        batches = conn.execute(
            "SELECT first_offset, last_offset, state FROM "
            "share_state_batches WHERE group_id = 'sg' "
            "ORDER BY first_offset"
        ).fetchall()
        held = conn.execute(
            "SELECT first_offset, last_offset FROM share_txn_acks "
            "WHERE group_id = 'sg' ORDER BY first_offset"
        ).fetchall()
    finally:
        conn.close()
    return {"start": start, "batches": batches, "held": held}


async def test_offsets_and_share_acks_end_with_complete_in_one_commit(gs: Served) -> None:
    c = gs.client
    m = await share_setup(gs, 4)
    pid, e = await init_producer(c, transactional_id="tx")
    stats, flusher = gs.broker.db.stats, gs.broker.flusher.stats
    await produce_ok(c, pid, e, [batch("out", 0, 0)], "tx")
    await send_offsets(gs, pid, e, 10)
    before = stats.commits
    await hold_share_acks(
        gs, pid, e, m, ack_item(0, 2, ["accept", "release", "accept"], topic="in")
    )
    assert stats.commits - before == 1  # the share group joins and its acks are held
    assert share_on_disk(gs) == {"start": 0, "batches": [], "held": [(0, 0), (1, 1), (2, 2)]}
    before, rounds = stats.commits, flusher.rounds
    r = await end_txn(c, "tx", pid, e)
    assert r.status_code == 200, r.text
    # Prepare*, then the offsets, the share state and Complete* together
    assert stats.commits - before == 2
    assert flusher.rounds - rounds == 1  # the markers between them
    assert on_disk(gs) == {"state": "CompleteCommit", "committed": [10], "pending": []}
    assert share_on_disk(gs) == {"start": 1, "batches": [(1, 1, 0), (2, 2, 2)], "held": []}
    assert states(await view(c, "sg", "in")) == [
        (1, "available", 1),
        (2, "acknowledged", 1),
        (3, "acquired", 1),
    ]


async def test_dead_letter_copies_of_an_ending_are_durable_before_its_commit(gs: Served) -> None:
    c = gs.client
    await create_topic(c, "dlq", 1)
    m = await share_setup(gs, 3, dead_letter_topic="dlq")
    pid, e = await init_producer(c, transactional_id="tx")
    await hold_share_acks(gs, pid, e, m, ack_item(0, 1, ["reject", "accept"], topic="in"))
    stats, flusher = gs.broker.db.stats, gs.broker.flusher.stats
    before, rounds = stats.commits, flusher.rounds
    r = await end_txn(c, "tx", pid, e)
    assert r.status_code == 200, r.text
    # Prepare*, the dead-letter mark (before the copy), then the share state with Complete*
    assert stats.commits - before == 3
    assert flusher.rounds - rounds == 1  # the dead-letter copy (no partition: no markers)
    assert await values(c, "dlq") == ["v0"]
    assert share_on_disk(gs) == {"start": 2, "batches": [], "held": []}


async def test_a_failed_completion_keeps_share_acks_held_and_is_finished_later(gs: Served) -> None:
    c = gs.client
    m = await share_setup(gs, 3)
    pid, e = await init_producer(c, transactional_id="tx")
    await produce_ok(c, pid, e, [batch("out", 0, 0)], "tx")
    await hold_share_acks(gs, pid, e, m, ack_item(0, 1, "accept", topic="in"))
    held = share_on_disk(gs)
    assert_error(await end_blocked_after_markers(gs, pid, e), 507, "KAFKA_STORAGE_ERROR")
    assert share_on_disk(gs) == held  # nothing of the ending is durable
    assert on_disk(gs)["state"] == "PrepareCommit"
    sp = gs.broker.share.groups["sg"].partitions[("in", 0)]
    assert sp.held_by(pid) == 2 and not any(run.pending for run in sp.runs)  # memory agrees
    assert states(await view(c, "sg", "in")) == [(o, "acquired", 1) for o in range(3)]
    await gs.broker.transactions.abort_timed_out()  # finishes interrupted ends
    assert on_disk(gs)["state"] == "CompleteCommit"
    assert share_on_disk(gs) == {"start": 2, "batches": [], "held": []}
    assert states(await view(c, "sg", "in")) == [(2, "acquired", 1)]


async def test_held_share_acks_and_the_transaction_row_commit_together(gs: Served) -> None:
    """A failed write holds nothing and leaves the transaction as it was, on disk and in
    memory; the same request then succeeds."""
    c = gs.client
    m = await share_setup(gs, 2)
    pid, e = await init_producer(c, transactional_id="tx")
    await gs.broker.db.writer.execute("PRAGMA busy_timeout=0")
    blocker = sqlite3.connect(gs.broker.data.metadata, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # the next metadata write cannot commit
    try:
        r = await c.post(
            "/v1/transactions/tx/acknowledgements",
            json={
                "producer_id": pid,
                "producer_epoch": e,
                "group_id": "sg",
                "member_id": m,
                "acknowledgements": [ack_item(0, 1, "accept", topic="in")],
            },
        )
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
        await gs.broker.db.writer.execute("PRAGMA busy_timeout=5000")
    assert_error(r, 507, "KAFKA_STORAGE_ERROR")
    assert on_disk(gs)["state"] == "Empty"
    assert share_on_disk(gs)["held"] == []
    described = (await c.get("/v1/transactions/tx")).json()
    assert (described["state"], described["share_groups"]) == ("Empty", [])
    records = (await view(c, "sg", "in"))["records"]
    assert all(x["state"] == "acquired" and x["lock_expires_at"] is not None for x in records)
    await hold_share_acks(gs, pid, e, m, ack_item(0, 1, "accept", topic="in"))
    assert share_on_disk(gs)["held"] == [(0, 1)]
