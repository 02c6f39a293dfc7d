"""The Python client's transactional producer against a real server process: commit and abort
under read_committed, offsets and acknowledgements inside a transaction, the KIP-588 loop
after a transaction timeout, and fencing by a newer instance; records beyond a request sent as
transactional record batches (the default) or as JSON."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import sluice
from sluice import errors
from sluice._core import Wire

from tests.conftest import ServerProcess

pytestmark = pytest.mark.slow
WIRES = pytest.mark.parametrize("wire", ["batches", "json"])


def committed(url: str, topic: str, partition: int = 0) -> list[str]:
    r = httpx.get(
        f"{url}/v1/topics/{topic}/partitions/{partition}/records",
        params={"offset": 0, "max_records": 10_000, "isolation_level": "read_committed"},
    )
    r.raise_for_status()
    return [x["value"] for x in r.json()["records"]]


@WIRES
def test_commit_abort_and_offsets_in_the_transaction(server: ServerProcess, wire: Wire) -> None:
    with sluice.Sluice(server.url, wire=wire) as client:
        client.admin.create_topic("in")
        client.admin.create_topic("out", 2)
        producer = client.transactional_producer("etl-1")
        with producer.transaction():
            for i in range(3):
                producer.send("out", f"r{i}", partition=0)
            producer.send_offsets({("in", 0): 3}, sluice.GroupMetadata("etl"))
        assert committed(server.url, "out") == ["r0", "r1", "r2"]
        offsets = httpx.get(f"{server.url}/v1/groups/etl/offsets").json()["offsets"]
        assert [(o["topic"], o["offset"]) for o in offsets] == [("in", 3)]
        with pytest.raises(RuntimeError), producer.transaction():
            producer.send("out", "never", partition=0)
            raise RuntimeError("the work failed")
        producer.begin()
        for i in range(1200):  # beyond max_batch: sent before the commit, inside it
            producer.send("out", f"big{i}", partition=i % 2)
        assert committed(server.url, "out", 1) == []  # written, not committed
        producer.commit()
        values = committed(server.url, "out")
        assert "never" not in values and len(values) == 3 + 600
        assert committed(server.url, "out", 1) == [f"big{i}" for i in range(1, 1200, 2)]


@pytest.mark.embedded_only("transactional_share_acknowledgements", "share_record_view")
def test_share_acknowledgements_in_the_transaction(server: ServerProcess) -> None:
    with sluice.Sluice(server.url) as client:
        client.admin.create_topic("jobs")
        client.admin.create_topic("done")
        url = server.url
        httpx.patch(f"{url}/v1/share-groups/workers/config", json={"auto_offset_reset": "earliest"})
        httpx.post(f"{url}/v1/topics/jobs/records", json={"records": [{"value": "j0"}]})
        fetched = httpx.post(
            f"{url}/v1/share-groups/workers/fetch",
            json={"subscribed_topics": ["jobs"], "max_wait_ms": 2000},
        ).json()
        (job,) = fetched["records"]
        producer = client.transactional_producer("worker-1")
        with producer.transaction():
            producer.send("done", "did " + job["value"], partition=0)
            ack = {"topic": "jobs", "partition": 0, "first_offset": job["offset"]}
            producer.send_acknowledgements(
                "workers",
                fetched["member_id"],
                [{**ack, "last_offset": job["offset"], "type": "accept"}],
            )
        assert committed(url, "done") == ["did j0"]
        view = httpx.get(f"{url}/v1/share-groups/workers/partitions/jobs/0/records").json()
        assert view["start_offset"] == 1  # accepted with the commit


def test_a_timed_out_transaction_is_retried_after_a_new_epoch(
    server_factory: Callable[..., ServerProcess],
) -> None:
    """KIP-588: the server aborts the transaction after its timeout; the commit raises
    TransactionTimedOutError, the producer has already taken a new epoch, the loop retries."""
    server = server_factory(SLUICE_TXN_TIMEOUT_CHECK_INTERVAL_MS="50")
    server.start()
    with sluice.Sluice(server.url) as client:
        client.admin.create_topic("out")
        # max_batch 1: each record goes out at once, so the transaction is open on the server
        producer = client.transactional_producer("slow", transaction_timeout_ms=300, max_batch=1)
        first_epoch = producer.producer_epoch
        attempts: list[str] = []
        for attempt in range(3):
            try:
                with producer.transaction():
                    producer.send("out", f"try{attempt}", partition=0)
                    if attempt == 0:
                        _wait_aborted(server.url, "slow")  # the work took too long
                attempts.append("committed")
                break
            except errors.TransactionTimedOutError:
                attempts.append("timed out")
        assert attempts == ["timed out", "committed"]
        assert producer.producer_epoch is not None and first_epoch is not None
        assert producer.producer_epoch > first_epoch
        assert committed(server.url, "out") == ["try1"]
    server.stop()


def _wait_aborted(url: str, tid: str) -> None:
    """Until the server has aborted the transaction open now (polled: a real server's clock)."""
    state = httpx.get(f"{url}/v1/transactions/{tid}").json()["state"]
    assert state == "Ongoing", state
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        state = httpx.get(f"{url}/v1/transactions/{tid}").json()["state"]
        if state in ("CompleteAbort", "PrepareAbort"):
            return
        time.sleep(0.05)
    raise AssertionError("the transaction never timed out")


def test_a_newer_instance_fences_the_older(server: ServerProcess) -> None:
    with sluice.Sluice(server.url) as client:
        client.admin.create_topic("out")
        old = client.transactional_producer("tx")
        old.begin()
        old.send("out", "zombie", partition=0)
        client.transactional_producer("tx")  # the new instance
        with pytest.raises(errors.ProducerFencedError):
            old.commit()
        assert committed(server.url, "out") == []


@WIRES
def test_async_twin(server: ServerProcess, wire: Wire) -> None:
    async def main() -> Any:
        async with sluice.AsyncSluice(server.url, wire=wire) as client:
            await client.admin.create_topic("out")
            # max_batch 2: the records go out in the transaction two by two, the third with
            # the commit
            producer = await client.transactional_producer("atx", max_batch=2)
            async with producer.transaction():
                for v in ("a", "b", "c"):
                    await producer.send("out", v, key="k")
            producer.begin()
            for v in ("dropped", "gone"):
                await producer.send("out", v, key="k")
            await producer.abort()

    asyncio.run(main())
    assert committed(server.url, "out") == ["a", "b", "c"]
