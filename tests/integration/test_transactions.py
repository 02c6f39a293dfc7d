"""Transactions over HTTP: commit, abort, retries, fencing, timeouts, LSO and read_committed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import httpx
import pytest

from app.clock import FakeClock
from app.config import Settings
from tests.integration.conftest import Served, running
from tests.integration.helpers import assert_error, create_topic, metric, metrics, produce
from tests.integration.txn_helpers import (
    batch,
    end_txn,
    error_code,
    init_producer,
    partition_info,
    produce_ok,
    produce_raw,
    values,
)


@pytest.fixture
async def txn_served(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> AsyncIterator[Served]:
    async with running(settings_factory(), clock) as s:
        yield s


async def test_commit_makes_records_visible_to_read_committed(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t", partitions=2)
    pid, epoch = await init_producer(client, transactional_id="tx")
    assert epoch == 0
    res = await produce_ok(client, pid, epoch, [batch("t", 0, 0, 2), batch("t", 1, 0)], "tx")
    assert [r["error"] for r in res] == [None, None]
    info = await partition_info(client, "t", 0)
    assert (info["high_watermark"], info["last_stable_offset"]) == (2, 0)
    assert await values(client, "t", 0, "read_committed") == []
    assert await values(client, "t", 0) == ["v0", "v1"]
    r = await client.get("/v1/transactions/tx")
    assert r.json()["state"] == "Ongoing"
    assert r.json()["partitions"] == [
        {"topic": "t", "partition": 0},
        {"topic": "t", "partition": 1},
    ]
    r = await end_txn(client, "tx", pid, epoch)
    assert r.status_code == 200, r.text
    assert r.json() == {"producer_id": pid, "producer_epoch": 1}
    for p, expected in ((0, ["v0", "v1"]), (1, ["v0"])):
        info = await partition_info(client, "t", p)
        # the marker takes an offset; the LSO reaches the high watermark
        assert info["high_watermark"] == len(expected) + 1
        assert info["last_stable_offset"] == info["high_watermark"]
        assert await values(client, "t", p, "read_committed") == expected
        assert await values(client, "t", p) == expected  # markers are never returned
    assert (await client.get("/v1/transactions/tx")).json()["state"] == "CompleteCommit"


async def test_abort_hides_records_from_read_committed_only(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    pid, epoch = await init_producer(client, transactional_id="tx")
    await produce_ok(client, pid, epoch, [batch("t", 0, 0, 3, tag="a")], "tx")
    r = await end_txn(client, "tx", pid, epoch, "abort")
    assert r.json() == {"producer_id": pid, "producer_epoch": 1}
    epoch = 1
    await produce(client, "t", [{"value": "plain", "partition": 0}])
    await produce_ok(client, pid, epoch, [batch("t", 0, 0, 2, tag="c")], "tx")
    # open transaction: the LSO holds at its first offset, plain data before it is visible
    info = await partition_info(client, "t")
    assert info["last_stable_offset"] == 5
    assert await values(client, "t", isolation="read_committed") == ["plain"]
    r = await client.get(
        "/v1/topics/t/partitions/0/records",
        params={"offset": 0, "isolation_level": "read_committed"},
    )
    assert r.json()["next_offset"] == 5 and r.json()["last_stable_offset"] == 5
    r = await client.get(
        "/v1/topics/t/partitions/0/offsets",
        params={"at": "latest", "isolation_level": "read_committed"},
    )
    assert r.json()["offset"] == 5
    r = await client.get("/v1/topics/t/partitions/0/offsets", params={"at": "latest"})
    assert r.json()["offset"] == 7
    assert (await end_txn(client, "tx", pid, epoch)).status_code == 200
    assert await values(client, "t", isolation="read_committed") == ["plain", "c0", "c1"]
    assert await values(client, "t") == ["a0", "a1", "a2", "plain", "c0", "c1"]
    # read_committed from inside the aborted range skips it; offsets are simply absent
    r = await client.get(
        "/v1/topics/t/partitions/0/records",
        params={"offset": 1, "isolation_level": "read_committed"},
    )
    assert [x["offset"] for x in r.json()["records"]] == [4, 5, 6]


async def test_retry_opposite_result_and_empty_end(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    pid, epoch = await init_producer(client, transactional_id="tx")
    # nothing open: 200, nothing changes
    r = await end_txn(client, "tx", pid, epoch)
    assert r.json() == {"producer_id": pid, "producer_epoch": 0}
    assert (await end_txn(client, "tx", pid, epoch, "abort")).json()["producer_epoch"] == 0
    await produce_ok(client, pid, epoch, [batch("t", 0, 0)], "tx")
    first = await end_txn(client, "tx", pid, epoch)
    assert first.json() == {"producer_id": pid, "producer_epoch": 1}
    retry = await end_txn(client, "tx", pid, epoch)
    assert retry.status_code == 200 and retry.json() == first.json()
    assert_error(await end_txn(client, "tx", pid, epoch, "abort"), 409, "INVALID_TXN_STATE")
    assert (await partition_info(client, "t"))["high_watermark"] == 2  # one marker only
    # the reverse: abort, then commit with that epoch
    await produce_ok(client, pid, 1, [batch("t", 0, 0)], "tx")
    assert (await end_txn(client, "tx", pid, 1, "abort")).json()["producer_epoch"] == 2
    assert_error(await end_txn(client, "tx", pid, 1), 409, "INVALID_TXN_STATE")
    assert (await end_txn(client, "tx", pid, 1, "abort")).json()["producer_epoch"] == 2


async def test_late_write_of_a_finished_epoch_is_fenced(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    pid, epoch = await init_producer(client, transactional_id="tx")
    await produce_ok(client, pid, epoch, [batch("t", 0, 0)], "tx")
    await end_txn(client, "tx", pid, epoch)
    r = await produce_raw(client, pid, epoch, [batch("t", 0, 1)], "tx")
    assert_error(r, 409, "INVALID_PRODUCER_EPOCH")
    info = await partition_info(client, "t")
    assert info["last_stable_offset"] == info["high_watermark"] == 2  # nothing hangs
    # the new epoch starts at sequence 0
    res = await produce_ok(client, pid, 1, [batch("t", 0, 1)], "tx")
    assert error_code(res[0]) == "OUT_OF_ORDER_SEQUENCE_NUMBER"
    assert (await produce_ok(client, pid, 1, [batch("t", 0, 0)], "tx"))[0]["error"] is None


async def test_second_instance_fences_the_first_and_aborts_its_transaction(
    client: httpx.AsyncClient,
) -> None:
    await create_topic(client, "t")
    pid, old = await init_producer(client, transactional_id="tx")
    await produce_ok(client, pid, old, [batch("t", 0, 0, 2, tag="zombie")], "tx")
    pid2, new = await init_producer(client, transactional_id="tx")
    assert pid2 == pid and new == old + 2
    described = (await client.get("/v1/transactions/tx")).json()
    assert described["state"] == "Empty" and described["producer_epoch"] == new
    # the zombie: produce answers INVALID_PRODUCER_EPOCH, the txn endpoints PRODUCER_FENCED
    assert_error(
        await produce_raw(client, pid, old, [batch("t", 0, 2)], "tx"), 409, "INVALID_PRODUCER_EPOCH"
    )
    err = assert_error(await end_txn(client, "tx", pid, old), 409, "PRODUCER_FENCED")
    assert err["kafka_code"] == 90 and err["retriable"] is False
    assert_error(await end_txn(client, "tx", pid, old, "abort"), 409, "PRODUCER_FENCED")
    r = await client.post(
        "/v1/producers", json={"transactional_id": "tx", "producer_id": pid, "producer_epoch": old}
    )
    assert_error(r, 409, "PRODUCER_FENCED")
    # its records were aborted; the new instance carries on
    assert await values(client, "t", isolation="read_committed") == []
    await produce_ok(client, pid, new, [batch("t", 0, 0, tag="n")], "tx")
    assert (await end_txn(client, "tx", pid, new)).status_code == 200
    assert await values(client, "t", isolation="read_committed") == ["n0"]


async def test_non_transactional_batch_during_open_transaction(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    pid, epoch = await init_producer(client, transactional_id="tx")
    await produce_ok(client, pid, epoch, [batch("t", 0, 0)], "tx")
    res = await produce_ok(client, pid, epoch, [batch("t", 0, 1)])
    assert error_code(res[0]) == "INVALID_TXN_STATE"
    assert (await partition_info(client, "t"))["high_watermark"] == 1


async def test_a_transactional_producer_id_never_produces_outside_its_transaction(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    """KIP-890: without its transactional_id, a transactional producer id is refused with
    INVALID_TXN_STATE per batch, whether or not a transaction is open, before and after a
    restart; a plain idempotent producer id is unaffected."""
    settings = settings_factory()
    async with running(settings, clock) as s:
        c = s.client
        await create_topic(c, "t", partitions=2)
        pid, epoch = await init_producer(c, transactional_id="tx")
        res = await produce_ok(c, pid, epoch, [batch("t", 0, 0), batch("nope", 0, 0)])
        assert [error_code(r) for r in res] == ["INVALID_TXN_STATE", "UNKNOWN_TOPIC_OR_PARTITION"]
        assert res[0]["error"]["kafka_code"] == 48 and res[0]["base_offset"] == -1
        await produce_ok(c, pid, epoch, [batch("t", 1, 0)], "tx")  # a transaction is open
        res = await produce_ok(c, pid, epoch, [batch("t", 0, 0), batch("t", 1, 1)])
        assert [error_code(r) for r in res] == ["INVALID_TXN_STATE"] * 2
        assert (await end_txn(c, "tx", pid, epoch)).status_code == 200
        idem, e = await init_producer(c)
        assert (await produce_ok(c, idem, e, [batch("t", 0, 0)]))[0]["error"] is None
    async with running(settings, clock) as s:
        c = s.client
        res = await produce_ok(c, pid, epoch + 1, [batch("t", 0, 0)])
        assert error_code(res[0]) == "INVALID_TXN_STATE"
        assert (await produce_ok(c, idem, e, [batch("t", 0, 1)]))[0]["error"] is None
        # partition 0: the idempotent producer's two records; 1: the transaction's and its marker
        hws = [p["high_watermark"] for p in (await c.get("/v1/topics/t")).json()["partitions"]]
        assert hws == [2, 2]


async def test_unknown_transactional_id_and_wrong_producer(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    pid, epoch = await init_producer(client, transactional_id="tx")
    other, _ = await init_producer(client)
    assert_error(await end_txn(client, "nope", pid, epoch), 409, "INVALID_PRODUCER_ID_MAPPING")
    assert_error(
        await produce_raw(client, pid, epoch, [batch("t", 0, 0)], "nope"),
        409,
        "INVALID_PRODUCER_ID_MAPPING",
    )
    assert_error(
        await produce_raw(client, other, 0, [batch("t", 0, 0)], "tx"),
        409,
        "INVALID_PRODUCER_ID_MAPPING",
    )
    assert_error(await end_txn(client, "tx", other, 0), 409, "INVALID_PRODUCER_ID_MAPPING")
    assert (await partition_info(client, "t"))["high_watermark"] == 0
    assert (await client.get("/v1/transactions/tx")).json()["state"] == "Empty"


async def test_concurrent_end_gets_concurrent_transactions(txn_served: Served) -> None:
    c, b = txn_served.client, txn_served.broker
    await create_topic(c, "t")
    pid, epoch = await init_producer(c, transactional_id="tx")
    await produce_ok(c, pid, epoch, [batch("t", 0, 0)], "tx")
    tm = b.transactions.txns["tx"]
    first = asyncio.create_task(b.transactions.end_txn("tx", pid, epoch, True))

    async def staged() -> None:
        while tm.pending is None and not tm.state.is_prepare:
            await asyncio.sleep(0)

    await asyncio.wait_for(staged(), 5)
    err = assert_error(await end_txn(c, "tx", pid, epoch), 409, "CONCURRENT_TRANSACTIONS")
    assert err["retriable"] is True and err["kafka_code"] == 51
    assert_error(
        await produce_raw(c, pid, epoch, [batch("t", 0, 1)], "tx"), 409, "CONCURRENT_TRANSACTIONS"
    )
    assert_error(
        await c.post("/v1/producers", json={"transactional_id": "tx"}),
        409,
        "CONCURRENT_TRANSACTIONS",
    )
    assert await first == (pid, epoch + 1)
    assert (await end_txn(c, "tx", pid, epoch)).json()["producer_epoch"] == epoch + 1


async def test_concurrent_joins_of_one_transaction_wait_for_each_other(
    txn_served: Served,
) -> None:
    """Produce requests of one transaction to two new partitions at once: the second join
    waits while the first is being written, then adds its partition, instead of answering
    CONCURRENT_TRANSACTIONS; both records commit together."""
    c, b = txn_served.client, txn_served.broker
    await create_topic(c, "t", partitions=2)
    pid, epoch = await init_producer(c, transactional_id="tx")
    store = b.transactions.store
    real_save = store.save
    gate = asyncio.Event()

    async def held_save(row: Any, **kw: Any) -> None:
        await gate.wait()
        await real_save(row, **kw)

    store.save = held_save  # type: ignore[method-assign]
    first = asyncio.create_task(produce_raw(c, pid, epoch, [batch("t", 0, 0)], "tx"))
    tm = b.transactions.txns["tx"]
    await asyncio.wait_for(_until(lambda: tm.pending is not None), 5)  # the first join staged
    second = asyncio.create_task(produce_raw(c, pid, epoch, [batch("t", 1, 0)], "tx"))
    for _ in range(50):  # the second request reaches the join and waits there
        await asyncio.sleep(0)
    assert not second.done(), second.result().text
    gate.set()
    r1, r2 = await first, await second
    store.save = real_save  # type: ignore[method-assign]
    assert r1.status_code == 200, r1.text
    assert r2.status_code == 200, r2.text
    assert b.transactions.txns["tx"].partitions == {("t", 0), ("t", 1)}
    assert (await end_txn(c, "tx", pid, epoch)).status_code == 200
    assert sorted(await values(c, "t", 0, isolation="read_committed")) == ["v0"]
    assert sorted(await values(c, "t", 1, isolation="read_committed")) == ["v0"]


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0)


async def test_timeout_abort_and_kip588_recovery(txn_served: Served, clock: FakeClock) -> None:
    c, b = txn_served.client, txn_served.broker
    await create_topic(c, "t")
    pid, e = await init_producer(c, transactional_id="tx", transaction_timeout_ms=5000)
    await produce_ok(c, pid, e, [batch("t", 0, 0, 2)], "tx")
    clock.advance(5000)
    assert await b.transactions.abort_timed_out() == 0  # not past the timeout yet
    clock.advance(1)
    assert await b.transactions.abort_timed_out() == 1
    assert (await c.get("/v1/transactions/tx")).json()["state"] == "CompleteAbort"
    info = await partition_info(c, "t")
    assert info["last_stable_offset"] == info["high_watermark"] == 3
    assert await values(c, "t", isolation="read_committed") == []
    err = assert_error(await end_txn(c, "tx", pid, e), 409, "TRANSACTION_TIMED_OUT")
    assert err["retriable"] is True
    assert_error(await end_txn(c, "tx", pid, e, "abort"), 409, "TRANSACTION_TIMED_OUT")
    assert_error(
        await produce_raw(c, pid, e, [batch("t", 0, 2)], "tx"), 409, "INVALID_PRODUCER_EPOCH"
    )
    recovered = await init_producer(c, transactional_id="tx", producer_id=pid, producer_epoch=e)
    assert recovered == (pid, e + 2)
    # after recovery the old epoch is simply fenced on the transaction endpoints ...
    assert_error(await end_txn(c, "tx", pid, e), 409, "PRODUCER_FENCED")
    # ... and a retry of the recovery call (its answer lost) answers the same again
    again = await init_producer(c, transactional_id="tx", producer_id=pid, producer_epoch=e)
    assert again == (pid, e + 2)
    await produce_ok(c, pid, e + 2, [batch("t", 0, 0, tag="ok")], "tx")
    assert (await end_txn(c, "tx", pid, e + 2)).status_code == 200
    assert await values(c, "t", isolation="read_committed") == ["ok0"]


async def test_a_different_instance_after_a_timeout_is_fenced(
    txn_served: Served, clock: FakeClock
) -> None:
    c, b = txn_served.client, txn_served.broker
    await create_topic(c, "t")
    pid, e = await init_producer(c, transactional_id="tx", transaction_timeout_ms=1000)
    await produce_ok(c, pid, e, [batch("t", 0, 0)], "tx")
    clock.advance(2000)
    await b.transactions.abort_timed_out()
    assert await init_producer(c, transactional_id="tx") == (pid, e + 2)  # a new instance
    assert_error(await end_txn(c, "tx", pid, e), 409, "PRODUCER_FENCED")
    r = await c.post(
        "/v1/producers", json={"transactional_id": "tx", "producer_id": pid, "producer_epoch": e}
    )
    assert_error(r, 409, "PRODUCER_FENCED")


async def test_epoch_exhaustion_rolls_the_transactional_id_to_a_new_producer_id(
    txn_served: Served,
) -> None:
    c, b = txn_served.client, txn_served.broker
    await create_topic(c, "t")
    pid, _ = await init_producer(c, transactional_id="tx")
    b.transactions.txns["tx"].producer_epoch = 32765  # as if after 32765 transactions
    await produce_ok(c, pid, 32765, [batch("t", 0, 0)], "tx")
    r = await end_txn(c, "tx", pid, 32765)
    new_pid, epoch = r.json()["producer_id"], r.json()["producer_epoch"]
    assert new_pid != pid and epoch == 0
    # a retry of that commit answers the same new id, not a fence
    assert (await end_txn(c, "tx", pid, 32765)).json() == r.json()
    await produce_ok(c, new_pid, 0, [batch("t", 0, 0, tag="n")], "tx")
    assert (await end_txn(c, "tx", new_pid, 0)).json() == {
        "producer_id": new_pid,
        "producer_epoch": 1,
    }
    assert await values(c, "t", isolation="read_committed") == ["v0", "n0"]
    # InitProducerId at the last epoch rolls too
    b.transactions.txns["tx"].producer_epoch = 32765
    b.transactions.txns["tx"].producer_id = new_pid
    rolled, e0 = await init_producer(c, transactional_id="tx")
    assert rolled not in (pid, new_pid) and e0 == 0


async def test_open_transaction_survives_restart_and_its_timeout_applies(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    settings = settings_factory()
    async with running(settings, clock) as s:
        await create_topic(s.client, "t")
        pid, e = await init_producer(s.client, transactional_id="tx", transaction_timeout_ms=10_000)
        await produce_ok(s.client, pid, e, [batch("t", 0, 0, 3)], "tx")
    async with running(settings, clock) as s:
        described = (await s.client.get("/v1/transactions/tx")).json()
        assert described["state"] == "Ongoing"
        assert (await partition_info(s.client, "t"))["last_stable_offset"] == 0
        assert await s.broker.transactions.abort_timed_out() == 0
        clock.advance(10_001)
        assert await s.broker.transactions.abort_timed_out() == 1
        assert_error(await end_txn(s.client, "tx", pid, e), 409, "TRANSACTION_TIMED_OUT")
    async with running(settings, clock) as s:
        # the timed-out epoch is persisted: recovery still works after a restart
        assert_error(await end_txn(s.client, "tx", pid, e), 409, "TRANSACTION_TIMED_OUT")
        assert await init_producer(
            s.client, transactional_id="tx", producer_id=pid, producer_epoch=e
        ) == (pid, e + 2)
        assert await values(s.client, "t", isolation="read_committed") == []


async def test_producer_state_expires_unless_a_transaction_is_open(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    async with running(settings_factory(producer_id_expiration_ms=60_000), clock) as s:
        c = s.client
        await create_topic(c, "t")
        idem, _ = await init_producer(c)
        tpid, te = await init_producer(c, transactional_id="tx", transaction_timeout_ms=900_000)
        await produce_ok(c, idem, 0, [batch("t", 0, 0, 3)])
        await produce_ok(c, tpid, te, [batch("t", 0, 0)], "tx")
        clock.advance(60_001)
        assert s.broker.producers.expire_producers() == 1  # the idempotent one only
        # no state: it may start anywhere
        assert (await produce_ok(c, idem, 0, [batch("t", 0, 50)]))[0]["error"] is None
        assert (await produce_ok(c, tpid, te, [batch("t", 0, 1)], "tx"))[0]["error"] is None


async def test_list_and_describe(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    pid, e = await init_producer(client, transactional_id="a")
    await init_producer(client, transactional_id="b")
    await produce_ok(client, pid, e, [batch("t", 0, 0)], "a")
    r = await client.get("/v1/transactions")
    assert [(t["transactional_id"], t["state"]) for t in r.json()["transactions"]] == [
        ("a", "Ongoing"),
        ("b", "Empty"),
    ]
    r = await client.get("/v1/transactions", params={"state": "Ongoing"})
    (only,) = r.json()["transactions"]
    assert only["transactional_id"] == "a" and only["start_ms"] > 0
    assert only["timeout_ms"] == 60_000
    assert_error(
        await client.get("/v1/transactions", params={"state": "Nope"}), 400, "INVALID_REQUEST"
    )
    # Kafka's PrepareEpochFence is never entered here (fencing goes straight to PrepareAbort)
    assert_error(
        await client.get("/v1/transactions", params={"state": "PrepareEpochFence"}),
        400,
        "INVALID_REQUEST",
    )
    assert_error(await client.get("/v1/transactions/zzz"), 404, "NOT_FOUND")
    text = await metrics(client)
    assert metric(text, "sluice_transactions_open") == 1
    assert metric(text, "sluice_transactional_ids") == 2


async def test_idle_transactional_id_expires(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    settings = settings_factory(transactional_id_expiration_ms=100_000)
    async with running(settings, clock) as s:
        c, b = s.client, s.broker
        await create_topic(c, "t")
        pid, e = await init_producer(c, transactional_id="idle", transaction_timeout_ms=900_000)
        busy, be = await init_producer(c, transactional_id="busy", transaction_timeout_ms=900_000)
        await produce_ok(c, busy, be, [batch("t", 0, 0)], "busy")
        clock.advance(100_001)
        assert b.transactions.owner_of(pid) == "idle"
        assert await b.transactions.abort_timed_out() == 0
        assert_error(await c.get("/v1/transactions/idle"), 404, "NOT_FOUND")
        # nothing of it is kept: a server that sees many short-lived transactional ids forgets
        # each once it expires
        assert b.transactions.owner_of(pid) is None
        assert (await c.get("/v1/transactions/busy")).json()["state"] == "Ongoing"
        assert_error(await end_txn(c, "idle", pid, e), 409, "INVALID_PRODUCER_ID_MAPPING")
    async with running(settings, clock) as s:
        assert_error(await s.client.get("/v1/transactions/idle"), 404, "NOT_FOUND")
        new_pid, epoch = await init_producer(s.client, transactional_id="idle")
        assert new_pid != pid and epoch == 0


async def test_delete_records_past_an_open_transaction_keeps_the_lso_readable(
    client: httpx.AsyncClient,
) -> None:
    """ListOffsets "latest" under read_committed answers an offset a read_committed consumer
    can fetch from, even when delete-records moved the log start past the first offset of a
    transaction still open."""
    await create_topic(client, "t")
    await produce(client, "t", [{"value": "p0", "partition": 0}, {"value": "p1", "partition": 0}])
    pid, epoch = await init_producer(client, transactional_id="tx")
    await produce_ok(client, pid, epoch, [batch("t", 0, 0, 2)], "tx")  # offsets 2-3
    await produce(client, "t", [{"value": "p2", "partition": 0}])  # offset 4
    r = await client.post(
        "/v1/topics/t/delete-records", json={"partitions": [{"partition": 0, "before_offset": 3}]}
    )
    assert r.status_code == 200, r.text
    info = await partition_info(client, "t")
    assert info["log_start_offset"] == 3
    assert info["last_stable_offset"] == 3
    r = await client.get(
        "/v1/topics/t/partitions/0/offsets",
        params={"at": "latest", "isolation_level": "read_committed"},
    )
    assert r.status_code == 200, r.text
    latest = r.json()["offset"]
    assert latest == 3
    r = await client.get(
        "/v1/topics/t/partitions/0/records",
        params={"offset": latest, "isolation_level": "read_committed"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["records"] == [] and r.json()["last_stable_offset"] == 3
    assert (await end_txn(client, "tx", pid, epoch, "abort")).status_code == 200
    assert await values(client, "t", 0, "read_committed", offset=latest) == ["p2"]


async def test_markers_are_durable_before_the_end_completes_with_fsync_interval(
    settings_factory: Callable[..., Settings],
) -> None:
    """With fsync=interval a produce answer may precede its fsync, but a transaction's end may
    not: Complete* in SQLite says the markers exist, and recovery never writes them again. A
    power loss that dropped markers written after a durable Complete* would leave the
    transaction open on its partitions forever (an LSO stuck for good)."""
    settings = settings_factory(fsync="interval", fsync_interval_ms=60_000)
    async with running(settings) as s:
        c = s.client
        await create_topic(c, "t", partitions=2)
        pid, epoch = await init_producer(c, transactional_id="tx")
        await produce_ok(c, pid, epoch, [batch("t", 0, 0, 2), batch("t", 1, 0)], "tx")
        r = await end_txn(c, "tx", pid, epoch)
        assert r.status_code == 200, r.text
        assert (await c.get("/v1/transactions/tx")).json()["state"] == "CompleteCommit"
        for p, marker in ((0, 2), (1, 1)):
            lg = s.broker.topics.get("t").log(p)
            assert lg.log_end_offset == marker + 1
            assert lg._durable_offset > marker  # the marker was fsynced before completion


async def test_commit_racing_the_timeout_abort_is_never_invalid_txn_state(
    txn_served: Served, clock: FakeClock
) -> None:
    """docs/semantics.md#kip-588-timeouts: a commit that loses the race against the timeout
    abort gets the retriable CONCURRENT_TRANSACTIONS while the abort runs and
    TRANSACTION_TIMED_OUT after it (never the fatal INVALID_TXN_STATE); one that wins commits
    and the sweep leaves it alone."""
    c, b = txn_served.client, txn_served.broker
    await create_topic(c, "t")
    for delay in range(4):  # the commit starts after `delay` turns of the event loop
        tid = f"tx{delay}"
        pid, e = await init_producer(c, transactional_id=tid, transaction_timeout_ms=1000)
        await produce_ok(c, pid, e, [batch("t", 0, 0)], tid)
        clock.advance(1001)

        async def commit(
            tid: str = tid, pid: int = pid, e: int = e, delay: int = delay
        ) -> httpx.Response:
            for _ in range(delay):
                await asyncio.sleep(0)
            return await end_txn(c, tid, pid, e)

        aborted, r = await asyncio.gather(b.transactions.abort_timed_out(), commit())
        assert aborted == 1, "the sweep started first"
        assert_error(r, 409, "CONCURRENT_TRANSACTIONS")
        assert_error(await end_txn(c, tid, pid, e), 409, "TRANSACTION_TIMED_OUT")
    # the commit first: it wins, the sweep finds nothing open
    pid, e = await init_producer(c, transactional_id="won", transaction_timeout_ms=1000)
    await produce_ok(c, pid, e, [batch("t", 0, 0, tag="w")], "won")
    clock.advance(1001)
    r, aborted = await asyncio.gather(end_txn(c, "won", pid, e), b.transactions.abort_timed_out())
    assert r.status_code == 200, r.text
    assert aborted == 0
    assert await values(c, "t", isolation="read_committed") == ["w0"]
    info = await partition_info(c, "t")
    assert info["last_stable_offset"] == info["high_watermark"]


async def test_first_init_of_a_transactional_id_is_staged_until_durable(txn_served: Served) -> None:
    """Two first InitProducerIds of one transactional id race: while the first one's row is
    not durable yet, the second is turned away (retriable) instead of bumping an epoch that
    may never exist. Here the first write fails: afterwards memory and SQLite agree, and no
    caller holds an answer the server has forgotten."""
    from app.errors import SluiceError
    from app.metadata.txn_store import TxnRow

    coordinator = txn_served.broker.transactions
    store = coordinator.store
    real_save = store.save
    gate = asyncio.Event()
    calls = 0

    async def first_write_fails(row: TxnRow) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            await gate.wait()
            raise OSError("disk full")
        await real_save(row)

    store.save = first_write_fails  # type: ignore[method-assign, assignment]
    first = asyncio.create_task(coordinator.init_producer_id("tx", 60_000, None, None, None))
    for _ in range(10):
        await asyncio.sleep(0)
    assert not first.done()
    second: tuple[int, int] | SluiceError
    try:
        second = await coordinator.init_producer_id("tx", 60_000, None, None, None)
    except SluiceError as exc:
        second = exc
    gate.set()
    with pytest.raises(OSError):
        await first
    store.save = real_save  # type: ignore[method-assign]
    durable = {r.transactional_id for r in await store.load_all()}
    if isinstance(second, SluiceError):
        assert second.to_dict()["code"] == "CONCURRENT_TRANSACTIONS"
        assert second.to_dict()["retriable"] is True
    else:  # an answered init must stay valid
        assert "tx" in coordinator.txns
    assert set(coordinator.txns) == durable
    # a retry now starts cleanly
    _, epoch = await init_producer(txn_served.client, transactional_id="tx")
    assert epoch == 0
    assert {r.transactional_id for r in await store.load_all()} == {"tx"}


async def test_an_instance_fenced_mid_init_stays_fenced(
    settings_factory: Callable[..., Settings],
) -> None:
    """A new instance's InitProducerId aborts the open transaction of the older one, then
    bumps the epoch. If the server stops (here: the last write fails) between the two, the
    older instance must still be fenced, as it is once the init completes: its commit or
    abort is PRODUCER_FENCED, never INVALID_TXN_STATE nor a 200 that hands it the current
    epoch back. The state is the same after a restart."""
    from app.metadata.txn_store import TxnRow, Write

    settings = settings_factory()
    async with running(settings) as s:
        c = s.client
        await create_topic(c, "t")
        pid, e = await init_producer(c, transactional_id="tx")
        await produce_ok(c, pid, e, [batch("t", 0, 0, 2)], "tx")
        store = s.broker.transactions.store
        real_save = store.save

        async def bump_fails(
            row: TxnRow | None,
            *,
            also: Sequence[Write] = (),
            real_save: Callable[..., Awaitable[None]] = real_save,
        ) -> None:
            if row is not None and row.state == "Empty":
                raise OSError("disk full")
            await real_save(row, also=also)

        store.save = bump_fails  # type: ignore[method-assign]
        with pytest.raises(OSError):
            await s.broker.transactions.init_producer_id("tx", 60_000, None, None, None)
        store.save = real_save  # type: ignore[method-assign]
        assert (await c.get("/v1/transactions/tx")).json()["state"] == "CompleteAbort"
    async with running(settings) as s:
        c = s.client
        for how in ("commit", "abort"):
            assert_error(await end_txn(c, "tx", pid, e, how), 409, "PRODUCER_FENCED")
        assert_error(
            await produce_raw(c, pid, e, [batch("t", 0, 2)], "tx"), 409, "INVALID_PRODUCER_EPOCH"
        )
        assert await init_producer(c, transactional_id="tx") == (pid, e + 2)
        assert await values(c, "t", isolation="read_committed") == []
        info = await partition_info(c, "t")
        assert info["last_stable_offset"] == info["high_watermark"] == 3


async def test_a_lost_answer_to_a_recovering_init_that_aborted_is_retried(
    client: httpx.AsyncClient,
) -> None:
    """The recovering producer's own open transaction is aborted by its init; the retry of
    that init (same producer id and epoch) answers the same epoch instead of fencing it."""
    c = client
    await create_topic(c, "t")
    pid, e = await init_producer(c, transactional_id="tx")
    await produce_ok(c, pid, e, [batch("t", 0, 0)], "tx")
    first = await init_producer(c, transactional_id="tx", producer_id=pid, producer_epoch=e)
    assert first[0] == pid and first[1] > e
    assert (await c.get("/v1/transactions/tx")).json()["state"] == "Empty"
    assert await init_producer(c, transactional_id="tx", producer_id=pid, producer_epoch=e) == first
    assert_error(await end_txn(c, "tx", pid, e), 409, "PRODUCER_FENCED")
    await produce_ok(c, *first, [batch("t", 0, 0, tag="ok")], "tx")
    assert (await end_txn(c, "tx", *first)).status_code == 200
    assert await values(c, "t", isolation="read_committed") == ["ok0"]
