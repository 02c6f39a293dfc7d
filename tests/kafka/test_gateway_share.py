"""Share groups through a gateway (``SLUICE_BACKEND=kafka``) on the native broker, as a real
process driven over HTTP: a member joined by its first fetch, records accepted, released and
delivered again with their count one higher, an acknowledgement naming another delivery count
refused, a release with a delay refused by name, a member that leaves; an HTTP member and a
native share consumer splitting one group's records with each record accepted once; and, on
the gateway's share groups in process, a member of one principal closed to another."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import ShareConsumer
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from app.clock import FakeClock, SystemClock
from app.config import Settings
from app.errors import ErrorCode, NotFound
from app.kafka.cluster import Cluster
from app.kafka.produce import KafkaProduce
from app.kafka.share import KafkaShareGroups
from app.kafka.share_members import GatewayShareGroups
from app.storage.record import Record
from tests.conftest import ServerProcess
from tests.kafka.native import TIMEOUT, set_group_configs
from tests.kafka.test_gateway_http import PRINCIPAL, api_key
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka


@pytest.fixture
def http(
    kafka_cluster: KafkaCluster,
    server_factory: Callable[..., ServerProcess],
    tmp_path: Path,
) -> Iterator[httpx.Client]:
    key = api_key(kafka_cluster.bootstrap)
    server = server_factory(
        data_dir=tmp_path / "unused",
        SLUICE_BACKEND="kafka",
        SLUICE_KAFKA_BOOTSTRAP=kafka_cluster.bootstrap,
        SLUICE_SUPER_USERS=PRINCIPAL,
    )
    server.start(timeout=60)
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.url, timeout=TIMEOUT, headers=headers) as client:
        yield client
    assert server.stop() == 0


def new_group(bootstrap: str, lock_ms: int = 30_000) -> str:
    """A share group that starts at the earliest offset, with heartbeats every 200 ms (so a
    member learns its partitions in a fifth of a second rather than 5 s)."""
    group = f"gw-share-{uuid.uuid4().hex[:8]}"
    set_group_configs(
        AdminClient({"bootstrap.servers": bootstrap}),
        group,
        [
            ("share.auto.offset.reset", "earliest"),
            ("share.heartbeat.interval.ms", "200"),
            ("share.record.lock.duration.ms", str(lock_ms)),
        ],
    )
    return group


def new_topic(http: httpx.Client, values: list[str], partitions: int = 1) -> str:
    topic = f"gw-share-{uuid.uuid4().hex[:8]}"
    assert (
        http.post("/v1/topics", json={"name": topic, "partitions": partitions}).status_code == 201
    )
    for at in range(0, len(values), 100):
        produced = http.post(
            f"/v1/topics/{topic}/records",
            json={"records": [{"value": v} for v in values[at : at + 100]]},
        )
        assert produced.status_code == 200, produced.text
    return topic


def fetch(http: httpx.Client, group: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = http.post(f"/v1/share-groups/{group}/fetch", json={"max_wait_ms": 500, **body})
    assert answer.status_code == 200, answer.text
    got: dict[str, Any] = answer.json()
    return got


def fetch_until(
    http: httpx.Client, group: str, member_id: str, want: int, **body: Any
) -> list[dict[str, Any]]:
    """Fetch as ``member_id`` until ``want`` records came."""
    records: list[dict[str, Any]] = []
    deadline = time.monotonic() + TIMEOUT
    while len(records) < want:
        assert time.monotonic() < deadline, f"{len(records)} of {want} records came"
        records += fetch(http, group, {"member_id": member_id, **body})["records"]
    return records


def acknowledge(
    http: httpx.Client, group: str, member_id: str, acks: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    answer = http.post(
        f"/v1/share-groups/{group}/acknowledge",
        json={"member_id": member_id, "acknowledgements": acks},
    )
    assert answer.status_code == 200, answer.text
    results: list[dict[str, Any]] = answer.json()["results"]
    return results


def test_a_member_accepts_releases_and_sees_released_records_again(
    kafka_cluster: KafkaCluster, http: httpx.Client
) -> None:
    group = new_group(kafka_cluster.bootstrap)
    topic = new_topic(http, [f"v{i}" for i in range(6)])

    # a fetch without a member joins, and waits for the member's partitions
    first = fetch(http, group, {"member_id": None, "subscribed_topics": [topic]})
    member = first["member_id"]
    records = first["records"] or fetch_until(http, group, member, 6)
    records = records + fetch_until(http, group, member, 6 - len(records))
    assert [(r["offset"], r["value"], r["delivery_count"]) for r in records] == [
        (i, f"v{i}", 1) for i in range(6)
    ]

    # an acknowledgement naming a delivery count the records did not come with
    wrong = acknowledge(
        http,
        group,
        member,
        [
            {
                "topic": topic,
                "partition": 0,
                "first_offset": 0,
                "last_offset": 1,
                "type": "accept",
                "delivery_count": 2,
            }
        ],
    )
    assert wrong[0]["error"]["code"] == "INVALID_RECORD_STATE"

    # a release with a delay: Kafka has none, and nothing of the request is applied
    delayed = http.post(
        f"/v1/share-groups/{group}/acknowledge",
        json={
            "member_id": member,
            "acknowledgements": [
                {
                    "topic": topic,
                    "partition": 0,
                    "first_offset": 0,
                    "last_offset": 5,
                    "type": "release",
                    "delay_ms": 1000,
                }
            ],
        },
    )
    assert delayed.status_code == 400, delayed.text
    assert delayed.json()["error"]["unsupported"] == "release_delay"

    # accept 0-2, release 3-5: the released come again with count 2
    done = acknowledge(
        http,
        group,
        member,
        [
            {
                "topic": topic,
                "partition": 0,
                "first_offset": 0,
                "last_offset": 2,
                "type": "accept",
                "delivery_count": 1,
            },
            {
                "topic": topic,
                "partition": 0,
                "first_offset": 3,
                "last_offset": 5,
                "type": "release",
            },
        ],
    )
    assert [r["error"] for r in done] == [None]
    again = fetch_until(http, group, member, 3)
    assert [(r["offset"], r["delivery_count"]) for r in again] == [(3, 2), (4, 2), (5, 2)]
    # accepted piggy-backed on a fetch: nothing is left
    rest = fetch(
        http,
        group,
        {
            "member_id": member,
            "acknowledgements": [
                {
                    "topic": topic,
                    "partition": 0,
                    "first_offset": 3,
                    "last_offset": 5,
                    "type": "accept",
                }
            ],
        },
    )
    assert rest["records"] == [] and rest["acknowledgement_errors"] == []

    # the member leaves; its id is then unknown
    assert http.delete(f"/v1/share-groups/{group}/members/{member}").status_code == 204
    gone = http.post(
        f"/v1/share-groups/{group}/acknowledge",
        json={"member_id": member, "acknowledgements": []},
    )
    assert gone.status_code == 404, gone.text
    assert gone.json()["error"]["code"] == "UNKNOWN_MEMBER_ID"


def test_an_http_member_and_a_native_share_consumer_split_a_groups_records(
    kafka_cluster: KafkaCluster, http: httpx.Client
) -> None:
    total = 300
    group = new_group(kafka_cluster.bootstrap)
    topic = new_topic(http, [f"r{i}" for i in range(total)])
    joined = http.post(
        f"/v1/share-groups/{group}/heartbeat",
        json={"member_id": None, "member_epoch": 0, "subscribed_topics": [topic]},
    )
    assert joined.status_code == 200, joined.text
    member = joined.json()["member_id"]
    # the HTTP member holds ten records, so that the native consumer must find others
    held = fetch_until(http, group, member, 1, max_records=10, acquire_mode="record_limit")

    seen: list[tuple[str, str, int]] = [("http", r["value"], r["delivery_count"]) for r in held]
    lock = threading.Lock()
    stop = threading.Event()
    native_error: list[BaseException] = []
    native_started = threading.Event()

    def native() -> None:
        consumer = ShareConsumer(
            {
                "bootstrap.servers": kafka_cluster.bootstrap,
                "group.id": group,
                "share.acknowledgement.mode": "explicit",
            }
        )
        try:
            consumer.subscribe([topic])
            while not stop.is_set():
                messages = consumer.poll(0.5)
                for msg in messages:
                    assert msg.error() is None, msg.error()
                    value = msg.value()
                    assert value is not None
                    with lock:
                        seen.append(("native", value.decode(), msg.delivery_count() or 0))
                    consumer.acknowledge(msg)
                if messages:
                    consumer.commit_sync(TIMEOUT)
                    native_started.set()
        except BaseException as exc:  # the test's thread reports it
            native_error.append(exc)
        finally:
            consumer.close()

    thread = threading.Thread(target=native, daemon=True)
    thread.start()
    try:
        assert native_started.wait(TIMEOUT), native_error
        acks = held_acks(topic, held)
        deadline = time.monotonic() + 2 * TIMEOUT
        while True:
            with lock:
                if len(seen) >= total:
                    break
            assert time.monotonic() < deadline, f"{len(seen)} of {total} records came"
            answer = fetch(
                http, group, {"member_id": member, "max_records": 20, "acknowledgements": acks}
            )
            assert answer["acknowledgement_errors"] == []
            with lock:
                seen.extend(("http", r["value"], r["delivery_count"]) for r in answer["records"])
            acks = held_acks(topic, answer["records"])
        if acks:
            assert [r["error"] for r in acknowledge(http, group, member, acks)] == [None]
    finally:
        stop.set()
        thread.join(TIMEOUT)
    assert not native_error, native_error
    values = sorted(v for _, v, _ in seen)
    assert values == sorted(f"r{i}" for i in range(total))  # each record once
    assert {count for _, _, count in seen} == {1}  # none delivered again
    by = {who for who, _, _ in seen}
    assert by == {"http", "native"}
    # every record was accepted: a new member finds nothing
    late = fetch(http, group, {"member_id": None, "subscribed_topics": [topic]})
    assert late["records"] == []


def held_acks(topic: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "topic": topic,
            "partition": r["partition"],
            "first_offset": r["offset"],
            "last_offset": r["offset"],
            "type": "accept",
        }
        for r in records
    ]


@pytest.fixture
async def gateway_share(kafka_cluster: KafkaCluster) -> AsyncIterator[GatewayShareGroups]:
    cluster = Cluster(kafka_cluster.bootstrap, client_id="gw-share-test", request_timeout=30.0)
    await cluster.start()
    share = GatewayShareGroups(KafkaShareGroups(cluster), SystemClock())
    try:
        yield share
    finally:
        await share.close()
        await cluster.close()


async def test_a_member_is_closed_to_other_principals(
    kafka_cluster: KafkaCluster, gateway_share: GatewayShareGroups
) -> None:
    topic = f"gw-share-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka_cluster.bootstrap})
    for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        f.result(TIMEOUT)
    group = f"gw-share-{uuid.uuid4().hex[:8]}"
    member, _ = await gateway_share.membership.heartbeat(group, None, 0, [topic], "alice")
    assert member.principal == "alice"
    for act in (
        gateway_share.membership.heartbeat(
            group, member.member_id, member.member_epoch, None, "bob"
        ),
        gateway_share.acknowledge(group, member.member_id, {}, "bob"),
        gateway_share.membership.leave(group, member.member_id, "bob"),
    ):
        with pytest.raises(NotFound) as refused:
            await act
        assert refused.value.code is ErrorCode.UNKNOWN_MEMBER_ID
    assert await gateway_share.membership.subscription(group, member.member_id, "bob") == []
    assert await gateway_share.membership.subscription(group, member.member_id, "alice") == [topic]
    # a fetch as bob is refused too, and alice's member still works
    with pytest.raises(NotFound):
        await gateway_share.fetch(
            group,
            member.member_id,
            None,
            max_records=10,
            max_wait_ms=0,
            record_limit=False,
            acks={},
            principal="bob",
        )
    await gateway_share.membership.leave(group, member.member_id, "alice")


async def test_a_client_heartbeat_behind_the_gateways_own_is_not_fenced(
    kafka_cluster: KafkaCluster, gateway_share: GatewayShareGroups
) -> None:
    """The gateway heartbeats for a member before its fetches, and the coordinator may answer
    those with newer epochs (an assignment, partitions added) than the client has seen. Kafka
    fences a heartbeat two epochs behind; the client's heartbeat at the epoch it was answered
    is the same member's, and keeps it."""
    admin = AdminClient({"bootstrap.servers": kafka_cluster.bootstrap})
    topic = f"gw-share-{uuid.uuid4().hex[:8]}"
    for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        f.result(TIMEOUT)
    group = new_group(kafka_cluster.bootstrap)
    member, _ = await gateway_share.membership.heartbeat(group, None, 0, [topic], None)
    seen_epoch = member.member_epoch
    held = gateway_share.kafka.members[(group, member.member_id)]

    async def fetch_until_epoch(epoch: int) -> None:
        deadline = time.monotonic() + TIMEOUT
        while held.member_epoch < epoch:
            assert time.monotonic() < deadline, f"epoch {held.member_epoch}, not {epoch}"
            await gateway_share.fetch(
                group,
                member.member_id,
                None,
                max_records=10,
                max_wait_ms=100,
                record_limit=False,
                acks={},
                principal=None,
            )

    await fetch_until_epoch(seen_epoch + 1)  # the assignment
    for f in admin.create_partitions([NewPartitions(topic, 2)]).values():
        f.result(TIMEOUT)
    await fetch_until_epoch(seen_epoch + 2)  # the partition added
    again, _ = await gateway_share.membership.heartbeat(
        group, member.member_id, seen_epoch, None, None
    )
    assert again.member_epoch == held.member_epoch >= seen_epoch + 2
    assert dict(again.assignment) == {topic: [0, 1]}


async def test_members_whose_client_went_away_leave_and_their_records_come_back(
    kafka_cluster: KafkaCluster,
) -> None:
    """A client that stops calling leaves its member behind on the gateway, with connections
    to the leaders and records acquired. After the idle time the gateway makes it leave: the
    gateway forgets it, and Kafka gives its records to the next member. A member a push socket
    consumes is kept."""
    admin = AdminClient({"bootstrap.servers": kafka_cluster.bootstrap})
    topic = f"gw-share-{uuid.uuid4().hex[:8]}"
    for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        f.result(TIMEOUT)
    group = new_group(kafka_cluster.bootstrap)
    cluster = Cluster(kafka_cluster.bootstrap, client_id="gw-reap-test", request_timeout=30.0)
    await cluster.start()
    clock = FakeClock()
    share = GatewayShareGroups(KafkaShareGroups(cluster), clock)
    writer = KafkaProduce(cluster, Settings())
    try:
        await writer.produce_records(topic, [(0, Record(clock.now_ms(), None, b"held"))])
        got = await share.fetch(
            group,
            None,
            [topic],
            max_records=10,
            max_wait_ms=10_000,
            record_limit=False,
            acks={},
            principal=None,
        )
        assert [r.value for fr in got.records for r, _ in fr.records] == [b"held"]
        gone = got.member_id
        assert gone is not None
        kept, _ = await share.membership.heartbeat(group, None, 0, [topic], None)
        share.pushed.add((group, kept.member_id))
        connections = [s.conn for s in share.kafka.members[(group, gone)].sessions.values()]
        assert connections

        clock.advance(44_999)
        assert await share.membership.reap(45_000, share.pushed) == []
        clock.advance(1)
        assert await share.membership.reap(45_000, share.pushed) == [(group, gone)]
        assert set(share.kafka.members) == {(group, kept.member_id)}
        assert all(c.closed for c in connections)

        # the record it held comes to the next member, delivered a second time
        share.pushed.clear()
        again: list[tuple[bytes | None, int]] = []
        deadline = time.monotonic() + TIMEOUT
        while not again:
            assert time.monotonic() < deadline, "the record did not come back"
            clock.advance(1000)  # so that the fetch heartbeats, and learns the partitions
            answer = await share.fetch(
                group,
                kept.member_id,
                None,
                max_records=10,
                max_wait_ms=500,
                record_limit=False,
                acks={},
                principal=None,
            )
            again = [(r.value, n) for fr in answer.records for r, n in fr.records]
        assert again == [(b"held", 2)]
    finally:
        await share.close()
        await cluster.close()
