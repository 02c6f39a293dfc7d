"""A transaction in one request (docs/api.md#commit-abort): records, consumer-group offsets and
share acknowledgements added and committed by POST /v1/transactions/{tid}/commit, its durable
steps, refusals that leave the transaction as it was, retries, the answer at the decision
(``txn_answer=prepare``) and a stop between the records and the decision."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any

import httpx
import pytest

from app.clock import FakeClock
from app.config import Settings
from app.errors import ErrorCode, StorageError
from app.producers.appender import BatchResult, ProduceBatch
from app.storage.record import Record

from .conftest import Served, running
from .helpers import assert_error, create_topic, produce, watermarks
from .share_helpers import ack_item, fetch, join, offsets, states, view
from .txn_helpers import batch, init_producer, partition_info, values

G = "workers"


@pytest.fixture
async def s(settings_factory: Callable[..., Settings], clock: FakeClock) -> AsyncIterator[Served]:
    async with running(settings_factory(), clock) as served:
        yield served


async def jobs(s: Served, n: int = 3) -> str:
    """Topic ``jobs`` with ``n`` records fetched by one member of share group G (answered), and
    an empty two-partition topic ``out``."""
    c = s.client
    await create_topic(c, "jobs")
    await create_topic(c, "out", 2)
    r = await c.patch(f"/v1/share-groups/{G}/config", json={"auto_offset_reset": "earliest"})
    assert r.status_code == 200, r.text
    await produce(c, "jobs", [{"value": f"job{i}"} for i in range(n)])
    m = await join(c, G, ["jobs"])
    assert offsets(await fetch(c, G, m)) == list(range(n))
    return m


def commit_body(pid: int, epoch: int, **parts: Any) -> dict[str, Any]:
    return {"producer_id": pid, "producer_epoch": epoch, **parts}


def accept(member: str, first: int, last: int) -> list[dict[str, Any]]:
    return [
        {
            "group_id": G,
            "member_id": member,
            "acknowledgements": [ack_item(first, last, "accept", "jobs")],
        }
    ]


async def commit(c: httpx.AsyncClient, tid: str, body: dict[str, Any]) -> httpx.Response:
    return await c.post(f"/v1/transactions/{tid}/commit", json=body)


async def describe(c: httpx.AsyncClient, tid: str = "tx") -> dict[str, Any]:
    r = await c.get(f"/v1/transactions/{tid}")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


async def test_records_and_acknowledgements_commit_in_one_request(s: Served) -> None:
    c = s.client
    m = await jobs(s)
    pid, e = await init_producer(c, transactional_id="tx")
    stats, flusher = s.broker.db.stats, s.broker.flusher.stats
    commits, rounds = stats.commits, flusher.rounds
    r = await commit(
        c,
        "tx",
        commit_body(
            pid,
            e,
            batches=[batch("out", 0, 0, 2, "r"), batch("out", 1, 0, 1, "r")],
            share_acknowledgements=accept(m, 0, 2),
        ),
    )
    assert r.status_code == 200, r.text
    assert r.json() == {"producer_id": pid, "producer_epoch": e + 1}
    # the records' round, PrepareCommit with the held acknowledgements; the markers' round,
    # the acknowledgements applied with CompleteCommit
    assert (stats.commits - commits, flusher.rounds - rounds) == (2, 2)
    assert await values(c, "out", 0, "read_committed") == ["r0", "r1"]
    assert await values(c, "out", 1, "read_committed") == ["r0"]
    v = await view(c, G, "jobs")
    assert (v["start_offset"], v["records"]) == (3, [])  # all three acknowledged
    d = await describe(c)
    assert (d["state"], d["partitions"], d["share_groups"]) == ("CompleteCommit", [], [])


async def test_offsets_commit_with_the_records(s: Served) -> None:
    c = s.client
    await create_topic(c, "in")
    await create_topic(c, "out")
    pid, e = await init_producer(c, transactional_id="tx")
    r = await commit(
        c,
        "tx",
        commit_body(
            pid,
            e,
            batches=[batch("out", 0, 0)],
            group_offsets=[
                {"group_id": "g", "offsets": [{"topic": "in", "partition": 0, "offset": 7}]}
            ],
        ),
    )
    assert r.status_code == 200, r.text
    r = await c.get("/v1/groups/g/offsets")
    assert r.status_code == 200, r.text
    assert [(o["topic"], o["offset"]) for o in r.json()["offsets"]] == [("in", 7)]
    assert await values(c, "out", 0, "read_committed") == ["v0"]


async def test_a_refused_part_refuses_everything_and_leaves_the_transaction_open(
    s: Served,
) -> None:
    """An acknowledgement of a record the member does not hold: 409, nothing appended,
    nothing staged; the transaction the multi-step form opened stays open and commits."""
    c = s.client
    m = await jobs(s, 2)
    pid, e = await init_producer(c, transactional_id="tx")
    r = await c.post(
        "/v1/produce",
        json={
            "producer_id": pid,
            "producer_epoch": e,
            "transactional_id": "tx",
            "batches": [batch("out", 0, 0)],
        },
    )
    assert r.status_code == 200, r.text
    before = await watermarks(c, "out")
    bad = [
        {
            "group_id": G,
            "member_id": m,
            "acknowledgements": [ack_item(0, 5, "accept", "jobs")],  # 2..5 not fetched
        }
    ]
    r = await commit(
        c, "tx", commit_body(pid, e, batches=[batch("out", 1, 0)], share_acknowledgements=bad)
    )
    body = assert_error(r, 400, "INVALID_REQUEST")
    assert f"share acknowledgements of {G} (jobs/0)" in body["message"]
    assert await watermarks(c, "out") == before
    d = await describe(c)
    assert (d["state"], d["partitions"], d["share_groups"]) == (
        "Ongoing",
        [{"topic": "out", "partition": 0}],
        [],
    )
    # the records acknowledged in vain are still the member's
    assert [st for _, st, _ in states(await view(c, G, "jobs"))] == ["acquired"] * 2
    r = await commit(
        c,
        "tx",
        commit_body(pid, e, batches=[batch("out", 1, 0)], share_acknowledgements=accept(m, 0, 1)),
    )
    assert r.status_code == 200, r.text
    assert await values(c, "out", 0, "read_committed") == ["v0"]
    assert await values(c, "out", 1, "read_committed") == ["v0"]


async def test_a_bad_sequence_or_partition_appends_nothing(s: Served) -> None:
    c = s.client
    await create_topic(c, "out", 2)
    pid, e = await init_producer(c, transactional_id="tx")
    r = await commit(c, "tx", commit_body(pid, e, batches=[batch("out", 0, 0), batch("out", 1, 5)]))
    body = assert_error(r, 409, "OUT_OF_ORDER_SEQUENCE_NUMBER")
    assert "out/1" in body["message"]
    assert body["message"].startswith("batches[1] (out/1): ")  # named as docs/api.md says
    r = await commit(
        c, "tx", commit_body(pid, e, batches=[batch("out", 0, 0), batch("nope", 0, 0)])
    )
    body = assert_error(r, 404, "UNKNOWN_TOPIC_OR_PARTITION")
    assert "batches[1] (nope/0)" in body["message"]
    assert await watermarks(c, "out") == [0, 0]
    assert (await describe(c))["state"] == "Empty"


async def test_a_retried_commit_answers_the_same_and_appends_nothing(s: Served) -> None:
    c = s.client
    await create_topic(c, "out")
    pid, e = await init_producer(c, transactional_id="tx")
    body = commit_body(pid, e, batches=[batch("out", 0, 0, 3)])
    first = await commit(c, "tx", body)
    assert first.status_code == 200, first.text
    again = await commit(c, "tx", body)
    assert again.status_code == 200, again.text
    assert again.json() == first.json()
    assert await values(c, "out", 0, "read_committed") == ["v0", "v1", "v2"]
    # the next transaction's sequences start again at 0 under the new epoch
    nxt = commit_body(pid, first.json()["producer_epoch"], batches=[batch("out", 0, 0, 1, "n")])
    assert (await commit(c, "tx", nxt)).status_code == 200
    assert await values(c, "out", 0, "read_committed") == ["v0", "v1", "v2", "n0"]


async def test_commit_body_is_checked(s: Served) -> None:
    c = s.client
    await create_topic(c, "out")
    pid, e = await init_producer(c, transactional_id="tx")
    schema = (await c.get("/openapi.json")).json()["components"]["schemas"]["TxnCommitRequest"]
    assert schema["additionalProperties"] is False  # documented as the server behaves
    r = await commit(c, "tx", {"producer_id": pid, "producer_epoch": e, "records": []})
    assert "unknown field 'records'" in assert_error(r, 400, "INVALID_REQUEST")["message"]
    offsets_twice = [
        {"group_id": "g", "offsets": [{"topic": "out", "partition": 0, "offset": 1}]}
    ] * 2
    r = await commit(c, "tx", commit_body(pid, e, group_offsets=offsets_twice))
    assert "appears twice" in assert_error(r, 400, "INVALID_REQUEST")["message"]
    r = await commit(c, "tx", commit_body(pid, e + 1, batches=[batch("out", 0, 0)]))
    assert_error(r, 409, "PRODUCER_FENCED")
    assert await watermarks(c, "out") == [0]


async def test_answered_at_the_decision_the_next_request_waits_for_the_markers(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    """txn_answer=prepare: the commit is answered in PrepareCommit while its markers are held
    back; read_committed readers do not see the records yet; the next commit of the same
    transactional id waits (no CONCURRENT_TRANSACTIONS) and completes after them."""
    async with running(settings_factory(txn_answer="prepare"), clock) as s:
        c = s.client
        await create_topic(c, "out")
        pid, e = await init_producer(c, transactional_id="tx")
        appender = s.broker.appender
        markers = appender.append_markers
        gate = asyncio.Event()

        async def held_back(
            producer_id: int, epoch: int, commit: bool, partitions: Collection[tuple[str, int]]
        ) -> None:
            await gate.wait()
            await markers(producer_id, epoch, commit, partitions)

        appender.append_markers = held_back  # type: ignore[method-assign]
        try:
            r = await commit(c, "tx", commit_body(pid, e, batches=[batch("out", 0, 0)]))
            assert r.status_code == 200, r.text
            assert r.json() == {"producer_id": pid, "producer_epoch": e + 1}
            assert (await describe(c))["state"] == "PrepareCommit"
            assert await values(c, "out", 0, "read_committed") == []
            second = asyncio.create_task(
                commit(c, "tx", commit_body(pid, e + 1, batches=[batch("out", 0, 0, 1, "n")]))
            )
            await asyncio.sleep(0)
            for _ in range(20):  # let it run as far as it can
                await asyncio.sleep(0)
            assert not second.done()
            gate.set()
            r2 = await second
        finally:
            del appender.append_markers
        assert r2.status_code == 200, r2.text
        assert r2.json() == {"producer_id": pid, "producer_epoch": e + 2}
        await s.broker.transactions.drain()  # the second end's markers, answered early too
        assert await values(c, "out", 0, "read_committed") == ["v0", "n0"]


async def commit_without_decision(s: Served, pid: int, epoch: int) -> None:
    """A one-request commit of two records to ``out`` whose decision cannot be written (the
    metadata database is locked elsewhere): 503, the records durable without a decision."""
    await s.broker.db.writer.execute("PRAGMA busy_timeout=0")
    blocker = sqlite3.connect(s.broker.data.metadata, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        r = await commit(s.client, "tx", commit_body(pid, epoch, batches=[batch("out", 0, 0, 2)]))
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert_error(r, 507, "KAFKA_STORAGE_ERROR")


async def test_records_without_a_decision_rejoin_their_transaction_after_a_stop(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    """The decision's SQLite commit fails after the records are durable, then the server
    stops: at the next start the records are in the transaction again, open; the retried
    request commits them once."""
    settings = settings_factory()
    async with running(settings, clock) as s:
        c = s.client
        await create_topic(c, "out")
        pid, e = await init_producer(c, transactional_id="tx")
        await commit_without_decision(s, pid, e)
        assert (await watermarks(c, "out")) == [2]  # durable, without a decision
    async with running(settings, clock) as s:
        c = s.client
        d = await describe(c)
        assert (d["state"], d["partitions"]) == ("Ongoing", [{"topic": "out", "partition": 0}])
        assert await values(c, "out", 0, "read_committed") == []
        r = await commit(c, "tx", commit_body(pid, e, batches=[batch("out", 0, 0, 2)]))
        assert r.status_code == 200, r.text
        assert await values(c, "out", 0, "read_committed") == ["v0", "v1"]
        assert await watermarks(c, "out") == [3]  # the two records and one marker


async def test_open_records_of_a_fenced_epoch_are_aborted_at_start(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    """Records left without a decision whose producer was fenced before the stop: aborted."""
    settings = settings_factory()
    async with running(settings, clock) as s:
        c = s.client
        await create_topic(c, "out")
        pid, e = await init_producer(c, transactional_id="tx")
        await commit_without_decision(s, pid, e)
    async with running(settings, clock) as s:
        c = s.client
        # a new instance fences the old one: its open records are aborted with the transaction
        # (an end, then the new instance's bump: two epochs)
        pid2, e2 = await init_producer(c, transactional_id="tx")
        assert (pid2, e2) == (pid, e + 2)
        info = await partition_info(c, "out")
        assert info["last_stable_offset"] == info["high_watermark"] == 3
        assert await values(c, "out", 0, "read_committed") == []


async def test_a_storage_error_in_the_middle_of_the_appends_leaves_them_in_the_transaction(
    s: Served,
) -> None:
    """The second batch's append fails (a full disk): the first batch's records are in the
    transaction, open, so an abort ends them; nothing is committed."""
    c = s.client
    await create_topic(c, "a")
    await create_topic(c, "b")
    pid, e = await init_producer(c, transactional_id="tx")
    lg = s.broker.topics.get("b").log(0)

    def full(*args: Any, **kwargs: Any) -> Any:
        raise StorageError(ErrorCode.KAFKA_STORAGE_ERROR, "append failed: no space left on device")

    lg.append = full  # type: ignore[method-assign]
    try:
        body = commit_body(pid, e, batches=[batch("a", 0, 0), batch("b", 0, 0)])
        assert_error(await commit(c, "tx", body), 507, "KAFKA_STORAGE_ERROR")
    finally:
        del lg.append
    d = await describe(c)
    assert (d["state"], d["partitions"]) == (
        "Ongoing",
        [{"topic": "a", "partition": 0}, {"topic": "b", "partition": 0}],
    )
    r = await c.post("/v1/transactions/tx/abort", json={"producer_id": pid, "producer_epoch": e})
    assert r.status_code == 200, r.text
    info = await partition_info(c, "a")
    assert info["last_stable_offset"] == info["high_watermark"] == 2  # the record, the marker
    assert await values(c, "a", 0, "read_committed") == []


async def test_under_fsync_interval_the_decision_follows_durable_records(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    """fsync=interval answers appends at once; a commit, in one request or step by step,
    still writes PrepareCommit only once the transaction's records are fsynced."""
    async with running(settings_factory(fsync="interval", fsync_interval_ms=60_000), clock) as s:
        c = s.client
        await create_topic(c, "out", 2)
        lg0, lg1 = s.broker.topics.get("out").logs
        store = s.broker.transactions.store
        save = store.save
        seen: list[tuple[int, int]] = []

        async def checked_save(row: Any, *, also: Any = ()) -> None:
            if row is not None and row.state == "PrepareCommit":
                seen.extend((lg.log_end_offset, lg._durable_offset) for lg in (lg0, lg1))
            await save(row, also=also)

        store.save = checked_save  # type: ignore[method-assign]
        pid, e = await init_producer(c, transactional_id="tx")
        r = await commit(c, "tx", commit_body(pid, e, batches=[batch("out", 0, 0, 3)]))
        assert r.status_code == 200, r.text
        e = r.json()["producer_epoch"]
        r = await c.post(
            "/v1/produce",
            json={
                "producer_id": pid,
                "producer_epoch": e,
                "transactional_id": "tx",
                "batches": [batch("out", 1, 0, 2)],
            },
        )
        assert r.status_code == 200, r.text
        assert lg1._durable_offset < lg1.log_end_offset  # answered before its fsync
        r = await c.post(
            "/v1/transactions/tx/commit", json={"producer_id": pid, "producer_epoch": e}
        )
        assert r.status_code == 200, r.text
        del store.save
        # at each decision every record appended so far was durable
        assert seen == [(3, 3), (0, 0), (4, 4), (2, 2)]


async def test_open_records_no_transaction_holds_are_aborted_at_start(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    """Transactional records of a producer id no transactional id has (here appended below
    the coordinator) are open at the next start: they get an abort marker."""
    settings = settings_factory()
    async with running(settings, clock) as s:
        c = s.client
        await create_topic(c, "out")
        appender = s.broker.appender
        lg = s.broker.topics.get("out").log(0)
        stray = ProduceBatch("out", 0, 0, [Record(1, None, b"stray")])
        checked = appender.check_producer_batches(
            999, 0, [(lg, stray, BatchResult("out", 0, -1, None))], transactional=True
        )
        await appender.wait_durable(appender.append_checked(999, 0, checked, transactional=True))
        info = await partition_info(c, "out")
        assert (info["last_stable_offset"], info["high_watermark"]) == (0, 1)
    async with running(settings, clock) as s:
        info = await partition_info(s.client, "out")
        assert info["last_stable_offset"] == info["high_watermark"] == 2
        assert await values(s.client, "out", 0, "read_committed") == []
