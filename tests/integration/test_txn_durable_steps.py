"""Durable steps of a transaction with offsets (W4): how many SQLite commits each request
makes, and that the steps merged into one commit stay atomic.

Sending offsets joins the group to the transaction and stages its offsets in one commit; ending
the transaction makes Prepare* durable, then the markers, then ends the groups' offsets and
writes Complete* in one commit (docs/semantics.md#durability-order).
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any

import pytest

from app.clock import FakeClock
from app.config import Settings

from .conftest import Served, running
from .helpers import assert_error, create_topic
from .txn_helpers import batch, end_txn, init_producer, produce_ok


@pytest.fixture
async def gs(settings_factory: Callable[..., Settings],
             clock: FakeClock) -> AsyncIterator[Served]:
    async with running(settings_factory(), clock) as s:
        yield s


async def send_offsets(s: Served, pid: int, epoch: int, offset: int) -> None:
    r = await s.client.post("/v1/transactions/tx/offsets", json={
        "producer_id": pid, "producer_epoch": epoch, "group_id": "g", "member_id": None,
        "member_epoch": -1, "offsets": [{"topic": "in", "partition": 0, "offset": offset}]})
    assert r.status_code == 200, r.text


def on_disk(s: Served) -> dict[str, Any]:
    """What a fresh connection sees in the metadata database."""
    conn = sqlite3.connect(s.broker.data.metadata)
    try:
        (state,) = conn.execute(
            "SELECT state FROM transactions WHERE transactional_id = 'tx'").fetchone()
        committed = conn.execute("SELECT committed_offset FROM consumer_group_offsets "
                                 "WHERE group_id = 'g'").fetchall()
        pending = conn.execute("SELECT committed_offset FROM consumer_group_pending_offsets "
                               "WHERE group_id = 'g'").fetchall()
    finally:
        conn.close()
    return {"state": state, "committed": [r[0] for r in committed],
            "pending": [r[0] for r in pending]}


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
        assert on_disk(gs) == {"state": "Ongoing", "committed": [10 * i] if i else [],
                               "pending": [10 * (i + 1)]}
        before, rounds = stats.commits, flusher.rounds
        r = await end_txn(c, "tx", pid, e)
        assert r.status_code == 200, r.text
        assert stats.commits - before == 2  # Prepare*, then offsets ended with Complete*
        assert flusher.rounds - rounds == 1  # the markers between them
        assert on_disk(gs) == {"state": "CompleteCommit", "committed": [10 * (i + 1)],
                               "pending": []}
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
    write_markers = coordinator.markers
    await gs.broker.db.writer.execute("PRAGMA busy_timeout=0")
    blocker = sqlite3.connect(gs.broker.data.metadata, isolation_level=None)

    async def markers_then_block(pid: int, epoch: int, commit: bool,
                                 partitions: Collection[tuple[str, int]]) -> None:
        await write_markers(pid, epoch, commit, partitions)
        blocker.execute("BEGIN IMMEDIATE")  # the next metadata write cannot commit

    coordinator.markers = markers_then_block
    try:
        r = await end_txn(c, "tx", pid, e)
    finally:
        coordinator.markers = write_markers
        if blocker.in_transaction:
            blocker.execute("ROLLBACK")
        blocker.close()
    assert_error(r, 503, "STORAGE_ERROR")
    assert on_disk(gs) == {"state": "PrepareCommit", "committed": [], "pending": [10]}
    g = gs.broker.groups.groups["g"]
    assert pid in g.pending and not g.offsets  # memory agrees with the disk
    assert (await c.get("/v1/transactions/tx")).json()["state"] == "PrepareCommit"
    await gs.broker.db.writer.execute("PRAGMA busy_timeout=5000")
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
    r = await c.post("/v1/transactions/tx/offsets", json={
        "producer_id": pid, "producer_epoch": e, "group_id": "g", "member_id": None,
        "member_epoch": -1, "offsets": [{"topic": "in", "partition": 0, "offset": -1}]})
    assert r.status_code == 400, r.text
    assert gs.broker.db.stats.commits == before
    assert on_disk(gs)["state"] == "Empty"
    assert (await c.get("/v1/transactions/tx")).json()["groups"] == []
