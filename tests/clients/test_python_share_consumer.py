"""The Python client's share consumer against a real server process: poll and acknowledge in
both modes, close releasing what it held, the asyncio twin, push sessions, and the
consume-transform-produce loop (share group in, transactional producer out) exactly once across
a killed worker; fetches and pushed frames of record batches (the default) and of JSON."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import sluice
from sluice import errors
from sluice._core import Wire

from tests.conftest import ROOT, ServerProcess

pytestmark = pytest.mark.slow
WIRES = pytest.mark.parametrize("wire", ["batches", "json"])


def produce(url: str, topic: str, values: list[str]) -> None:
    r = httpx.post(
        f"{url}/v1/topics/{topic}/records", json={"records": [{"value": v} for v in values]}
    )
    r.raise_for_status()


def view(url: str, group: str, topic: str) -> dict[str, int]:
    d = httpx.get(f"{url}/v1/share-groups/{group}").json()
    (p,) = [p for p in d["partitions"] if p["topic"] == topic]
    return {k: p[k] for k in ("start_offset", "available", "acquired", "archived", "lag")}


def settled(url: str, group: str, topic: str, lag: int) -> dict[str, int]:
    """The partition's view once ``lag`` records are left to acknowledge: at once on the
    embedded engine, a moment after the acknowledgements on Kafka (which describes the start
    offset it last saved, behind the acknowledgements: docs/kafka.md#differences). A lag that
    never gets there fails the test."""
    deadline = time.monotonic() + 10
    while (state := view(url, group, topic))["lag"] != lag:
        assert time.monotonic() < deadline, state
        time.sleep(0.05)
    return state


def setup(client: sluice.Sluice, url: str, group: str, n: int) -> None:
    client.admin.create_topic("jobs")
    httpx.patch(f"{url}/v1/share-groups/{group}/config", json={"auto_offset_reset": "earliest"})
    produce(url, "jobs", [f"j{i}" for i in range(n)])


@WIRES
def test_implicit_mode_accepts_on_the_next_poll_and_close_releases(
    server: ServerProcess, wire: Wire
) -> None:
    url = server.url
    with sluice.Sluice(url, wire=wire) as client:
        setup(client, url, "g", 10)
        consumer = client.share_consumer("g", max_records=4, acquire_mode="record_limit")
        consumer.subscribe(["jobs"])
        first = consumer.poll(2.0)
        assert [r.text() for r in first] == ["j0", "j1", "j2", "j3"]
        assert all(r.delivery_count == 1 for r in first)
        consumer.acknowledge(first[1], "reject")
        second = consumer.poll(2.0)  # accepts j0, j2, j3 and rejects j1 on the way
        assert [r.text() for r in second] == ["j4", "j5", "j6", "j7"]
        consumer.commit_sync()  # accepts the second poll's records
        # j0-j7 done (j1 rejected): the window starts at j8
        state = settled(url, "g", "jobs", 2)  # j8 and j9 left
        assert state["acquired"] in (0, None)  # None: the server does not count them (Kafka)
        held = consumer.poll(2.0)
        assert [r.text() for r in held] == ["j8", "j9"]
        consumer.close()  # releases j8 and j9: delivered again, to another member
        again = client.share_consumer("g")
        again.subscribe(["jobs"])
        redelivered = again.poll(2.0)
        assert [r.text() for r in redelivered] == ["j8", "j9"]
        again.close()


@WIRES
def test_explicit_mode_needs_every_record_acknowledged(server: ServerProcess, wire: Wire) -> None:
    url = server.url
    with sluice.Sluice(url, wire=wire) as client:
        setup(client, url, "x", 3)
        consumer = client.share_consumer("x", acknowledgement_mode="explicit")
        consumer.subscribe(["jobs"])
        records = consumer.poll(2.0)
        assert len(records) == 3
        consumer.acknowledge(records[0], "accept")
        with pytest.raises(errors.InvalidRequestError):
            consumer.poll(0)  # two records not acknowledged yet
        consumer.acknowledge(records[1], "release")
        consumer.acknowledge(records[2], "renew")  # the lock is extended: still held
        consumer.acknowledge(records[2], "accept")
        consumer.commit_sync()
        again = consumer.poll(2.0)
        assert [(r.text(), r.delivery_count) for r in again] == [("j1", 2)]
        consumer.acknowledge(again[0])
        consumer.close()
        settled(url, "x", "jobs", 0)


class KeepsAcks(httpx.HTTPTransport):
    """Sends every request and keeps the bodies of acknowledgements."""

    def __init__(self) -> None:
        super().__init__()
        self.acks: list[list[dict[str, object]]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/acknowledge"):
            self.acks.append(json.loads(request.read())["acknowledgements"])
        return super().handle_request(request)


def test_records_released_and_accepted_in_turn_go_as_one_range(server: ServerProcess) -> None:
    url = server.url
    transport = KeepsAcks()
    with sluice.Sluice(url, transport=transport) as client:
        setup(client, url, "turns", 6)
        consumer = client.share_consumer("turns", acknowledgement_mode="explicit")
        consumer.subscribe(["jobs"])
        records = consumer.poll(2.0)
        assert len(records) == 6
        for r in records[:4]:
            consumer.acknowledge(r, "release" if r.offset % 2 == 0 else "accept")
        for r in records[4:]:
            consumer.acknowledge(r, "accept")
        consumer.commit_sync()
        assert transport.acks == [
            [
                {
                    "topic": "jobs",
                    "partition": 0,
                    "first_offset": 0,
                    "last_offset": 5,
                    "types": ["release", "accept", "release", "accept", "accept", "accept"],
                }
            ]
        ]
        again = consumer.poll(2.0)
        assert [(r.text(), r.delivery_count) for r in again] == [("j0", 2), ("j2", 2)]
        for r in again:
            consumer.acknowledge(r, "accept")
        consumer.commit_sync()
        # apart (j1 lies between): two ranges, one type each
        assert transport.acks[-1] == [
            {"topic": "jobs", "partition": 0, "first_offset": o, "last_offset": o, "type": "accept"}
            for o in (0, 2)
        ]
        consumer.close()
        settled(url, "turns", "jobs", 0)


@WIRES
def test_async_twin(server: ServerProcess, wire: Wire) -> None:
    url = server.url
    with sluice.Sluice(url) as client:
        setup(client, url, "a", 5)

    async def main() -> list[str]:
        async with (
            sluice.AsyncSluice(url, wire=wire) as client,
            client.share_consumer("a") as consumer,
        ):
            consumer.subscribe(["jobs"])
            got: list[str] = []
            while len(got) < 5:
                got += [r.text() or "" for r in await consumer.poll(2.0)]
            await consumer.commit_sync()
            return got

    assert asyncio.run(main()) == [f"j{i}" for i in range(5)]
    settled(url, "a", "jobs", 0)


def members(url: str, group: str) -> int:
    return len(httpx.get(f"{url}/v1/share-groups/{group}").json()["members"])


def test_a_member_the_server_forgot_joins_again_at_the_next_poll(
    server_factory: Callable[..., ServerProcess],
) -> None:
    """The server removes a member whose client was silent past the session timeout (on a
    gateway also: the gateway that held it went away); its records are released. The
    consumer's next poll is answered UNKNOWN_MEMBER_ID: it joins again in the same poll and
    gets the records again, and a commit of acknowledgements the server can no longer apply
    says so."""
    server = server_factory(SLUICE_SHARE_SESSION_TIMEOUT_MS="1000")
    server.start()
    url = server.url
    with sluice.Sluice(url) as client:
        setup(client, url, "f", 3)
        # the records a removed member held keep their locks until they expire (on Kafka, its
        # sessions' end releases them): short locks
        locks = httpx.patch(
            f"{url}/v1/share-groups/f/config", json={"record_lock_duration_ms": 2000}
        )
        assert locks.status_code == 200, locks.text
        consumer = client.share_consumer("f", max_records=3, acknowledgement_mode="explicit")
        consumer.subscribe(["jobs"])
        first = consumer.poll(2.0)
        assert [r.text() for r in first] == ["j0", "j1", "j2"]
        forgotten = consumer.member_id
        deadline = time.monotonic() + 30
        while members(url, "f"):
            assert time.monotonic() < deadline, "the member was never removed"
            time.sleep(0.1)
        for r in first:
            consumer.acknowledge(r)
        with pytest.raises(errors.UnknownMemberIdError):
            consumer.commit_sync()  # too late: nothing of it applied
        again = consumer.poll(1.0)  # joins again, in this poll
        assert consumer.member_id not in (None, forgotten)
        while not again:  # until the old locks expire
            assert time.monotonic() < deadline + 30, "the records never came again"
            again = consumer.poll(1.0)
        assert sorted(r.text() or "" for r in again) == ["j0", "j1", "j2"]
        for r in again:
            consumer.acknowledge(r)
        consumer.commit_sync()
        settled(url, "f", "jobs", 0)
        # forgotten again, now with nothing held: the poll itself joins again
        deadline = time.monotonic() + 30
        while members(url, "f"):
            assert time.monotonic() < deadline, "the member was never removed"
            time.sleep(0.1)
        rejoined = consumer.member_id
        produce(url, "jobs", ["j3"])
        later: list[str | None] = []
        while not later:
            assert time.monotonic() < deadline + 30
            later = [r.text() for r in consumer.poll(2.0)]
        assert later == ["j3"] and consumer.member_id != rejoined
        consumer.close()


@WIRES
def test_push_mode_within_the_credits_acknowledged_on_the_socket(
    server: ServerProcess, wire: Wire
) -> None:
    url = server.url
    with sluice.Sluice(url, wire=wire) as client:
        setup(client, url, "p", 12)
        consumer = client.share_consumer("p", push=True, credits=5, acknowledgement_mode="explicit")
        consumer.subscribe(["jobs"])
        got: list[sluice.ShareRecord] = []
        while len(got) < 12:
            records = consumer.poll(2.0)
            assert len(records) <= 5  # never more out than the credits
            for r in records:
                consumer.acknowledge(r, "release" if r.text() == "j11" else "accept")
            consumer.commit_sync()  # the ack_result came back: room for more
            got += records
        assert [r.text() for r in got] == [f"j{i}" for i in range(12)]
        assert members(url, "p") == 1
        again = consumer.poll(2.0)  # j11 was released: pushed again
        assert [(r.text(), r.delivery_count) for r in again] == [("j11", 2)]
        consumer.close()  # the socket closes: the server releases j11, the member leaves
        settled(url, "p", "jobs", 1)  # j11, released
        deadline = time.monotonic() + 10  # the server ends the session once the socket is gone
        while members(url, "p") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert members(url, "p") == 0
        assert view(url, "p", "jobs")["acquired"] in (0, None)
        with pytest.raises(errors.InvalidRequestError):
            client.share_consumer("p", push=True).poll(0.1)  # subscribe() first


@WIRES
def test_push_mode_async_twin_in_implicit_mode(server: ServerProcess, wire: Wire) -> None:
    url = server.url
    with sluice.Sluice(url) as client:
        setup(client, url, "q", 20)

    async def main() -> list[str]:
        async with sluice.AsyncSluice(url, wire=wire) as client:
            consumer = client.share_consumer("q", push=True, credits=8)
            consumer.subscribe(["jobs"])
            got: list[str] = []
            while len(got) < 20:
                got += [r.text() or "" for r in await consumer.poll(2.0)]
            await consumer.commit_sync()
            await consumer.close()
            return got

    assert asyncio.run(main()) == [f"j{i}" for i in range(20)]
    state = settled(url, "q", "jobs", 0)
    assert state["acquired"] in (0, None)


WORKER = textwrap.dedent(
    """
    import sys, time
    import sluice

    url, name, stop_after = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with sluice.Sluice(url) as client:
        consumer = client.share_consumer(
            "resizers", max_records=5, acknowledgement_mode="explicit", acquire_mode="record_limit"
        )
        consumer.subscribe(["images"])
        # max_batch 1: every record is written at once, inside the open transaction
        producer = client.transactional_producer(
            "resizer-" + name, transaction_timeout_ms=1500, max_batch=1
        )
        done, idle = 0, 0
        while idle < 5:  # 2.5 s without records: longer than a dead member's locks
            records = consumer.poll(0.5)
            if not records:
                idle += 1
                continue
            idle = 0
            while True:
                try:
                    with producer.transaction():
                        for r in records:
                            producer.send("thumbnails", "thumb " + r.text(), key=r.text())
                        if done >= stop_after:
                            print("in the middle", flush=True)
                            time.sleep(3600)  # killed here: records written, not committed
                        producer.send_acknowledgements(
                            "resizers", consumer.member_id, consumer.acknowledgements(records)
                        )
                    break
                except sluice.errors.TransactionTimedOutError:
                    continue
            consumer.settled(records)  # acknowledged by the commit
            done += len(records)
    """
)


# the worker acknowledges its records in the transaction that writes its output
@pytest.mark.embedded_only("transactional_share_acknowledgements")
def test_consume_transform_produce_exactly_once_across_a_killed_worker(
    server_factory: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    """The seed's loop with the client: records acquired from a share group, transformed,
    written by a transactional producer that also carries the acknowledgements. The first
    worker is killed in the middle of a transaction (records written, not committed, five
    records acquired); its transaction times out and aborts, its locks expire, and a second
    worker processes everything again: every output exactly once under read_committed."""
    server = server_factory(SLUICE_TXN_TIMEOUT_CHECK_INTERVAL_MS="100")
    server.start()
    url = server.url
    with sluice.Sluice(url) as client:
        client.admin.create_topic("images")
        client.admin.create_topic("thumbnails", 2)
        httpx.patch(
            f"{url}/v1/share-groups/resizers/config",
            json={"auto_offset_reset": "earliest", "record_lock_duration_ms": 1000},
        )
        produce(url, "images", [f"img-{i}" for i in range(60)])
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    # the first worker processes some, then is killed with a poll's records possibly held
    first = subprocess.Popen(
        [sys.executable, str(script), url, "a", "20"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert first.stdout is not None and first.stdout.readline().strip() == "in the middle"
    first.kill()
    first.wait(10)
    first.stdout.close()
    # a second worker finishes the rest (after the dead member's locks expire)
    done = subprocess.run(
        [sys.executable, str(script), url, "b", "1000"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen: dict[str, Counter[str]] = {"read_committed": Counter(), "read_uncommitted": Counter()}
    for level, counter in seen.items():
        for p in (0, 1):
            r = httpx.get(
                f"{url}/v1/topics/thumbnails/partitions/{p}/records",
                params={"offset": 0, "max_records": 1000, "isolation_level": level},
            )
            counter.update(x["value"] for x in r.json()["records"])
    assert seen["read_committed"] == Counter(f"thumb img-{i}" for i in range(60))  # each once
    # the killed worker's transaction had written its records: they are in the log, aborted
    assert sum(seen["read_uncommitted"].values()) > 60
    server.stop()
