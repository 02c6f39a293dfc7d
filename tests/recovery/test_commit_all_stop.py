"""A commit of several transactions (docs/semantics.md#commit-all) stopped between its steps,
then a fresh app on the same data directory: a stop after the decision's SQLite commit commits
every transaction at the next start, a stop before it commits none.

The server is stopped at a point by making the next step raise (``Stop`` stands for the process
dying there; nothing after it runs), as tests/recovery/test_idempotency_crash.py does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Sequence
from typing import Any

import httpx
import pytest

from app.clock import FakeClock
from app.config import Settings
from app.runtime import Broker
from tests.integration.conftest import running
from tests.integration.helpers import create_topic
from tests.integration.txn_helpers import batch, init_producer, partition_info, produce_ok, values

Ident = tuple[str, int, int]
TIDS = ("etl-0", "etl-1", "etl-2")


class Stop(Exception):
    """Stands for the process dying at this point."""


def on_disk(broker: Broker) -> tuple[dict[str, str], list[str]]:
    """The transactions' states and the commit keys a fresh connection sees."""
    conn = sqlite3.connect(broker.data.metadata)
    try:
        states = dict(conn.execute("SELECT transactional_id, state FROM transactions"))
        keys = [k for (k,) in conn.execute("SELECT key FROM txn_commit_keys")]
    finally:
        conn.close()
    return states, keys


async def committed(c: httpx.AsyncClient) -> list[str]:
    return sorted([v for p in range(3) for v in await values(c, "out", p, "read_committed")])


async def stable(c: httpx.AsyncClient) -> list[bool]:
    """Per partition of ``out``: nothing undecided (the last stable offset is the end)."""
    out = []
    for p in range(3):
        info = await partition_info(c, "out", p)
        out.append(info["last_stable_offset"] == info["high_watermark"])
    return out


async def open_all(c: httpx.AsyncClient) -> list[Ident]:
    await create_topic(c, "out", 3)
    txns = []
    for p, tid in enumerate(TIDS):
        pid, e = await init_producer(c, transactional_id=tid)
        await produce_ok(c, pid, e, [batch("out", p, 0, 2, tag=f"{tid}:")], tid)
        txns.append((tid, pid, e))
    return txns


def commit_all_body(txns: Sequence[Ident]) -> dict[str, Any]:
    return {
        "transactions": [
            {"transactional_id": t, "producer_id": p, "producer_epoch": e} for t, p, e in txns
        ],
        "idempotency_key": "q1:7",
    }


ALL_RECORDS = sorted(f"{t}:{i}" for t in TIDS for i in range(2))


def stop_at_the_markers(broker: Broker) -> None:
    """Every marker write dies: the decision is durable, no marker is."""

    async def dead(
        producer_id: int, epoch: int, commit: bool, partitions: Collection[tuple[str, int]]
    ) -> None:
        raise Stop

    broker.appender.append_markers = dead  # type: ignore[method-assign]


def stop_after_the_first_markers(broker: Broker) -> None:
    """The first transaction's markers are written (and it completes), the others' die."""
    markers = broker.appender.append_markers
    calls = 0

    async def first_only(
        producer_id: int, epoch: int, commit: bool, partitions: Collection[tuple[str, int]]
    ) -> None:
        nonlocal calls
        calls += 1
        if calls > 1:
            raise Stop
        await markers(producer_id, epoch, commit, partitions)

    broker.appender.append_markers = first_only  # type: ignore[method-assign]


@pytest.mark.parametrize(
    ("stop", "completed"), [(stop_at_the_markers, 0), (stop_after_the_first_markers, 1)]
)
async def test_a_stop_after_the_decision_commits_every_transaction_at_the_next_start(
    settings_factory: Callable[..., Settings],
    clock: FakeClock,
    stop: Callable[[Broker], None],
    completed: int,
) -> None:
    settings = settings_factory()
    async with running(settings, clock) as s:
        txns = await open_all(s.client)
        stop(s.broker)
        with pytest.raises(Stop):
            await s.client.post("/v1/transactions:commit-all", json=commit_all_body(txns))
        del s.broker.appender.append_markers
        states, keys = on_disk(s.broker)
        # the decision of every transaction and the key are durable; the markers of
        # ``completed`` transactions are written
        assert sorted(states.values()) == sorted(
            ["CompleteCommit"] * completed + ["PrepareCommit"] * (len(TIDS) - completed)
        )
        assert keys == ["q1:7"]
        assert len(await committed(s.client)) == 2 * completed
        assert (await stable(s.client)).count(True) == completed
    async with running(settings, clock) as s:  # the next start
        c = s.client
        assert on_disk(s.broker)[0] == dict.fromkeys(TIDS, "CompleteCommit")
        assert await committed(c) == ALL_RECORDS
        assert await stable(c) == [True, True, True]
        # the retry of the request, its answer lost: a duplicate, and it changes nothing
        r = await c.post("/v1/transactions:commit-all", json=commit_all_body(txns))
        assert r.status_code == 200, r.text
        assert r.json()["duplicate"] is True
        assert [t["producer_epoch"] for t in r.json()["transactions"]] == [e + 1 for *_, e in txns]
        assert await committed(c) == ALL_RECORDS


async def test_a_stop_before_the_decision_commits_none(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    settings = settings_factory()
    async with running(settings, clock) as s:
        txns = await open_all(s.client)
        store = s.broker.transactions.store

        async def dead(*args: Any, **kwargs: Any) -> None:
            raise Stop

        store.save_many = dead  # type: ignore[method-assign]
        with pytest.raises(Stop):
            await s.client.post("/v1/transactions:commit-all", json=commit_all_body(txns))
        del store.save_many
    async with running(settings, clock) as s:
        c = s.client
        assert on_disk(s.broker) == (dict.fromkeys(TIDS, "Ongoing"), [])
        assert await committed(c) == []
        # the retried request is no duplicate: it commits them all
        r = await c.post("/v1/transactions:commit-all", json=commit_all_body(txns))
        assert r.status_code == 200, r.text
        assert r.json()["duplicate"] is False
        assert await committed(c) == ALL_RECORDS
        assert await stable(c) == [True, True, True]
