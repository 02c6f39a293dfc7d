"""Several transactions at once (docs/semantics.md#commit-all): POST /v1/transactions:commit-all
commits them all or none, its idempotency key turns a repeated request into a duplicate that
aborts its open transactions, keys expire through the sweeper; POST
/v1/transactions:abort-prefix aborts and fences every open transaction of a prefix. The stops
between the steps are in tests/recovery/test_commit_all_stop.py."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.clock import FakeClock
from app.config import Settings
from app.errors import ErrorCode, StorageError
from app.metadata.txn_store import CommitKeyRow, TxnRow

from .acl_world import ADMIN, World, start_world
from .conftest import Served, running
from .helpers import assert_error, create_topic
from .txn_helpers import (
    batch,
    end_txn,
    init_producer,
    partition_info,
    produce_ok,
    produce_raw,
    values,
)

COMMIT_ALL = "/v1/transactions:commit-all"
ABORT_PREFIX = "/v1/transactions:abort-prefix"
Ident = tuple[str, int, int]  # transactional id, producer id, epoch


@pytest.fixture
async def s(settings_factory: Callable[..., Settings], clock: FakeClock) -> AsyncIterator[Served]:
    async with running(settings_factory(), clock) as served:
        await create_topic(served.client, "out", 3)
        yield served


async def open_txn(c: httpx.AsyncClient, tid: str, partition: int, n: int = 1) -> Ident:
    """A transaction of ``tid`` open with ``n`` records on ``out``/``partition`` (values
    ``<tid>:0``…), at the producer's current epoch."""
    r = await c.get(f"/v1/transactions/{tid}")
    if r.status_code == 200 and r.json()["state"] != "Ongoing":
        pid, e = r.json()["producer_id"], r.json()["producer_epoch"]
    else:
        pid, e = await init_producer(c, transactional_id=tid)
    await produce_ok(c, pid, e, [batch("out", partition, 0, n, tag=f"{tid}:")], tid)
    return tid, pid, e


def body(txns: Sequence[Ident], key: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "transactions": [
            {"transactional_id": t, "producer_id": p, "producer_epoch": e} for t, p, e in txns
        ]
    }
    if key is not None:
        out["idempotency_key"] = key
    return out


async def commit_all(
    c: httpx.AsyncClient, txns: Sequence[Ident], key: str | None = None
) -> httpx.Response:
    return await c.post(COMMIT_ALL, json=body(txns, key))


def answered(r: httpx.Response) -> list[Ident]:
    assert r.status_code == 200, r.text
    return [
        (t["transactional_id"], t["producer_id"], t["producer_epoch"])
        for t in r.json()["transactions"]
    ]


def bumped(txns: Sequence[Ident], by: int = 1) -> list[Ident]:
    return [(t, p, e + by) for t, p, e in txns]


async def state(c: httpx.AsyncClient, tid: str) -> str:
    r = await c.get(f"/v1/transactions/{tid}")
    assert r.status_code == 200, r.text
    return str(r.json()["state"])


async def committed(c: httpx.AsyncClient) -> list[str]:
    """Every value a read_committed reader sees on ``out``, all partitions, sorted."""
    return sorted([v for p in range(3) for v in await values(c, "out", p, "read_committed")])


def keys_on_disk(s: Served) -> list[tuple[str, int]]:
    conn = sqlite3.connect(s.broker.data.metadata)
    try:
        return [
            (str(k), int(ms))
            for k, ms in conn.execute("SELECT key, committed_ms FROM txn_commit_keys ORDER BY key")
        ]
    finally:
        conn.close()


# -- commit-all ---------------------------------------------------------------------------------


async def test_commit_all_commits_every_transaction_in_one_sqlite_commit(s: Served) -> None:
    c, store = s.client, s.broker.transactions.store
    txns = [
        await open_txn(c, "q-0", 0, 2),
        await open_txn(c, "q-1", 1),
        await open_txn(c, "q-2", 1),
    ]
    assert await committed(c) == []
    decisions: list[list[tuple[str, str]]] = []
    save_many = store.save_many

    async def spy(rows: Sequence[TxnRow], *, key: CommitKeyRow | None = None) -> None:
        decisions.append([(r.transactional_id, r.state) for r in rows])
        await save_many(rows, key=key)

    store.save_many = spy  # type: ignore[method-assign]
    try:
        r = await commit_all(c, txns, "q:1")
    finally:
        del store.save_many
    assert r.json()["duplicate"] is False and "committed_ms" not in r.json()
    assert answered(r) == bumped(txns)
    # the decision of all three (and the key): one SQLite commit
    assert decisions == [
        [("q-0", "PrepareCommit"), ("q-1", "PrepareCommit"), ("q-2", "PrepareCommit")]
    ]
    assert keys_on_disk(s) == [("q:1", s.broker.clock.now_ms())]
    assert await committed(c) == ["q-0:0", "q-0:1", "q-1:0", "q-2:0"]
    for p in range(3):
        info = await partition_info(c, "out", p)
        assert info["last_stable_offset"] == info["high_watermark"]
    assert [await state(c, t) for t, _, _ in txns] == ["CompleteCommit"] * 3
    # the identities answered are the next transactions'
    nxt = [await open_txn(c, t, 2) for t in ("q-0", "q-1")]
    assert nxt == bumped(txns[:2])
    assert answered(await commit_all(c, nxt)) == bumped(txns[:2], 2)


@pytest.mark.parametrize("refusal", ["fenced", "unknown", "wrong_producer", "timed_out", "pending"])
async def test_one_refused_transaction_refuses_the_whole_request(
    s: Served, clock: FakeClock, refusal: str
) -> None:
    c, coordinator = s.client, s.broker.transactions
    a = await open_txn(c, "a", 0)
    if refusal == "timed_out":
        b_pid, b_e = await init_producer(c, transactional_id="b", transaction_timeout_ms=1000)
        await produce_ok(c, b_pid, b_e, [batch("out", 1, 0, tag="b:")], "b")
        b: Ident = ("b", b_pid, b_e)
    else:
        b = await open_txn(c, "b", 1)
    z = await open_txn(c, "z", 2)
    expected = {
        "fenced": (409, "PRODUCER_FENCED"),
        "unknown": (409, "INVALID_PRODUCER_ID_MAPPING"),
        "wrong_producer": (409, "INVALID_PRODUCER_ID_MAPPING"),
        "timed_out": (409, "TRANSACTION_TIMED_OUT"),
        "pending": (409, "CONCURRENT_TRANSACTIONS"),
    }[refusal]
    if refusal == "fenced":
        await init_producer(c, transactional_id="b")  # a new instance: b's transaction aborted
    elif refusal == "unknown":
        b = ("nobody", 0, 0)
    elif refusal == "wrong_producer":
        b = ("b", z[1], b[2])
    elif refusal == "timed_out":
        clock.advance(1001)
        assert await coordinator.abort_timed_out() == 1
    tm_b = coordinator.txns["b"]
    if refusal == "pending":
        tm_b.pending = tm_b.transit()  # a change of b under way
    try:
        err = assert_error(await commit_all(c, [a, b, z], "k"), *expected)
    finally:
        if refusal == "pending":
            tm_b.pending = None
    assert err["message"].startswith(f"transactions[1] ({b[0]}): "), err
    # nothing changed: a and z still open, nothing visible, no key
    assert (await state(c, "a"), await state(c, "z")) == ("Ongoing", "Ongoing")
    assert await committed(c) == []
    assert keys_on_disk(s) == []
    # and each can still be committed without the refused one
    r = await end_txn(c, "a", a[1], a[2])
    assert r.status_code == 200, r.text
    assert answered(await commit_all(c, [z], "k")) == bumped([z])
    assert await committed(c) == ["a:0", "z:0"]


async def test_nothing_open_and_a_retried_commit(s: Served) -> None:
    """As in the single commit: an id with nothing open is answered its identity and left
    alone; a retry of a committed commit-all (its answer lost) answers the same again and
    changes nothing; the producer that aborted gets INVALID_TXN_STATE."""
    c = s.client
    pid, e = await init_producer(c, transactional_id="idle")
    txns = [await open_txn(c, "a", 0), await open_txn(c, "b", 1)]
    first = answered(await commit_all(c, [*txns, ("idle", pid, e)]))
    assert first == [*bumped(txns), ("idle", pid, e)]
    assert await state(c, "idle") == "Empty"
    hw = [(await partition_info(c, "out", p))["high_watermark"] for p in range(3)]
    assert answered(await commit_all(c, [*txns, ("idle", pid, e)])) == first
    assert [(await partition_info(c, "out", p))["high_watermark"] for p in range(3)] == hw
    # a transaction its producer aborted cannot be committed by a retry
    aborted = await open_txn(c, "c", 2)
    r = await end_txn(c, "c", aborted[1], aborted[2], "abort")
    assert r.status_code == 200, r.text
    err = assert_error(await commit_all(c, [aborted]), 409, "INVALID_TXN_STATE")
    assert err["message"].startswith("transactions[0] (c): ")
    assert await committed(c) == ["a:0", "b:0"]


async def test_answered_at_the_decision_with_txn_answer_prepare(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    async with running(settings_factory(txn_answer="prepare"), clock) as s:
        c = s.client
        await create_topic(c, "out", 3)
        txns = [await open_txn(c, "a", 0), await open_txn(c, "b", 1)]
        assert answered(await commit_all(c, txns)) == bumped(txns)
        await s.broker.transactions.drain()
        assert await committed(c) == ["a:0", "b:0"]
        # the next request of each transactional id proceeds with the identity answered
        assert [await open_txn(c, t, 2) for t in ("a", "b")] == bumped(txns)


# -- the idempotency key ------------------------------------------------------------------------


async def test_a_committed_key_makes_a_duplicate_that_aborts_its_open_transactions(
    s: Served, clock: FakeClock
) -> None:
    c = s.client
    first = [await open_txn(c, "q-0", 0), await open_txn(c, "q-1", 1)]
    committed_at = clock.now_ms()
    assert answered(await commit_all(c, first, "q:7")) == bumped(first)
    clock.advance(5000)
    # the answer was lost: the same request again is a duplicate, and changes nothing
    r = await commit_all(c, first, "q:7")
    assert r.json()["duplicate"] is True and r.json()["committed_ms"] == committed_at
    assert answered(r) == bumped(first)
    # the batch is written again (a restarted job) and committed with the same key
    other = await open_txn(c, "other", 2)  # open, but at another epoch than the request names
    again = [await open_txn(c, "q-0", 0), await open_txn(c, "q-1", 1)]
    assert again == bumped(first)
    stale_other = ("other", other[1], other[2] + 3)
    r = await commit_all(c, [*again, stale_other], "q:7")
    assert r.status_code == 200, r.text
    assert r.json()["duplicate"] is True and r.json()["committed_ms"] == committed_at
    # the open transactions of the request are aborted (epoch bumped); nothing else is fenced
    assert answered(r) == [*bumped(again), other]
    assert [await state(c, t) for t, _, _ in again] == ["CompleteAbort"] * 2
    assert await state(c, "other") == "Ongoing"
    assert await committed(c) == ["q-0:0", "q-1:0"]  # the second writes never become visible
    for p in (0, 1):
        info = await partition_info(c, "out", p)
        assert info["last_stable_offset"] == info["high_watermark"]
    # the producers go on with the identities answered; the other transaction commits
    assert await open_txn(c, "q-0", 0) == bumped(again)[0]
    r = await end_txn(c, "other", other[1], other[2])
    assert r.status_code == 200, r.text
    assert "other:0" in await committed(c)


async def test_an_unknown_id_in_a_duplicate_aborts_nothing(s: Served) -> None:
    c = s.client
    first = [await open_txn(c, "q-0", 0)]
    answered(await commit_all(c, first, "k"))
    again = await open_txn(c, "q-0", 0)
    err = assert_error(
        await commit_all(c, [again, ("ghost", 1, 0)], "k"), 409, "INVALID_PRODUCER_ID_MAPPING"
    )
    assert err["message"].startswith("transactions[1] (ghost): ")
    assert await state(c, "q-0") == "Ongoing"


async def test_keys_expire_after_their_retention_through_the_sweeper(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    async with running(settings_factory(txn_commit_key_retention_ms=1000), clock) as s:
        c, coordinator = s.client, s.broker.transactions
        await create_topic(c, "out", 3)
        t0 = clock.now_ms()
        answered(await commit_all(c, [await open_txn(c, "a", 0)], "k1"))
        answered(await commit_all(c, [await open_txn(c, "b", 1)], "k2"))
        await coordinator.abort_timed_out()  # the sweep: nothing old enough yet
        assert keys_on_disk(s) == [("k1", t0), ("k2", t0)]
        clock.advance(1001)
        await coordinator.abort_timed_out()  # within a minute of the last sweep: no deletes
        assert keys_on_disk(s) == [("k1", t0), ("k2", t0)]
        # past its retention a key counts as new, swept or not
        r = await commit_all(c, [await open_txn(c, "b", 1)], "k2")
        assert r.json()["duplicate"] is False, r.text
        assert await state(c, "b") == "CompleteCommit"
        assert keys_on_disk(s) == [("k1", t0), ("k2", t0 + 1001)]
        clock.advance(60_000 - 1001)
        await coordinator.abort_timed_out()  # a minute on: the expired keys are deleted
        assert keys_on_disk(s) == []
        r = await commit_all(c, [await open_txn(c, "a", 0)], "k1")
        assert r.json()["duplicate"] is False, r.text
        assert await committed(c) == ["a:0", "a:0", "b:0", "b:0"]


async def test_concurrent_requests_with_the_same_key(s: Served) -> None:
    """While a request with a key is in flight (here held before its markers), another with
    the same key gets CONCURRENT_TRANSACTIONS (retriable); once it is done, a duplicate."""
    c = s.client
    txns = [await open_txn(c, "a", 0), await open_txn(c, "b", 1)]
    appender = s.broker.appender
    markers = appender.append_markers
    gate = asyncio.Event()
    held = asyncio.Event()

    async def held_back(
        producer_id: int, epoch: int, commit: bool, partitions: Collection[tuple[str, int]]
    ) -> None:
        held.set()
        await gate.wait()
        await markers(producer_id, epoch, commit, partitions)

    appender.append_markers = held_back  # type: ignore[method-assign]
    try:
        first = asyncio.create_task(commit_all(c, txns, "k"))
        await asyncio.wait_for(held.wait(), 5)
        err = assert_error(await commit_all(c, txns, "k"), 409, "CONCURRENT_TRANSACTIONS")
        assert err["retriable"] is True
        # without the key, the transactions themselves are changing: turned away too
        assert_error(await commit_all(c, txns), 409, "CONCURRENT_TRANSACTIONS")
        gate.set()
        assert answered(await first) == bumped(txns)
    finally:
        del appender.append_markers
    r = await commit_all(c, txns, "k")
    assert r.json()["duplicate"] is True and answered(r) == bumped(txns)
    assert await committed(c) == ["a:0", "b:0"]


async def test_a_retry_after_a_failed_completion_is_a_duplicate_once_complete(
    s: Served,
) -> None:
    """The decision is written, the markers fail (a full disk): 507. A retry with the same key
    is turned away (retriable) while the transactions are in PrepareCommit; once the sweeper
    has finished them, it is a duplicate answering the identities after the commit."""
    c = s.client
    txns = [await open_txn(c, "a", 0), await open_txn(c, "b", 1)]
    appender = s.broker.appender

    async def full(*args: Any, **kwargs: Any) -> None:
        raise StorageError(ErrorCode.KAFKA_STORAGE_ERROR, "append failed: no space left on device")

    appender.append_markers = full  # type: ignore[method-assign]
    try:
        assert_error(await commit_all(c, txns, "k"), 507, "KAFKA_STORAGE_ERROR")
    finally:
        del appender.append_markers
    assert [await state(c, t) for t, _, _ in txns] == ["PrepareCommit"] * 2
    err = assert_error(await commit_all(c, txns, "k"), 409, "CONCURRENT_TRANSACTIONS")
    assert err["retriable"] is True
    await s.broker.transactions.abort_timed_out()  # the sweep finishes the ends
    r = await commit_all(c, txns, "k")
    assert r.json()["duplicate"] is True and answered(r) == bumped(txns)
    assert await committed(c) == ["a:0", "b:0"]


# -- abort-prefix ----------------------------------------------------------------------------------


async def test_abort_prefix_aborts_and_fences_the_open_transactions_of_the_prefix(
    s: Served,
) -> None:
    c = s.client
    j0, j1 = await open_txn(c, "job-0", 0, 2), await open_txn(c, "job-1", 1)
    idle = await init_producer(c, transactional_id="job-2")
    other = await open_txn(c, "jobs", 2)  # "jobs" does not start with "job-"
    r = await c.post(ABORT_PREFIX, json={"prefix": "job-"})
    assert r.status_code == 200, r.text
    assert r.json() == {"aborted": ["job-0", "job-1"]}
    assert [await state(c, t) for t in ("job-0", "job-1", "job-2", "jobs")] == [
        "CompleteAbort",
        "CompleteAbort",
        "Empty",
        "Ongoing",
    ]
    assert (await c.get("/v1/transactions/job-2")).json()["producer_epoch"] == idle[1]
    # durable on return: the markers are written, the aborted records are never visible
    for p in (0, 1):
        info = await partition_info(c, "out", p)
        assert info["last_stable_offset"] == info["high_watermark"]
    assert await committed(c) == []
    # the zombies are fenced: their produce, commit and even abort are refused
    _, pid, e = j0
    r = await produce_raw(c, pid, e, [batch("out", 0, 2, tag="zombie")], "job-0")
    assert_error(r, 409, "INVALID_PRODUCER_EPOCH")
    assert_error(await end_txn(c, "job-0", pid, e), 409, "PRODUCER_FENCED")
    assert_error(await end_txn(c, "job-0", pid, e, "abort"), 409, "PRODUCER_FENCED")
    assert_error(await commit_all(c, [j1]), 409, "PRODUCER_FENCED")
    # idempotent
    r = await c.post(ABORT_PREFIX, json={"prefix": "job-"})
    assert r.json() == {"aborted": []}
    # a new instance starts afresh; the other transaction is untouched and commits
    assert await init_producer(c, transactional_id="job-0") == (pid, e + 2)
    await produce_ok(c, pid, e + 2, [batch("out", 0, 0, tag="job-0:")], "job-0")
    assert answered(await commit_all(c, [("job-0", pid, e + 2), other])) == [
        ("job-0", pid, e + 3),
        ("jobs", other[1], other[2] + 1),
    ]
    assert await committed(c) == ["job-0:0", "jobs:0"]


async def test_abort_prefix_leaves_transactions_that_are_changing(s: Served) -> None:
    c, coordinator = s.client, s.broker.transactions
    await open_txn(c, "p-0", 0)
    await open_txn(c, "p-1", 1)
    tm = coordinator.txns["p-1"]
    tm.pending = tm.transit()  # a change under way
    try:
        r = await c.post(ABORT_PREFIX, json={"prefix": "p-"})
    finally:
        tm.pending = None
    assert r.json() == {"aborted": ["p-0"]}
    assert await state(c, "p-1") == "Ongoing"
    assert (await c.post(ABORT_PREFIX, json={"prefix": "p-"})).json() == {"aborted": ["p-1"]}


async def test_abort_prefix_is_complete_on_return_with_txn_answer_prepare(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    async with running(settings_factory(txn_answer="prepare"), clock) as s:
        c = s.client
        await create_topic(c, "out", 3)
        await open_txn(c, "p-0", 0)
        r = await c.post(ABORT_PREFIX, json={"prefix": "p"})
        assert r.json() == {"aborted": ["p-0"]}
        assert await state(c, "p-0") == "CompleteAbort"
        info = await partition_info(c, "out", 0)
        assert info["last_stable_offset"] == info["high_watermark"] == 2


# -- bad bodies ---------------------------------------------------------------------------------

GOOD = {"transactional_id": "a", "producer_id": 0, "producer_epoch": 0}


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        ([], "the body must be a JSON object"),
        ({}, "transactions: required"),
        ({"transactions": []}, "transactions: expected a non-empty list"),
        ({"transactions": {"a": 1}}, "transactions: expected a non-empty list"),
        ({"transactions": ["a"]}, "transactions[0]: expected an object"),
        (
            {"transactions": [{**GOOD, "transactional_id": None}]},
            "transactions[0].transactional_id",
        ),
        ({"transactions": [{**GOOD, "transactional_id": "no spaces"}]}, "transactional_id"),
        ({"transactions": [{**GOOD, "producer_id": -1}]}, "transactions[0].producer_id"),
        ({"transactions": [{**GOOD, "producer_id": "7"}]}, "transactions[0].producer_id"),
        ({"transactions": [{**GOOD, "producer_epoch": True}]}, "transactions[0].producer_epoch"),
        ({"transactions": [{**GOOD, "producer_epoch": 32768}]}, "transactions[0].producer_epoch"),
        ({"transactions": [GOOD, {**GOOD, "producer_id": 1}]}, "'a' appears twice"),
        ({"transactions": [GOOD], "idempotency_key": ""}, "idempotency_key"),
        ({"transactions": [GOOD], "idempotency_key": "k" * 256}, "1 to 255 characters"),
        ({"transactions": [GOOD], "idempotency_key": 5}, "idempotency_key"),
        ({"transactions": [GOOD], "idempotency_Key": "k"}, "unknown field 'idempotency_Key'"),
    ],
)
async def test_commit_all_bad_bodies(s: Served, sent: Any, message: str) -> None:
    await open_txn(s.client, "a", 0)
    err = assert_error(await s.client.post(COMMIT_ALL, json=sent), 400, "INVALID_REQUEST")
    assert message in err["message"], err
    assert await state(s.client, "a") == "Ongoing"


async def test_commit_all_not_json_and_too_many(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    async with running(settings_factory(txn_commit_all_max=2), clock) as s:
        c = s.client
        assert_error(await c.post(COMMIT_ALL, content=b"{nope"), 400, "INVALID_REQUEST")
        assert_error(await c.post(COMMIT_ALL, content=b""), 400, "INVALID_REQUEST")
        three = [(f"t{i}", 0, 0) for i in range(3)]
        err = assert_error(await commit_all(c, three), 413, "REQUEST_TOO_LARGE")
        assert "the limit is 2" in err["message"]
        # the limit first, whatever else is wrong
        assert_error(
            await c.post(COMMIT_ALL, json={"transactions": [1, 2, 3]}), 413, "REQUEST_TOO_LARGE"
        )


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        ([], "the body must be a JSON object"),
        ({}, "prefix: required"),
        ({"prefix": ""}, "prefix: expected a string of 1 to 255 characters"),
        ({"prefix": "p" * 256}, "prefix: expected a string of 1 to 255 characters"),
        ({"prefix": 5}, "prefix"),
        ({"prefix": "p", "all": True}, "unknown field 'all'"),
    ],
)
async def test_abort_prefix_bad_bodies(s: Served, sent: Any, message: str) -> None:
    await open_txn(s.client, "p-0", 0)
    err = assert_error(await s.client.post(ABORT_PREFIX, json=sent), 400, "INVALID_REQUEST")
    assert message in err["message"], err
    assert await state(s.client, "p-0") == "Ongoing"


# -- with API keys and ACLs ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from start_world(Path(tmp_path_factory.mktemp("world")))


def world_txn(w: World, tid: str) -> Ident:
    ident = w.admin("POST", "/v1/producers", {"transactional_id": tid})
    b = {"topic": "orders", "partition": 1, "base_sequence": 0, "records": [{"value": tid}]}
    r = w.call(
        w.principal(ADMIN),
        "POST",
        "/v1/produce",
        {**ident, "transactional_id": tid, "batches": [b]},
    )
    assert r.status_code == 200 and r.json()["batches"][0]["error"] is None, r.text
    return tid, ident["producer_id"], ident["producer_epoch"]


def test_commit_all_needs_write_on_every_transactional_id(world: World) -> None:
    a, b = world_txn(world, "acl-a"), world_txn(world, "acl-b")
    who = world.principal("half")
    world.grant(who, "TRANSACTIONAL_ID", "acl-a", "WRITE")
    r = world.call(who, "POST", COMMIT_ALL, body([a, b]))
    err = assert_error(r, 403, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED")
    assert "acl-b" in err["message"]
    assert world.admin("GET", "/v1/transactions/acl-a")["state"] == "Ongoing"
    world.grant(who, "TRANSACTIONAL_ID", "acl-b", "WRITE")
    assert answered(world.call(who, "POST", COMMIT_ALL, body([a, b]))) == bumped([a, b])


def test_idempotency_keys_are_the_principals_own(world: World) -> None:
    """The same key from two principals: two keys. One principal's committed key never makes
    another's request a duplicate (which would abort its transactions)."""
    x, y = world_txn(world, "key-x"), world_txn(world, "key-y")
    px, py = world.principal("px"), world.principal("py")
    world.grant(px, "TRANSACTIONAL_ID", "key-x", "WRITE")
    world.grant(py, "TRANSACTIONAL_ID", "key-y", "WRITE")
    r = world.call(px, "POST", COMMIT_ALL, body([x], "shared"))
    assert r.json()["duplicate"] is False, r.text
    r = world.call(py, "POST", COMMIT_ALL, body([y], "shared"))
    assert r.json()["duplicate"] is False, r.text
    assert world.admin("GET", "/v1/transactions/key-y")["state"] == "CompleteCommit"
    assert world.call(px, "POST", COMMIT_ALL, body([x], "shared")).json()["duplicate"] is True
